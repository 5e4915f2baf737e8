#!/usr/bin/env bash
# trace-slice against issue 17's target (median of BENCH_RUNS runs): a
# slice of the Figure 5.6 sample (samples/slice_fig56.c; the three slices
# of Z at statement (16), read from its .twpp file and its trace) under
# 1 s. Prints the measurement and one PASS/FAIL line; exits 0 when the
# target fails (it reports), non-zero when something breaks.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build;; esac
bin=$build/bin
runs=${BENCH_RUNS:-5}
export VALGRIND_LIB=$build/valgrind
die() { echo "slice.sh: $*" >&2; exit 1; }
for f in "$bin/trace-twpp" "$bin/trace-slice" "$build/samples/slice_fig56"; do
  [ -x "$f" ] || die "$f: not built (make BUILD=$build all)"
done
for c in hyperfine jq valgrind; do
  command -v $c >/dev/null || die "$c: command not found (make deps installs it)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/slice-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

t=$tmp/fig.trace
valgrind --tool=memrec -q --memrec-out-file="$t" "$build/samples/slice_fig56" >/dev/null
"$bin/trace-twpp" -q "$t" >/dev/null
line=$(grep -n '/\* (16) \*/' samples/slice_fig56.c | cut -d: -f1)
cmd="$bin/trace-slice -q --at main:$line --var Z $t.twpp"
$cmd | grep -E '^(precise|executed)' || die "no slice: $cmd"
hyperfine --style none --runs "$runs" --export-json "$tmp/h.json" "$cmd" >/dev/null 2>&1 || die "failed: $cmd"
s=$(jq '.results[0].median' "$tmp/h.json")
steps=$($cmd | sed -n 's/.*(of \([0-9]*\)).*/\1/p')
echo "Figure 5.6 sample ($steps block executions): three slices in $(printf '%.3f' "$s") s (median of $runs)"
awk -v s="$s" 'BEGIN { printf "%s slice of the Figure 5.6 sample: %.3f s (target < 1 s)\n", s < 1 ? "PASS" : "FAIL", s }'
