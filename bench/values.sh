#!/usr/bin/env bash
# bench/values.sh: trace-values against its target, at least 20 million
# accesses per second (CPU time, one core), on a synthetic pointer chase
# (trace-synth --pattern=chase: pointer values only), on samples/linked_list
# and samples/binary_tree recorded with --values=all, and on real programs
# recorded with --values=all (gzip -9 on a few MB of text, a python3
# script building a tree and a dict) when they are installed. Speeds are
# medians of RUNS runs; wall times are shown too (the machine is shared).
#   MEMREC_BUILD      build directory (default build)
#   BENCH_ACCESSES    accesses of the synthetic chase (default 20000000)
#   BENCH_LIST        nodes of the linked list (default 300000)
#   BENCH_TREE        keys of the tree (default 200000)
#   RUNS              runs per measurement (default 3)
set -euo pipefail
. "$(dirname "$0")/lib/bench.sh"
bench_init values
N=${BENCH_ACCESSES:-20000000}
LIST=${BENCH_LIST:-300000}
TREE=${BENCH_TREE:-200000}
need_built "$BIN/trace-synth" "$BIN/trace-values" "$BIN/trace-info" /usr/bin/time

# bench NAME TRACE: the median of RUNS runs of trace-values (the analysis
# and its report; as bench/rds.sh, without --db: writing the rows is
# SQLite's time, shown apart as db_s, one run); prints a row and appends
# "NAME|rate" to the rates
bench() {
  local name=$1 trace=$2 n cpu wall rate peak res dbcpu
  speed_of res "$trace" "$BIN/trace-values" -q
  read -r n cpu wall rate peak <<<"$res"
  rm -f "$TMP/v.db"
  measure res "$BIN/trace-values" -q --db "$TMP/v.db" "$trace"
  dbcpu=$(calc "${res%% *} - $cpu")
  printf '%-22s %12d %9.2f %9.2f %10.1f %9.1f %7.2f\n' "$name" "$n" "$cpu" "$wall" "$rate" \
    "$peak" "$dbcpu"
  echo "$name|$rate" >> "$TMP/rates"
}

printf '%-22s %12s %9s %9s %10s %9s %7s\n' trace accesses cpu_s wall_s "M acc/s" peak_MiB db_s
"$BIN/trace-synth" --pattern=chase --accesses=$N -o "$TMP/chase.mr"
bench "chase $N" "$TMP/chase.mr"
if command -v valgrind >/dev/null && ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1; then
  rec() {  # name command...: records with every value, or says why not
    local name=$1; shift
    command -v "$1" >/dev/null || { echo "skip $name: $1 not installed"; return 1; }
    valgrind --tool=memrec -q --values=all --memrec-out-file="$TMP/$name.mr" "$@" \
      >/dev/null 2>"$TMP/rec.err" || { echo "skip $name: recording failed"; return 1; }
  }
  [ -x "$BUILD/samples/linked_list" ] && rec list "$BUILD/samples/linked_list" "$LIST" 1 &&
    bench "linked_list $LIST" "$TMP/list.mr"
  [ -x "$BUILD/samples/binary_tree" ] && rec tree "$BUILD/samples/binary_tree" "$TREE" &&
    bench "binary_tree $TREE" "$TMP/tree.mr"
  head -c 2000000 /dev/urandom | base64 > "$TMP/in.txt"
  rec gzip gzip -9 -c "$TMP/in.txt" && bench "gzip -9" "$TMP/gzip.mr"
  py='class N:
    __slots__ = ("k", "l", "r")
    def __init__(s, k): s.k = k; s.l = None; s.r = None
def ins(t, k):
    if t is None: return N(k)
    if k < t.k: t.l = ins(t.l, k)
    else: t.r = ins(t.r, k)
    return t
import random
random.seed(1)
t = None
for i in range(3000): t = ins(t, random.randrange(100000))
d = {str(i): [i] * 3 for i in range(5000)}
print(sum(len(v) for v in d.values()))'
  PYTHONMALLOC=malloc rec python3 /usr/bin/python3 -c "$py" && bench "python3" "$TMP/python3.mr"
fi

echo
while IFS='|' read -r name rate; do
  printf 'speed, %-22s %6.1f M accesses/s (target >= 20)  ratio %.2f  %s\n' "$name" "$rate" \
    "$(calc "$rate / 20")" "$(verdict "$rate" 20 min)"
done < "$TMP/rates"
# FAIL is reported, not an error: the other benchmarks still run.
exit 0
