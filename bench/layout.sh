#!/usr/bin/env bash
# trace-layout against issue 19's targets, medians of a few runs:
#   1. speed, the whole command (three passes: loops, analyses with the
#      cache model, the replay of the advice): accesses weighed per second
#      of wall time on recorded samples (layout_split, layout_regroup16);
#      target >= 10 M accesses/s;
#   2. memory: a synthetic trace of 100 M accesses (trace-synth mixed:
#      sequential, strided, random and pointer-chasing phases, 131072
#      heap objects); target peak RSS <= 1 GiB (its speed is printed: the
#      random phase misses every level, the worst case of the model).
# Prints the measurements and one PASS/FAIL line per target.
#   BENCH_RUNS             runs per measurement (default 3)
#   BENCH_LAYOUT_ACCESSES  accesses of the synthetic trace (default 100000000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build;; esac
bin=$build/bin
runs=${BENCH_RUNS:-3}
accesses=${BENCH_LAYOUT_ACCESSES:-100000000}
export VALGRIND_LIB=$build/valgrind

die() { echo "layout.sh: $*" >&2; exit 1; }
for f in "$bin/trace-layout" "$bin/trace-synth" "$build/samples/layout_split" \
         "$build/samples/layout_regroup16"; do
  [ -x "$f" ] || die "$f: not built (make BUILD=$build all)"
done
command -v valgrind >/dev/null || die "valgrind: command not found"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layout-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {
  ok = (dir == "min") ? v >= t : v <= t; print ok ? "PASS" : "FAIL" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one run: "seconds peak-KB accesses" of trace-layout on $1
run() {
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/trace-layout" "$@" >"$tmp/report"
  echo "$(cat "$tmp/time") $(awk 'NR == 1 { print $1 }' "$tmp/report")"
}

# ---- 1. speed on recorded samples ----------------------------------------------
valgrind --tool=memrec -q --memrec-out-file="$tmp/split.mrt" \
  "$build/samples/layout_split" 400000 10 >/dev/null
valgrind --tool=memrec -q --memrec-out-file="$tmp/regroup.mrt" \
  "$build/samples/layout_regroup16" 100000 10 >/dev/null
worst=
for t in split regroup; do
  for i in $(seq "$runs"); do run "$tmp/$t.mrt"; done >"$tmp/$t.runs"
  n=$(awk '{ print $3 }' "$tmp/$t.runs" | head -1)
  s=$(awk '{ print $1 }' "$tmp/$t.runs" | median)
  rate=$(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.1f", n / s / 1e6 }')
  echo "$t: $n accesses, median $s s: $rate M accesses/s (with the replay)"
  worst=$(awk -v a="${worst:-1e9}" -v b="$rate" 'BEGIN { print (b < a) ? b : a }')
done
echo "$(verdict "$worst" 10 min) trace-layout >= 10 M accesses/s including the cache model ($worst)"

# ---- 2. memory on 100 M accesses ------------------------------------------------
"$bin/trace-synth" --pattern=mixed --accesses="$accesses" -o "$tmp/big.mrt"
read -r s kb n < <(run "$tmp/big.mrt")
mib=$(awk -v k="$kb" 'BEGIN { printf "%.0f", k / 1024 }')
echo "synthetic mixed trace: $n accesses in $s s ($(awk -v n="$n" -v s="$s" \
  'BEGIN { printf "%.1f", n / s / 1e6 }') M/s), peak RSS $mib MiB"
echo "$(verdict "$mib" 1024 max) $accesses accesses in <= 1 GiB ($mib MiB)"
