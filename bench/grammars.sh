#!/usr/bin/env bash
# trace-wpp against issue 11's target (median of BENCH_RUNS runs,
# hyperfine): >= 5 M block executions/s on the recorded stencil
# (BENCH_GRAMMAR_STENCIL_ARGS, default "30 8"). trace-whomp's speed, memory
# and OMSG/RASG ratios are bench/whomp.sh's. Prints the measurement and a
# PASS/FAIL line; exits 0 when the target fails (it reports), non-zero when
# something breaks.
set -euo pipefail
. "$(dirname "$0")/lib/bench.sh"
bench_init grammars
stencil_args=${BENCH_GRAMMAR_STENCIL_ARGS:-30 8}
need_built "$BIN/trace-wpp" "$BIN/trace-info" "$BUILD/samples/stencil"
need_commands hyperfine jq valgrind

sten=$TMP/stencil.trace
valgrind --tool=memrec -q --memrec-out-file="$sten" "$BUILD/samples/stencil" $stencil_args >/dev/null
blocks=$("$BIN/trace-info" --json "$sten" | jq .blocks)
t_wpp=$(hyperfine_median "'$BIN/trace-wpp' -q '$sten' >/dev/null")
rate_wpp=$(awk -v n="$blocks" -v t="$t_wpp" 'BEGIN { printf "%.2f", n / t / 1e6 }')
echo "stencil $stencil_args (median of $RUNS):"
printf '  trace-wpp    %10d block executions %8.3f s %6s M/s\n' "$blocks" "$t_wpp" "$rate_wpp"

echo
printf '%s trace-wpp on the stencil: %s M block executions/s (target >= 5)\n' \
  "$(verdict "$rate_wpp" 5 min)" "$rate_wpp"
