#!/usr/bin/env bash
# trace-slice against issue 17's target (median of BENCH_RUNS runs): a
# slice of the Figure 5.6 sample (samples/slice_fig56.c; the three slices
# of Z at statement (16), read from its .twpp file and its trace) under
# 1 s. Prints the measurement and one PASS/FAIL line; exits 0 when the
# target fails (it reports), non-zero when something breaks.
set -euo pipefail
. "$(dirname "$0")/lib/bench.sh"
bench_init slice
need_built "$BIN/trace-twpp" "$BIN/trace-slice" "$BUILD/samples/slice_fig56"
need_commands hyperfine jq valgrind

t=$TMP/fig.trace
valgrind --tool=memrec -q --memrec-out-file="$t" "$BUILD/samples/slice_fig56" >/dev/null
"$BIN/trace-twpp" -q "$t" >/dev/null
line=$(grep -n '/\* (16) \*/' samples/slice_fig56.c | cut -d: -f1)
cmd="$BIN/trace-slice -q --at main:$line --var Z $t.twpp"
$cmd | grep -E '^(precise|executed)' || die "no slice: $cmd"
s=$(hyperfine_median "$cmd")
steps=$($cmd | sed -n 's/.*(of \([0-9]*\)).*/\1/p')
echo "Figure 5.6 sample ($steps block executions): three slices in $(printf '%.3f' "$s") s (median of $RUNS)"
awk -v s="$s" 'BEGIN { printf "%s slice of the Figure 5.6 sample: %.3f s (target < 1 s)\n", s < 1 ? "PASS" : "FAIL", s }'
