#!/usr/bin/env bash
# trace-wpp and trace-whomp against issue 11's targets (medians of
# BENCH_RUNS runs, hyperfine):
#   1. trace-wpp >= 5 M block executions/s and trace-whomp >= 5 M accesses/s
#      on the recorded stencil (BENCH_GRAMMAR_STENCIL_ARGS, default "30 8");
#   2. OMSG/RASG (WHOMP's Figure 5) for every sample, target <= 0.78 on the
#      samples with heap structures (linked_list, binary_tree, struct_array).
# Prints the measurements and one PASS/FAIL line per target; exits 0 when a
# target fails (it reports), non-zero when something breaks.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build;; esac
bin=$build/bin
runs=${BENCH_RUNS:-3}
stencil_args=${BENCH_GRAMMAR_STENCIL_ARGS:-30 8}
export VALGRIND_LIB=$build/valgrind
die() { echo "grammars.sh: $*" >&2; exit 1; }
for f in "$bin/trace-wpp" "$bin/trace-whomp" "$bin/trace-info" "$build/samples/stencil"; do
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

# ---- 1. speed ------------------------------------------------------------------
sten=$tmp/stencil.trace
valgrind --tool=memrec -q --memrec-out-file="$sten" "$build/samples/stencil" $stencil_args >/dev/null
blocks=$("$bin/trace-info" --json "$sten" | jq .blocks)
t_wpp=$(median "'$bin/trace-wpp' -q '$sten' >/dev/null")
kept=$("$bin/trace-whomp" -q "$sten" | awk '/^accesses/ { print $2 }')
t_whomp=$(median "'$bin/trace-whomp' -q '$sten' >/dev/null")
rate_wpp=$(awk -v n="$blocks" -v t="$t_wpp" 'BEGIN { printf "%.2f", n / t / 1e6 }')
rate_whomp=$(awk -v n="$kept" -v t="$t_whomp" 'BEGIN { printf "%.2f", n / t / 1e6 }')
echo "stencil $stencil_args (median of $runs):"
printf '  trace-wpp    %10d block executions %8.3f s %6s M/s\n' "$blocks" "$t_wpp" "$rate_wpp"
printf '  trace-whomp  %10d accesses kept    %8.3f s %6s M/s\n' "$kept" "$t_whomp" "$rate_whomp"

# ---- 2. OMSG/RASG per sample -------------------------------------------------------
echo
echo "OMSG/RASG per sample (bytes of stored grammars; symbols in brackets):"
declare -A sample_args=([linked_list]="1000 1" [binary_tree]="10000" [struct_array]="20000 4"
  [matrix]="128 2" [static_arrays]="" [mmap_arena]="" [prodcons]="2000" [stencil]="$stencil_args")
verdicts=()
for s in linked_list binary_tree struct_array matrix static_arrays mmap_arena prodcons stencil; do
  [ -x "$build/samples/$s" ] || die "$build/samples/$s: not built"
  t=$tmp/$s.trace
  [ "$s" = stencil ] && t=$sten || \
    valgrind --tool=memrec -q --memrec-out-file="$t" "$build/samples/$s" ${sample_args[$s]} >/dev/null
  out=$("$bin/trace-whomp" -q "$t")
  ratio=$(awk '/^OMSG\/RASG/ { print $2 }' <<<"$out")
  osym=$(awk '/^OMSG (instruction|group|object|offset)/ { s += $6 } END { print s }' <<<"$out")
  rsym=$(awk '/^RASG/ { print $7 }' <<<"$out")
  printf '  %-14s %-12s OMSG/RASG %s  (symbols %s / %s = %.3f)\n' "$s" "${sample_args[$s]:-default}" \
    "$ratio" "$osym" "$rsym" "$(awk -v a="$osym" -v b="$rsym" 'BEGIN { print a / b }')"
  case $s in linked_list|binary_tree|struct_array)
    verdicts+=("$(verdict "$ratio" 0.78 max) OMSG/RASG on $s: $ratio (target <= 0.78)") ;;
  esac
done

echo
printf '%s trace-wpp on the stencil: %s M block executions/s (target >= 5)\n' \
  "$(verdict "$rate_wpp" 5 min)" "$rate_wpp"
printf '%s trace-whomp on the stencil: %s M accesses/s (target >= 5)\n' \
  "$(verdict "$rate_whomp" 5 min)" "$rate_whomp"
printf '%s\n' "${verdicts[@]}"
