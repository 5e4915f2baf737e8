#!/usr/bin/env bash
# Sequitur (tools/lib/algo/sequitur.h) against issue 11's targets, one core,
# medians of BENCH_RUNS runs inside bench_sequitur:
#   1. speed >= 10 M symbols per CPU second (elapsed is printed too: on a
#      shared machine it measures the other jobs as well) on the stencil's
#      block stream (the start address of every block execution of
#      build/samples/stencil, recorded under memrec) and on a stream with
#      little repetition (uniform over 2^20 values);
#   2. memory <= 32 bytes per grammar symbol, the digram table aside.
# Prints the measurements and one PASS/FAIL line per target; exits 0 when a
# target fails (it reports), non-zero when something breaks.
#   BENCH_RUNS              runs per measurement (default 3)
#   BENCH_SEQ_STENCIL_ARGS  stencil's arguments (default "30 8": ~2 M blocks)
#   BENCH_SEQ_RANDOM        symbols of the random stream (default 2000000)
set -euo pipefail
. "$(dirname "$0")/lib/bench.sh"
bench_init sequitur
stencil_args=${BENCH_SEQ_STENCIL_ARGS:-30 8}
nrandom=${BENCH_SEQ_RANDOM:-2000000}
need_built "$BUILD/bench/bench_sequitur" "$BIN/trace-dump" "$BUILD/samples/stencil"
need_commands valgrind

valgrind --tool=memrec -q --memrec-out-file="$TMP/stencil.trace" "$BUILD/samples/stencil" $stencil_args >/dev/null
"$BUILD/bin/trace-dump" -q "$TMP/stencil.trace" | awk '$3 == "exec" { print $4 }' >"$TMP/blocks"

echo "Sequitur builder, one core (median of $RUNS):"
sten=$("$BUILD/bench/bench_sequitur" --runs="$RUNS" "stencil blocks ($stencil_args)" "$TMP/blocks")
rand=$("$BUILD/bench/bench_sequitur" --runs="$RUNS" "little repetition" --random="$nrandom")
echo "  $sten"
echo "  $rand"
# the rate per CPU second: "one core" on a machine shared with other jobs
rate() { sed -E 's/.*cpu [0-9.]+ s ([0-9.]+) M\/s.*/\1/' <<<"$1"; }
bytes() { sed -E 's/.*  ([0-9.]+) B\/grammar symbol.*/\1/' <<<"$1"; }
echo
for line in "$sten" "$rand"; do
  name=$(sed -E 's/ +[0-9]+ symbols.*//' <<<"$line")
  printf '%s Sequitur on %s: %s M symbols per CPU second (target >= 10; the original C++: ~2.4 M/s)\n' \
    "$(verdict "$(rate "$line")" 10 min)" "$name" "$(rate "$line")"
  printf '%s Sequitur memory on %s: %s bytes per grammar symbol without the digram table (target <= 32)\n' \
    "$(verdict "$(bytes "$line")" 32 max)" "$name" "$(bytes "$line")"
done
