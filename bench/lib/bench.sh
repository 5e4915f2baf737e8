# bench/lib/bench.sh: what the benchmark scripts share. Sourced, not run
# (`make bench` runs bench/*.sh, not this folder):
#   . "$(dirname "$0")/lib/bench.sh"; bench_init NAME
# Every figure a benchmark prints is a median of RUNS runs measured in
# the same run of the script; targets print PASS or FAIL and only a
# breakage exits non-zero.

# bench_init NAME: the repository as the working directory; BUILD (absolute:
# MEMREC_BUILD or build), BIN, VALGRIND_LIB (memrec's tool), RUNS (default
# 3, or BENCH_RUNS), TMP (a fresh directory removed at exit); NAME starts
# every error message.
bench_init() {
  BENCH_NAME=$1
  cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
  BUILD=${MEMREC_BUILD:-build}
  case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD;; esac
  BIN=$BUILD/bin
  RUNS=${RUNS:-${BENCH_RUNS:-3}}
  export VALGRIND_LIB=$BUILD/valgrind
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/memrec-bench-$BENCH_NAME.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
}

die() { echo "$BENCH_NAME bench: $*" >&2; exit 1; }

# need_built FILE...: each must be an executable of the build.
need_built() {
  local f
  for f in "$@"; do [ -x "$f" ] || die "$f: not built (make all)"; done
}

# need_commands CMD...: each must be on the PATH (make deps installs them).
need_commands() {
  local c
  for c in "$@"; do command -v "$c" >/dev/null || die "$c: command not found (make deps installs it)"; done
}

calc() { awk "BEGIN { print ($1) }"; }          # arithmetic without bc
ratio() { awk "BEGIN { printf \"%.2f\", ($1) / ($2) }"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }  # of stdin's lines

# check EXPR: PASS when the awk expression holds, else FAIL.
check() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }

# verdict VALUE TARGET min|max: PASS when VALUE is at least (min) or at
# most (max) TARGET.
verdict() { if [ "$3" = min ]; then check "$1 >= $2"; else check "$1 <= $2"; fi; }

# measure VAR COMMAND...: one run of COMMAND (its output dropped), VAR set
# to "cpu_seconds wall_seconds peak_kib": user + system of the command and
# its children from the shell's `times` (milliseconds; /usr/bin/time
# rounds to 10 ms), wall clock and peak resident set size from
# /usr/bin/time. A failing command stops the benchmark with its errors.
measure() {
  local var=$1 cpu e m; shift
  cpu=$( ( /usr/bin/time -f "%e %M" -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" || exit 1
           times ) | awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m");
                         sub("s", "", a[2]); t += a[1] * 60 + a[2] } print t }') &&
    [ -n "$cpu" ] || { cat "$TMP/err" >&2; die "failed: $*"; }
  read -r e m < "$TMP/time"
  printf -v "$var" '%s %s %s' "$cpu" "$e" "$m"
}

# hyperfine_median COMMAND_LINE: median wall seconds of a shell command
# line (quote its words) over RUNS runs after one warm-up.
hyperfine_median() {
  hyperfine --style none --warmup 1 --runs "$RUNS" --export-json "$TMP/h.json" "$1" >/dev/null 2>&1 ||
    die "failed: $1"
  jq -r '.results[0].median' "$TMP/h.json"
}

# accesses TRACE: the trace's memory accesses, as trace-info counts them.
accesses() { "$BIN/trace-info" "$1" | awk '$1 == "accesses:" { print $2 }'; }

# speed_of VAR TRACE COMMAND...: COMMAND TRACE run RUNS times; VAR set to
# "accesses cpu_seconds wall_seconds rate peak_mib": the trace's accesses,
# the median CPU and wall seconds, millions of accesses per CPU second at
# that median, and the largest peak resident set size.
speed_of() {
  local var=$1 trace=$2 n r _run c w p cpus=() walls=() peak=0 cpu wall; shift 2
  n=$(accesses "$trace")
  for ((r = 0; r < RUNS; r++)); do
    measure _run "$@" "$trace"
    read -r c w p <<<"$_run"
    cpus+=("$c"); walls+=("$w"); [ "$p" -gt "$peak" ] && peak=$p
  done
  cpu=$(printf '%s\n' "${cpus[@]}" | median)
  wall=$(printf '%s\n' "${walls[@]}" | median)
  printf -v "$var" '%s %s %s %s %s' "$n" "$cpu" "$wall" \
    "$(calc "$n / $cpu / 1000000")" "$(calc "$peak / 1024")"
}

# sqlite_rows_script ROWS FILE: the sqlite3 workload of the real-program
# benchmarks into FILE: ROWS rows in memory, an index, two queries.
sqlite_rows_script() {
  cat > "$2" <<EOF
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $1)
INSERT INTO t SELECT i, (i * 7919) % 100003, printf('row%08d', (i * 31) % 99991) FROM c;
CREATE INDEX tk ON t(k);
SELECT count(*), sum(k), max(s) FROM t WHERE k % 3 = 0;
SELECT s FROM t ORDER BY s LIMIT 1;
EOF
}
