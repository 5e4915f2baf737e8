#!/usr/bin/env bash
# trace-twpp against issue 16's targets (medians of BENCH_RUNS runs):
#   1. compaction against the uncompressed WPP (4 bytes per block
#      execution) at least 7x on every sample (the dissertation: 7-64x);
#   2. the .twpp file at most 2x the Sequitur WPP (trace-wpp's stored
#      grammars), both whole and without the symbol table (which
#      trace-wpp's grammar bytes do not hold);
#   3. one function's traces (the most called, and main) extracted at least
#      300x faster than from the Sequitur grammars, and under 10 ms
#      (bench_twpp, on the stencil, the largest trace, and on gzip
#      compressing 2 MB of this repository's C sources, a real program);
#   4. trace-twpp at least 5 M block executions per second on the stencil
#      (the control part alone, --no-dependences) and 5 M loads per second
#      (the whole build, TWPP+ included), and its peak memory scaled to
#      100 M accesses at most 1 GiB;
#   5. TWPP+ (printed, the dissertation's Table 4.6): the whole file against
#      the uncompressed trace with addresses, and --dependences on the load
#      point with the most edges (median time, from the file alone).
# Prints the measurements and one PASS/FAIL line per target; exits 0 when a
# target fails (it reports), non-zero when something breaks.
set -euo pipefail
. "$(dirname "$0")/lib/bench.sh"
bench_init twpp
stencil_args=${BENCH_TWPP_STENCIL_ARGS:-50 16}
need_built "$BIN/trace-twpp" "$BIN/trace-wpp" "$BIN/trace-info" "$BUILD/bench/bench_twpp" \
  "$BUILD/samples/stencil"
need_commands hyperfine jq valgrind sqlite3
# CPU seconds (user + system, mean) of the last median's runs: on a shared
# machine wall clock also measures the other processes.
cpu() { jq '.results[0].user + .results[0].system' "$TMP/h.json"; }
verdicts=()

# ---- 1, 2. sizes per sample ------------------------------------------------------
declare -A sample_args=([linked_list]="1000 1" [binary_tree]="10000" [struct_array]="20000 4"
  [prodcons]="2000" [stencil]="$stencil_args")
echo "sizes (bytes): uncompressed WPP, .twpp control part (without symbols), Sequitur WPP"
for s in linked_list binary_tree struct_array prodcons stencil; do
  [ -x "$BUILD/samples/$s" ] || die "$BUILD/samples/$s: not built"
  t=$TMP/$s.trace
  valgrind --tool=memrec -q --memrec-out-file="$t" "$BUILD/samples/$s" ${sample_args[$s]} >/dev/null
  out=$("$BIN/trace-twpp" -q -o "$TMP/$s.twpp" "$t")
  wpp=$(awk '/^uncompressed WPP [0-9]/ { print $3 }' <<<"$out")
  file=$(stat -c %s "$TMP/$s.twpp")
  plus=$(awk '/^bytes: access points/ { gsub(/,/, ""); print $4 + $7 + $10 }' <<<"$out")
  total=$((file - plus))    # the control part: Tables 3.3 and 3.5 compare it
  syms=$(awk '/^bytes: header/ { sub(/,/, "", $5); print $5 }' <<<"$out")
  seq=$("$BIN/trace-wpp" -q --top=0 "$t" | awk '/^thread/ { for (i = 1; i <= NF; i++) if ($i == "bytes") s += $(i + 1) } END { print s }')
  comp=$(awk -v a="$wpp" -v b="$total" 'BEGIN { printf "%.2f", a / b }')
  vs=$(awk -v a="$total" -v b="$seq" 'BEGIN { printf "%.2f", a / b }')
  vs_data=$(awk -v a="$total" -v y="$syms" -v b="$seq" 'BEGIN { printf "%.2f", (a - y) / b }')
  printf '  %-13s %11d %9d (%9d) %9d   compaction %7sx   TWPP/Sequitur %5s (without symbols %s)\n' \
    "$s" "$wpp" "$total" "$((total - syms))" "$seq" "$comp" "$vs" "$vs_data"
  grep -q '^DCG' <<<"$out" && printf '  %-13s %s\n' "" "$(grep '^DCG' <<<"$out")"
  printf '  %-13s TWPP+: %s; %s\n' "" "$(grep '^edges' <<<"$out")" \
    "$(sed -n 's/^uncompressed WPP with addresses \([0-9]*\) bytes.*compaction/file against the trace with addresses (\1 bytes)/p' <<<"$out")"
  verdicts+=("$(verdict "$comp" 7 min) compaction on $s: ${comp}x (target >= 7)")
  verdicts+=("$(verdict "$vs_data" 2 max) TWPP/Sequitur on $s: $vs whole, $vs_data without symbols (target <= 2)")
done

# ---- 3. one function's traces -------------------------------------------------------
sten=$TMP/stencil.trace
echo
echo "one function's traces on the stencil (median of 5; CPU time, then wall clock):"
for fn in - main; do
  line=$("$BUILD/bench/bench_twpp" "$sten" "$TMP/stencil.twpp" "$fn")
  echo "  $line"
  ms=$(awk '{ print $7 }' <<<"$line")
  speed=$(awk '{ print $9 }' <<<"$line")
  name=$([ "$fn" = - ] && echo "the most called function" || echo "$fn")
  verdicts+=("$(verdict "$speed" 300 min) extraction of $name: ${speed}x faster than from Sequitur (target >= 300)")
  verdicts+=("$(verdict "$ms" 10 max) extraction of $name: $ms ms (target < 10)")
done

if command -v gzip >/dev/null; then
  cat tools/lib/*/*.c tools/*.c format/*.c | head -c 2000000 >"$TMP/in.txt"
  valgrind --tool=memrec -q --memrec-out-file="$TMP/gzip.trace" gzip -c "$TMP/in.txt" >/dev/null
  out=$("$BIN/trace-twpp" -q -o "$TMP/gzip.twpp" "$TMP/gzip.trace")
  echo
  echo "gzip -c (2 MB of C): $(grep '^blocks' <<<"$out" | cut -d, -f1), control part $(grep '^uncompressed WPP [0-9]' <<<"$out" | sed 's/.*compaction/compaction/'), with TWPP+ against the trace with addresses $(grep '^uncompressed WPP with' <<<"$out" | sed 's/.*compaction/compaction/')"
  line=$("$BUILD/bench/bench_twpp" "$TMP/gzip.trace" "$TMP/gzip.twpp" -)
  echo "  the most called function: $line"
  speed=$(awk '{ print $9 }' <<<"$line")
  ms=$(awk '{ print $7 }' <<<"$line")
  verdicts+=("$(verdict "$speed" 300 min) extraction of gzip's most called function: ${speed}x faster than from Sequitur (target >= 300)")
  verdicts+=("$(verdict "$ms" 10 max) extraction of gzip's most called function: $ms ms (target < 10)")
fi

# ---- 4. speed and memory --------------------------------------------------------------
blocks=$("$BIN/trace-info" --json "$sten" | jq .blocks)
accesses=$("$BIN/trace-info" --json "$sten" | jq .accesses)
loads=$("$BIN/trace-info" --json "$sten" | jq '.loads + .modifies')
t_control=$(hyperfine_median "'$BIN/trace-twpp' -q --no-dependences -o '$TMP/c.twpp' '$sten' >/dev/null")
c_control=$(cpu)
t_build=$(hyperfine_median "'$BIN/trace-twpp' -q -o '$TMP/s.twpp' '$sten' >/dev/null")
c_build=$(cpu)
t_expand=$(hyperfine_median "'$BIN/trace-twpp' --expand '$TMP/s.twpp' >/dev/null")
rate=$(awk -v n="$blocks" -v t="$t_control" 'BEGIN { printf "%.2f", n / t / 1e6 }')
lrate=$(awk -v n="$loads" -v t="$t_build" 'BEGIN { printf "%.2f", n / t / 1e6 }')
crate=$(awk -v n="$blocks" -v t="$c_control" 'BEGIN { printf "%.2f", n / t / 1e6 }')
clrate=$(awk -v n="$loads" -v t="$c_build" 'BEGIN { printf "%.2f", n / t / 1e6 }')
rss=$( { /usr/bin/time -f '%M' "$BIN/trace-twpp" -q -o "$TMP/s.twpp" "$sten" >/dev/null; } 2>&1 | tail -1)
per100m=$(awk -v r="$rss" -v a="$accesses" 'BEGIN { printf "%.0f", r / 1024 * 1e8 / a }')
"$BIN/trace-twpp" -q -o "$TMP/s.twpp" --db "$TMP/s.db" "$sten" >/dev/null
g=$(sqlite3 "$TMP/s.db" "SELECT point FROM twpp_load_points ORDER BY edges DESC LIMIT 1")
t_deps=$(hyperfine_median "'$BIN/trace-twpp' --dependences $g '$TMP/s.twpp' | head -c 1000000 >/dev/null")
t_deps_ms=$(awk -v t="$t_deps" 'BEGIN { printf "%.1f", t * 1e3 }')
echo
echo "stencil $stencil_args: $blocks block executions, $loads loads, $accesses accesses (median of $RUNS):"
printf '  control part  %8.3f s  %s M blocks/s (--no-dependences; CPU %.3f s: %s M/s)\n' \
  "$t_control" "$rate" "$c_control" "$crate"
printf '  with TWPP+    %8.3f s  %s M loads/s, peak %d MB (CPU %.3f s: %s M/s)\n' \
  "$t_build" "$lrate" "$((rss / 1024))" "$c_build" "$clrate"
printf '  expand        %8.3f s  (the whole block sequence back from the file)\n' "$t_expand"
printf '  dependences   %8.1f ms (A%s, the load point with the most edges: %s, first MB of output)\n' \
  "$t_deps_ms" "$g" "$(sqlite3 "$TMP/s.db" "SELECT edges || ' edges, ' || grammar_symbols || ' grammar symbols' FROM twpp_load_points WHERE point = $g ORDER BY run DESC LIMIT 1")"
verdicts+=("$(verdict "$rate" 5 min) trace-twpp on the stencil: $rate M block executions/s, wall clock (target >= 5; CPU time: $crate)")
verdicts+=("$(verdict "$lrate" 5 min) trace-twpp with TWPP+ on the stencil: $lrate M loads/s, wall clock (target >= 5; CPU time: $clrate)")
verdicts+=("$(verdict "$per100m" 1024 max) trace-twpp memory scaled to 100 M accesses: $per100m MB (target <= 1024)")

echo
printf '%s\n' "${verdicts[@]}"
