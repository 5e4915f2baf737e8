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
. "$(dirname "$0")/lib/bench.sh"
bench_init redundancy
bytes=${BENCH_GZIP_BYTES:-300000}

need_built "$BIN/trace-redundancy" "$BIN/trace-dataflow" "$BIN/trace-twpp" "$BIN/trace-info" \
  "$BIN/trace-synth" /usr/bin/time

# cpu SECONDS: the median user + system time of a command over $RUNS runs.
cpu() {
  local _ res
  for _ in $(seq "$RUNS"); do measure res "$@"; echo "${res%% *}"; done | median
}

t=$TMP/t.mrt
if command -v valgrind >/dev/null && ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 && command -v gzip >/dev/null; then
  (cat tools/lib/*/*.c tools/*.c || true) | head -c "$bytes" >"$TMP/in.txt" || true
  valgrind --tool=memrec -q --memrec-out-file="$t" gzip -9 -c "$TMP/in.txt" >/dev/null
  name="gzip -9 ($bytes bytes)"
else
  "$BIN/trace-synth" --pattern=chase --accesses=4000000 -o "$t"
  name="synthetic chase"
fi
n=$("$BIN/trace-info" "$t" | awk '/^accesses:/ { print $2 }')
m=$("$BIN/trace-info" "$t" | awk '/^modifies:/ { print $2 }')
n=$((n + m))       # a modify is a load and a store
"$BIN/trace-twpp" -q -o "$TMP/t.twpp" "$t" >/dev/null
"$BIN/trace-twpp" -q --all-edges -o "$TMP/all.twpp" "$t" >/dev/null

echo "trace-redundancy on $name: $n accesses (a modify counts twice), median of $RUNS:"
d=$(cpu "$BIN/trace-redundancy" -q "$t")
rd=$(awk -v n="$n" -v t="$d" 'BEGIN { printf "%.1f", n / (t > 0 ? t : 0.01) / 1e6 }')
echo "  direct pass over the trace:  $d s CPU, $rd M accesses/s"
w=$(cpu "$BIN/trace-redundancy" "$TMP/t.twpp")
rw=$(awk -v n="$n" -v t="$w" 'BEGIN { printf "%.1f", n / (t > 0 ? t : 0.01) / 1e6 }')
echo "  TWPP+ (edges, recovery):     $w s CPU, $rw M accesses/s"

counts() { grep -v '^TWPP+' "$1" | sed -E 's/^(( +[0-9.]+){7})  .*@(0x[0-9a-f]+ \()/\1  \3/'; }
"$BIN/trace-redundancy" -q --top=0 "$t" >"$TMP/direct"
"$BIN/trace-redundancy" --top=0 "$TMP/all.twpp" >"$TMP/all"
"$BIN/trace-redundancy" --top=0 "$TMP/t.twpp" >"$TMP/dropped"
same=$(cmp -s <(counts "$TMP/all") <(counts "$TMP/direct") && echo yes || echo no)
echo "  every edge kept: equal to the direct pass: $same; edges dropped: $(head -1 "$TMP/dropped")"

# query NAME FUNCTION: a single-address load of it (the most executed), at
# the block where it is; prints the answer, sets $qms (CPU ms, median)
query() {
  local fn=$2 load block
  "$BIN/trace-dataflow" --function "$fn" "$TMP/t.twpp" >"$TMP/fn"
  read -r load block < <(awk '/ load .* single address / { c = $(NF - 3); if (c + 0 > best) {
      best = c + 0; l = $1; b = $0 } }
    END { sub(/.* in DBB block [0-9]+ \(/, "", b); sub(/\).*/, "", b); print l, b }' "$TMP/fn")
  [ -n "$load" ] || { qms=0; echo "  $fn: no single-address load"; return; }
  local q
  q=$(cpu "$BIN/trace-dataflow" --function "$fn" --at "$block" --fact "redundant:$load" "$TMP/t.twpp")
  qms=$(awk -v t="$q" 'BEGIN { printf "%.0f", t * 1000 }')
  "$BIN/trace-dataflow" --function "$fn" --at "$block" --fact "redundant:$load" --check "$TMP/t.twpp" >"$TMP/q"
  echo "trace-dataflow, $1: $fn, redundant:$load at $block:"
  sed -n '3,6p' "$TMP/q" | sed 's/^/  /'
  echo "  $qms ms CPU (median of $RUNS, with reading the function)"
}
"$BIN/trace-dataflow" --top 100000 "$TMP/t.twpp" >"$TMP/table"
# the longest timestamp vectors (the loops the series compact), and the
# largest dynamic flow graph (the most unique paths)
fn=$(awk 'NR > 5 { u = $6; gsub(/[()]/, "", u); if (u + 0 > best) { best = u + 0; f = $NF } } END { print f }' "$TMP/table")
query "longest timestamp vectors" "$fn"; qms_long=$qms
fn=$(awk 'NR > 5 { print $NF; exit }' "$TMP/table")
query "largest dynamic flow graph" "$fn"; qms_big=$qms

echo
echo "$(verdict "$rd" 20 min) trace-redundancy, direct pass: $rd M accesses/s (target >= 20)"
echo "$(verdict "$rw" 20 min) trace-redundancy, TWPP+: $rw M accesses/s (target >= 20)"
echo "$( [ "$same" = yes ] && echo PASS || echo FAIL) TWPP+ (every edge kept) equals the direct pass"
echo "$(verdict "$qms_long" 100 max) trace-dataflow query on the function with the longest vectors: $qms_long ms (target < 100)"
echo "$(verdict "$qms_big" 100 max) trace-dataflow query on the function with the largest flow graph: $qms_big ms (target < 100)"
