#!/usr/bin/env bash
# trace-redundancy and trace-dataflow against issue 17's targets, on gzip -9
# of a few hundred KB of C (recorded here) and, without valgrind, a synthetic
# chase trace:
#   1. trace-redundancy, in memory accesses per CPU second (user + system,
#      median of a few runs; the machine is shared): the direct pass over the
#      trace and the TWPP+ method from the .twpp file: target >= 20 M/s each.
#   2. the two agree exactly on a file built with every edge kept (trace-twpp
#      --all-edges).
#   3. a trace-dataflow query on one function (redundant:L for its most
#      executed single-address load L, at L's block), CPU milliseconds with
#      reading the function: target < 100 ms; on the function with the
#      longest timestamp vectors and on the one with the largest dynamic
#      flow graph (the most unique paths).
# Prints the measurements and one PASS/FAIL line per target; exits 0 when a
# target fails (this reports), non-zero when something breaks.
#   BENCH_RUNS            runs per measurement (default 3)
#   BENCH_GZIP_BYTES      bytes gzip compresses (default 300000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build;; esac
bin=$build/bin
runs=${BENCH_RUNS:-3}
bytes=${BENCH_GZIP_BYTES:-300000}
export VALGRIND_LIB=$build/valgrind

die() { echo "redundancy.sh: $*" >&2; exit 1; }
for f in trace-redundancy trace-dataflow trace-twpp trace-info trace-synth; do
  [ -x "$bin/$f" ] || die "$bin/$f: not built (make BUILD=$build all)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/redundancy-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# cpu SECONDS: the median user + system time of a command over $runs runs.
cpu() {
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1 || die "failed: $*"
    awk '{ print $1 + $2 }' "$tmp/time"
  done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {
  ok = (dir == "min") ? v >= t : v <= t; print ok ? "PASS" : "FAIL" }'; }

t=$tmp/t.mrt
if command -v valgrind >/dev/null && ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 && command -v gzip >/dev/null; then
  (cat tools/lib/*/*.c tools/*.c || true) | head -c "$bytes" >"$tmp/in.txt" || true
  valgrind --tool=memrec -q --memrec-out-file="$t" gzip -9 -c "$tmp/in.txt" >/dev/null
  name="gzip -9 ($bytes bytes)"
else
  "$bin/trace-synth" --pattern=chase --accesses=4000000 -o "$t"
  name="synthetic chase"
fi
n=$("$bin/trace-info" "$t" | awk '/^accesses:/ { print $2 }')
m=$("$bin/trace-info" "$t" | awk '/^modifies:/ { print $2 }')
n=$((n + m))       # a modify is a load and a store
"$bin/trace-twpp" -q -o "$tmp/t.twpp" "$t" >/dev/null
"$bin/trace-twpp" -q --all-edges -o "$tmp/all.twpp" "$t" >/dev/null

echo "trace-redundancy on $name: $n accesses (a modify counts twice), median of $runs:"
d=$(cpu "$bin/trace-redundancy" -q "$t")
rd=$(awk -v n="$n" -v t="$d" 'BEGIN { printf "%.1f", n / (t > 0 ? t : 0.01) / 1e6 }')
echo "  direct pass over the trace:  $d s CPU, $rd M accesses/s"
w=$(cpu "$bin/trace-redundancy" "$tmp/t.twpp")
rw=$(awk -v n="$n" -v t="$w" 'BEGIN { printf "%.1f", n / (t > 0 ? t : 0.01) / 1e6 }')
echo "  TWPP+ (edges, recovery):     $w s CPU, $rw M accesses/s"

counts() { grep -v '^TWPP+' "$1" | sed -E 's/^(( +[0-9.]+){7})  .*@(0x[0-9a-f]+ \()/\1  \3/'; }
"$bin/trace-redundancy" -q --top=0 "$t" >"$tmp/direct"
"$bin/trace-redundancy" --top=0 "$tmp/all.twpp" >"$tmp/all"
"$bin/trace-redundancy" --top=0 "$tmp/t.twpp" >"$tmp/dropped"
same=$(cmp -s <(counts "$tmp/all") <(counts "$tmp/direct") && echo yes || echo no)
echo "  every edge kept: equal to the direct pass: $same; edges dropped: $(head -1 "$tmp/dropped")"

# query NAME FUNCTION: a single-address load of it (the most executed), at
# the block where it is; prints the answer, sets $qms (CPU ms, median)
query() {
  local fn=$2 load block
  "$bin/trace-dataflow" --function "$fn" "$tmp/t.twpp" >"$tmp/fn"
  read -r load block < <(awk '/ load .* single address / { c = $(NF - 3); if (c + 0 > best) {
      best = c + 0; l = $1; b = $0 } }
    END { sub(/.* in DBB block [0-9]+ \(/, "", b); sub(/\).*/, "", b); print l, b }' "$tmp/fn")
  [ -n "$load" ] || { qms=0; echo "  $fn: no single-address load"; return; }
  local q
  q=$(cpu "$bin/trace-dataflow" --function "$fn" --at "$block" --fact "redundant:$load" "$tmp/t.twpp")
  qms=$(awk -v t="$q" 'BEGIN { printf "%.0f", t * 1000 }')
  "$bin/trace-dataflow" --function "$fn" --at "$block" --fact "redundant:$load" --check "$tmp/t.twpp" >"$tmp/q"
  echo "trace-dataflow, $1: $fn, redundant:$load at $block:"
  sed -n '3,6p' "$tmp/q" | sed 's/^/  /'
  echo "  $qms ms CPU (median of $runs, with reading the function)"
}
"$bin/trace-dataflow" --top 100000 "$tmp/t.twpp" >"$tmp/table"
# the longest timestamp vectors (the loops the series compact), and the
# largest dynamic flow graph (the most unique paths)
fn=$(awk 'NR > 5 { u = $6; gsub(/[()]/, "", u); if (u + 0 > best) { best = u + 0; f = $NF } } END { print f }' "$tmp/table")
query "longest timestamp vectors" "$fn"; qms_long=$qms
fn=$(awk 'NR > 5 { print $NF; exit }' "$tmp/table")
query "largest dynamic flow graph" "$fn"; qms_big=$qms

echo
echo "$(verdict "$rd" 20 min) trace-redundancy, direct pass: $rd M accesses/s (target >= 20)"
echo "$(verdict "$rw" 20 min) trace-redundancy, TWPP+: $rw M accesses/s (target >= 20)"
echo "$( [ "$same" = yes ] && echo PASS || echo FAIL) TWPP+ (every edge kept) equals the direct pass"
echo "$(verdict "$qms_long" 100 max) trace-dataflow query on the function with the longest vectors: $qms_long ms (target < 100)"
echo "$(verdict "$qms_big" 100 max) trace-dataflow query on the function with the largest flow graph: $qms_big ms (target < 100)"
