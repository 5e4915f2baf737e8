#!/usr/bin/env bash
# trace-wpp against issue 11's target (median of BENCH_RUNS runs,
# hyperfine): >= 5 M block executions/s on the recorded stencil
# (BENCH_GRAMMAR_STENCIL_ARGS, default "30 8"). trace-whomp's speed, memory
# and OMSG/RASG ratios are bench/whomp.sh's. Prints the measurement and a
# PASS/FAIL line; exits 0 when the target fails (it reports), non-zero when
# something breaks.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build;; esac
bin=$build/bin
runs=${BENCH_RUNS:-3}
stencil_args=${BENCH_GRAMMAR_STENCIL_ARGS:-30 8}
export VALGRIND_LIB=$build/valgrind
die() { echo "grammars.sh: $*" >&2; exit 1; }
for f in "$bin/trace-wpp" "$bin/trace-info" "$build/samples/stencil"; do
  [ -x "$f" ] || die "$f: not built (make BUILD=$build all)"
done
for c in hyperfine jq valgrind; do
  command -v $c >/dev/null || die "$c: command not found (make deps installs it)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/grammars-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median() {
  hyperfine --style none --runs "$runs" --export-json "$tmp/h.json" "$1" >/dev/null 2>&1 \
    || die "failed: $1"
  jq '.results[0].median' "$tmp/h.json"
}
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {
  ok = (dir == "min") ? v >= t : v <= t; print ok ? "PASS" : "FAIL" }'; }

sten=$tmp/stencil.trace
valgrind --tool=memrec -q --memrec-out-file="$sten" "$build/samples/stencil" $stencil_args >/dev/null
blocks=$("$bin/trace-info" --json "$sten" | jq .blocks)
t_wpp=$(median "'$bin/trace-wpp' -q '$sten' >/dev/null")
rate_wpp=$(awk -v n="$blocks" -v t="$t_wpp" 'BEGIN { printf "%.2f", n / t / 1e6 }')
echo "stencil $stencil_args (median of $runs):"
printf '  trace-wpp    %10d block executions %8.3f s %6s M/s\n' "$blocks" "$t_wpp" "$rate_wpp"

echo
printf '%s trace-wpp on the stencil: %s M block executions/s (target >= 5)\n' \
  "$(verdict "$rate_wpp" 5 min)" "$rate_wpp"
