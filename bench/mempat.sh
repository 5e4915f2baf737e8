#!/usr/bin/env bash
# trace-mempat against issue 5's targets, medians of a few runs (hyperfine):
#   1. trace-mempat alone, in memory accesses per second, on a large strided
#      synthetic trace and on the recorded stencil: target >= 50 million/s.
#   2. on the stencil sample at a size where it runs about 0.2 s natively:
#      recording plus trace-mempat against `valgrind --tool=none` on the same
#      program: target <= 2.5x. Measured two ways: one after the other
#      through a trace file, and together through a FIFO (the recorder
#      writes while trace-mempat reads, as Exana's online MemPat).
# Prints the measurements and one PASS/FAIL line per target. Exits 0 when a
# target fails (this reports; CI does not run it), non-zero when something
# breaks.
#   BENCH_RUNS              runs per measurement (default 3)
#   BENCH_MEMPAT_ACCESSES   accesses of the synthetic trace (default 200000000)
#   BENCH_STENCIL_ARGS      stencil's arguments: grid size, iterations (default "65 80")
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
case $build in /*) ;; *) build=$PWD/$build;; esac
bin=$build/bin
runs=${BENCH_RUNS:-3}
accesses=${BENCH_MEMPAT_ACCESSES:-200000000}
stencil_args=${BENCH_STENCIL_ARGS:-65 80}
stencil=$build/samples/stencil
export VALGRIND_LIB=$build/valgrind

die() { echo "mempat.sh: $*" >&2; exit 1; }
for f in "$bin/trace-mempat" "$bin/trace-synth" "$bin/trace-info" "$stencil"; do
  [ -x "$f" ] || die "$f: not built (make BUILD=$build all)"
done
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || die "$VALGRIND_LIB: memrec tool not built (make BUILD=$build recorder)"
for c in hyperfine jq valgrind; do
  command -v $c >/dev/null || die "$c: command not found (make deps installs it)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mempat-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# median SECONDS of a shell command over $runs runs.
median() {
  hyperfine --style none --runs "$runs" --export-json "$tmp/h.json" "$1" >/dev/null 2>&1 \
    || die "failed: $1"
  jq '.results[0].median' "$tmp/h.json"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {
  ok = (dir == "min") ? v >= t : v <= t; print ok ? "PASS" : "FAIL" }'; }

# ---- 1. trace-mempat alone ----------------------------------------------------
synth=$tmp/strided.trace
"$bin/trace-synth" --pattern=strided --accesses="$accesses" -o "$synth"
read -r stencil_n stencil_iters <<<"$stencil_args"
sten=$tmp/stencil.trace
valgrind --tool=memrec -q --memrec-out-file="$sten" "$stencil" $stencil_args >/dev/null

rate_line() {  # name trace -> prints a line, sets $rate (million accesses/s), $t
  local n
  n=$("$bin/trace-info" --json "$2" | jq .accesses)
  t=$(median "'$bin/trace-mempat' -q '$2' >/dev/null")
  rate=$(awk -v n="$n" -v t="$t" 'BEGIN { printf "%.1f", n / t / 1e6 }')
  printf '%-34s %14d accesses %8.3f s %8s M accesses/s\n' "$1" "$n" "$t" "$rate"
}
echo "trace-mempat alone (median of $runs):"
rate_line "strided synthetic trace" "$synth"; rate_synth=$rate
rate_line "stencil $stencil_n/$stencil_iters recorded" "$sten"; rate_sten=$rate analyse=$t

# ---- 2. recording + trace-mempat vs valgrind --tool=none -------------------------
native=$(median "'$stencil' $stencil_args >/dev/null")
none=$(median "valgrind --tool=none -q '$stencil' $stencil_args >/dev/null")
both=$(median "valgrind --tool=memrec -q --memrec-out-file='$tmp/r.trace' '$stencil' $stencil_args >/dev/null && '$bin/trace-mempat' -q '$tmp/r.trace' >/dev/null")
fifo=$tmp/r.fifo
cat >"$tmp/piped.sh" <<EOF
rm -f '$fifo'; mkfifo '$fifo'
valgrind --tool=memrec -q --memrec-out-file='$fifo' '$stencil' $stencil_args >/dev/null & rec=\$!
'$bin/trace-mempat' -q '$fifo' >/dev/null; rc=\$?
wait \$rec && [ \$rc -eq 0 ]
EOF
piped=$(median "bash '$tmp/piped.sh'")

echo
echo "stencil $stencil_args (median of $runs):"
printf '  %-44s %8.3f s\n' "native" "$native" \
  "valgrind --tool=none" "$none" \
  "trace-mempat on that trace" "$analyse" \
  "recording, then trace-mempat" "$both" \
  "recording into trace-mempat through a FIFO" "$piped"
seq_ratio=$(ratio "$both" "$none")
pipe_ratio=$(ratio "$piped" "$none")
# Exana's MemPat on the same kind of kernel: online 415x native, its offline
# pipeline (trace generation plus the Python analysis) about 7600x.
printf '  %-44s %8sx native\n' "valgrind --tool=none" "$(ratio "$none" "$native")" \
  "recording, then trace-mempat" "$(ratio "$both" "$native")" \
  "recording into trace-mempat through a FIFO" "$(ratio "$piped" "$native")"

echo
printf '%s trace-mempat alone, strided synthetic: %s M accesses/s (target >= 50)\n' \
  "$(verdict "$rate_synth" 50 min)" "$rate_synth"
printf '%s trace-mempat alone, recorded stencil: %s M accesses/s (target >= 50)\n' \
  "$(verdict "$rate_sten" 50 min)" "$rate_sten"
printf '%s recording then trace-mempat: %sx valgrind --tool=none (target <= 2.5)\n' \
  "$(verdict "$seq_ratio" 2.5 max)" "$seq_ratio"
printf '%s recording into trace-mempat through a FIFO: %sx valgrind --tool=none (target <= 2.5)\n' \
  "$(verdict "$pipe_ratio" 2.5 max)" "$pipe_ratio"
