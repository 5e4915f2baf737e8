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
. "$(dirname "$0")/lib/bench.sh"
bench_init layout
accesses=${BENCH_LAYOUT_ACCESSES:-100000000}

need_built "$BIN/trace-layout" "$BIN/trace-synth" "$BUILD/samples/layout_split" \
  "$BUILD/samples/layout_regroup16"
need_commands valgrind


# one run: "seconds peak-KB accesses" of trace-layout on $1
run() {
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$BIN/trace-layout" "$@" >"$TMP/report"
  echo "$(cat "$TMP/time") $(awk 'NR == 1 { print $1 }' "$TMP/report")"
}

# ---- 1. speed on recorded samples ----------------------------------------------
valgrind --tool=memrec -q --memrec-out-file="$TMP/split.mrt" \
  "$BUILD/samples/layout_split" 400000 10 >/dev/null
valgrind --tool=memrec -q --memrec-out-file="$TMP/regroup.mrt" \
  "$BUILD/samples/layout_regroup16" 100000 10 >/dev/null
worst=
for t in split regroup; do
  for i in $(seq "$RUNS"); do run "$TMP/$t.mrt"; done >"$TMP/$t.runs"
  n=$(awk '{ print $3 }' "$TMP/$t.runs" | head -1)
  s=$(awk '{ print $1 }' "$TMP/$t.runs" | median)
  rate=$(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.1f", n / s / 1e6 }')
  echo "$t: $n accesses, median $s s: $rate M accesses/s (with the replay)"
  worst=$(awk -v a="${worst:-1e9}" -v b="$rate" 'BEGIN { print (b < a) ? b : a }')
done
echo "$(verdict "$worst" 10 min) trace-layout >= 10 M accesses/s including the cache model ($worst)"

# ---- 2. memory on 100 M accesses ------------------------------------------------
"$BIN/trace-synth" --pattern=mixed --accesses="$accesses" -o "$TMP/big.mrt"
read -r s kb n < <(run "$TMP/big.mrt")
mib=$(awk -v k="$kb" 'BEGIN { printf "%.0f", k / 1024 }')
echo "synthetic mixed trace: $n accesses in $s s ($(awk -v n="$n" -v s="$s" \
  'BEGIN { printf "%.1f", n / s / 1e6 }') M/s), peak RSS $mib MiB"
echo "$(verdict "$mib" 1024 max) $accesses accesses in <= 1 GiB ($mib MiB)"
