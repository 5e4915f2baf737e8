#!/usr/bin/env bash
# The recorder's speed, trace size and memory against its targets (issue 3):
#   memrec wall time        <= 2.0x valgrind --tool=none    (stencil, matrix)
#   trace bytes per access  <= 0.25 on the stencil, <= 2 on pointer chasing
#   recording memory        <= 64 MiB above --tool=none (max RSS of the
#                              Valgrind process plus the encoder's)
# Also printed: native time, Lackey --trace-mem=yes (run on a smaller input
# and scaled by the instructions executed, output to /dev/null), and the
# ratios memrec/none and lackey/memrec. Times are medians of RUNS runs
# (hyperfine). Every target prints PASS or FAIL; the script fails only when
# a run itself fails.
set -u
. "$(dirname "$0")/lib/bench.sh"
bench_init recorder
SAMPLES=$BUILD/samples
need_built "$VALGRIND_LIB/memrec-amd64-linux" "$BIN/trace-info" "$SAMPLES/stencil"
need_commands hyperfine jq

# usage COMMAND...: "MAXRSS-KIB CPU-SECONDS ENCODER-CPU-SECONDS": max RSS of the
# command plus its encoder's (KiB), the CPU time of the command with all it
# reaped (the encoder included: its keeper is reaped by the tool), and the
# encoder's share. The encoder reports its own max RSS and CPU (user,
# system) when MEMREC_ENCODER_RUSAGE is set: `time` takes the largest RSS
# of a process tree, not the sum.
usage() {
  rm -f "$TMP/enc.rss"
  MEMREC_ENCODER_RUSAGE=$TMP/enc.rss /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$@" >/dev/null 2>&1 ||
    die "failed: $*"
  local enc="0 0 0"
  [ -s "$TMP/enc.rss" ] && enc=$(cat "$TMP/enc.rss")
  echo "$(cat "$TMP/rss") $enc" | awk '{ printf "%d %.2f %.2f\n", $1 + $4, $2 + $3, $5 + $6 }'
}
info() { "$BIN/trace-info" --json "$1" | jq -r ".$2"; }

# bench NAME "ARGS" "SMALL-ARGS": one loop-heavy sample.
bench() {
  local name=$1 args=$2 small=$3 prog=$SAMPLES/$1 out=$TMP/$1.trace
  local t_native t_none t_memrec t_lk_small i_full i_small t_lackey bpa
  t_native=$(hyperfine_median "$prog $args")
  t_none=$(hyperfine_median "valgrind --tool=none -q $prog $args")
  t_memrec=$(hyperfine_median "valgrind --tool=memrec -q --memrec-out-file=$out $prog $args")
  valgrind --tool=memrec -q --memrec-out-file="$out" "$prog" $args >/dev/null 2>&1 || die "$name: recording failed"
  i_full=$(info "$out" instructions)
  bpa=$(info "$out" bytes_per_access)
  valgrind --tool=memrec -q --memrec-out-file="$TMP/small.trace" "$prog" $small >/dev/null 2>&1
  i_small=$(info "$TMP/small.trace" instructions)
  t_lk_small=$(hyperfine_median "valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null $prog $small")
  t_lackey=$(awk "BEGIN { print $t_lk_small * $i_full / $i_small }")
  printf '%-8s native %.3fs  none %.2fs  memrec %.2fs  lackey --trace-mem (scaled from %s) %.0fs\n' \
    "$name" "$t_native" "$t_none" "$t_memrec" "$small" "$t_lackey"
  printf '%-8s memrec/native %.1fx  memrec/none %sx  lackey/memrec %sx  %s bytes/access (%s accesses)\n' \
    "$name" "$(awk "BEGIN { print $t_memrec / $t_native }")" "$(ratio "$t_memrec" "$t_none")" \
    "$(ratio "$t_lackey" "$t_memrec")" "$bpa" "$(info "$out" accesses)"
  # CPU seconds tell what the wall clock hides on a busy machine: with the
  # encoder on a free second core, the wall time is the larger of the two.
  local none_cpu tool_cpu enc_cpu
  read -r _ none_cpu _ < <(usage valgrind --tool=none -q "$prog" $args)
  read -r _ tool_cpu enc_cpu < <(usage valgrind --tool=memrec -q --memrec-out-file="$out" "$prog" $args)
  printf '%-8s CPU seconds: none %s, memrec %s (of which the encoder %s)\n' "$name" "$none_cpu" "$tool_cpu" "$enc_cpu"
  echo "TARGET $name memrec/none <= 2.0: $(ratio "$t_memrec" "$t_none") $(check "$t_memrec <= 2.0 * $t_none")"
  eval "BPA_$name=$bpa"
}

echo "recorder benchmark: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs each"
bench stencil "65 80" "17 4"
bench matrix "2048 16" "256 1"   # 0.55 s natively: the loops, not start-up, dominate
echo "TARGET stencil bytes/access <= 0.25: $BPA_stencil $(check "$BPA_stencil <= 0.25")"

# Pointer chasing: a million list nodes linked in shuffled order.
valgrind --tool=memrec -q --memrec-out-file="$TMP/list.trace" "$SAMPLES/linked_list" 1000000 1 >/dev/null 2>&1 ||
  die "linked_list: recording failed"
bpa=$(info "$TMP/list.trace" bytes_per_access)
echo "TARGET linked_list (1e6 shuffled nodes) bytes/access <= 2: $bpa $(check "$bpa <= 2")"

# Memory: the stencil under --tool=none against memrec (+ its encoder).
read -r rss_none _ < <(usage valgrind --tool=none -q "$SAMPLES/stencil")
read -r rss_memrec _ < <(usage valgrind --tool=memrec -q --memrec-out-file="$TMP/rss.trace" "$SAMPLES/stencil")
extra=$(( (rss_memrec - rss_none) / 1024 ))
echo "memory   none $((rss_none / 1024)) MiB, memrec + encoder $((rss_memrec / 1024)) MiB (the 8 MiB ring they share counts twice)"
echo "TARGET recording memory <= 64 MiB above none: +$extra MiB $(check "$extra <= 64")"
