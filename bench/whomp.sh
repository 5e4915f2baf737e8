#!/usr/bin/env bash
# trace-whomp against issue 11's targets:
#   1. speed: >= 5 M kept accesses per second (elapsed, median of BENCH_RUNS
#      runs) on the recorded stencil (BENCH_WHOMP_STENCIL_ARGS, default
#      "30 8") and on a real program, gzip -9 -c over BENCH_WHOMP_GZIP_KB KB
#      of random bytes as base64 (default 150: about 11 M kept accesses). CPU seconds
#      are printed too: the machine may be shared, and trace-whomp builds
#      its grammars on two threads (--threads=1 is printed beside it);
#   2. memory: peak resident set (GNU time) and bytes per kept access; the
#      target, a trace of 100 M accesses in at most 1 GiB, is measured on a
#      real one, the stencil recorded with BENCH_WHOMP_BIG_ARGS (default
#      "30 62": about 95 M kept accesses; one run, about 2 CPU minutes), and
#      projected for gzip from its bytes per access (its grammars grow with
#      the trace; the stencil's stop growing once its loop has repeated);
#   3. OMSG/RASG (WHOMP's Figure 5) for every sample, target <= 0.78 on the
#      samples with heap structures (linked_list, binary_tree, struct_array).
# Prints the measurements and one PASS/FAIL line per target; exits 0 when a
# target fails (it reports), non-zero when something breaks.
set -euo pipefail
. "$(dirname "$0")/lib/bench.sh"
bench_init whomp
stencil_args=${BENCH_WHOMP_STENCIL_ARGS:-30 8}
gzip_kb=${BENCH_WHOMP_GZIP_KB:-150}
big_args=${BENCH_WHOMP_BIG_ARGS:-30 62}
need_built "$BIN/trace-whomp" "$BUILD/samples/stencil" /usr/bin/time
need_commands valgrind gzip base64
record() {  # TRACE PROGRAM ARGS...
  local t=$1; shift
  valgrind --tool=memrec -q --memrec-out-file="$t" "$@" >/dev/null || die "recording $* failed"
}

# whomp_line NAME TRACE [OPTIONS]: one line of speed and memory; sets rate, per100m.
whomp_line() {
  local name=$1 t=$2; shift 2
  local kept el=() cpu=() rss=0
  kept=$("$BIN/trace-whomp" -q "$@" "$t" | awk '/^accesses/ { print $2 }')
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$BIN/trace-whomp" -q "$@" "$t" >/dev/null ||
      die "trace-whomp $* $t failed"
    read -r e u s m <"$TMP/time"
    el+=("$e"); cpu+=("$(calc "$u + $s")")
    [ "$m" -gt "$rss" ] && rss=$m
  done
  local e c
  e=$(printf '%s\n' "${el[@]}" | median); c=$(printf '%s\n' "${cpu[@]}" | median)
  rate=$(awk -v n="$kept" -v t="$e" 'BEGIN { printf "%.2f", n / t / 1e6 }')
  per100m=$(awk -v k="$rss" -v n="$kept" 'BEGIN { printf "%.0f", k * 1024 / n * 1e8 / 1048576 }')
  printf '  %-26s %10d kept  %7.2f s %6s M/s  cpu %7.2f s %6.2f M/s  peak %5d MiB %6.1f B/access\n' \
    "$name" "$kept" "$e" "$rate" "$c" "$(awk -v n="$kept" -v t="$c" 'BEGIN { printf "%.2f", n / t / 1e6 }')" \
    $((rss / 1024)) "$(awk -v k="$rss" -v n="$kept" 'BEGIN { printf "%.1f", k * 1024 / n }')"
}

sten=$TMP/stencil.trace gz=$TMP/gzip.trace
record "$sten" "$BUILD/samples/stencil" $stencil_args
head -c $((gzip_kb * 1024)) /dev/urandom | base64 >"$TMP/gzip.in"
record "$gz" gzip -9 -c "$TMP/gzip.in"

echo "trace-whomp speed and memory (elapsed and CPU: medians of $RUNS; peak: the largest):"
verdicts=()
for spec in "stencil $stencil_args|$sten" "gzip -9 ${gzip_kb} KB|$gz"; do
  name=${spec%%|*} t=${spec#*|}
  whomp_line "$name, --threads=1" "$t" --threads=1
  whomp_line "$name" "$t"
  verdicts+=("$(verdict "$rate" 5 min) trace-whomp on $name: $rate M accesses/s (target >= 5)")
done
verdicts+=("$(verdict "$per100m" 1024 max) trace-whomp memory on gzip, projected: $per100m MiB per 100 M accesses (target <= 1024)")

big=$TMP/big.trace
record "$big" "$BUILD/samples/stencil" $big_args
RUNS=1 whomp_line "stencil $big_args" "$big"
rm -f "$big"
verdicts+=("$(verdict "$per100m" 1024 max) trace-whomp memory on stencil $big_args: $per100m MiB per 100 M accesses, measured (target <= 1024)")

echo
echo "OMSG/RASG per sample (bytes of stored grammars; symbols in brackets):"
declare -A sample_args=([linked_list]="1000 1" [binary_tree]="10000" [struct_array]="20000 4"
  [matrix]="128 2" [static_arrays]="" [mmap_arena]="" [prodcons]="2000" [stencil]="$stencil_args")
for s in linked_list binary_tree struct_array matrix static_arrays mmap_arena prodcons stencil gzip; do
  case $s in
    stencil) t=$sten ;;
    gzip) t=$gz ;;
    *) [ -x "$BUILD/samples/$s" ] || die "$BUILD/samples/$s: not built"
       t=$TMP/$s.trace
       record "$t" "$BUILD/samples/$s" ${sample_args[$s]} ;;
  esac
  out=$("$BIN/trace-whomp" -q "$t")
  ratio=$(awk '/^OMSG\/RASG/ { print $2 }' <<<"$out")
  osym=$(awk '/^OMSG (instruction|group|object|offset)/ { s += $6 } END { print s }' <<<"$out")
  rsym=$(awk '/^RASG/ { print $7 }' <<<"$out")
  printf '  %-14s %-12s OMSG/RASG %s  (symbols %s / %s = %.3f)\n' "$s" "${sample_args[$s]:-}" \
    "$ratio" "$osym" "$rsym" "$(awk -v a="$osym" -v b="$rsym" 'BEGIN { print a / b }')"
  case $s in linked_list|binary_tree|struct_array)
    verdicts+=("$(verdict "$ratio" 0.78 max) OMSG/RASG on $s: $ratio (target <= 0.78)") ;;
  esac
done

echo
printf '%s\n' "${verdicts[@]}"
