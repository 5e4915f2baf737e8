#!/usr/bin/env bash
# realprof.sh: the analyses on real programs (issue 14). Records a few
# programs from Debian packages with the current recorder (gzip -9 on a few
# MB, sqlite3, a python3 script, a perl script; the traces are kept in
# $MEMREC_REALPROF_DIR, default /tmp/memrec-realprof, and re-used), then runs
# trace-objects --db and trace-mempat on each and prints a table (bench.sh's
# speed_of): CPU seconds (user + system, median of $RUNS runs: the machine
# is shared, and elapsed time measures the neighbours), M accesses per CPU
# second, peak MiB (the largest maximum resident set); trace-info's CPU
# time is the decoding floor every analysis pays. PASS/FAIL lines check the targets: trace-objects
# 30 M accesses/s, trace-mempat 50 M/s, trace-objects within 1 GiB per 100 M
# accesses (scaled: peak MiB <= 1024 * accesses / 100 M, at least 256).
# A program that is not installed is skipped with a line saying so.
set -u
. "$(dirname "$0")/lib/bench.sh"
bench_init realprof
DIR=${MEMREC_REALPROF_DIR:-/tmp/memrec-realprof}
mkdir -p "$DIR"
fail=0

record() {  # name command... -> $DIR/name.mrt (once)
  local name=$1; shift
  [ -s "$DIR/$name.mrt" ] && return 0
  command -v "$1" >/dev/null || { echo "skip $name: $1 not installed"; return 1; }
  valgrind --tool=memrec -q --memrec-out-file="$DIR/$name.mrt" "$@" >/dev/null 2>"$DIR/$name.err" ||
    { echo "skip $name: recording failed ($(tail -n 1 "$DIR/$name.err"))"; rm -f "$DIR/$name.mrt"; return 1; }
}

# Inputs: a few MB of text, a small database script, python and perl work.
[ -s "$DIR/in.txt" ] || head -c 3000000 /dev/urandom | base64 > "$DIR/in.txt"
cat > "$DIR/sql.txt" <<'EOF'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT x, hex(randomblob(16)) FROM c;
CREATE INDEX tb ON t(b);
SELECT count(*), max(b) FROM t WHERE b > '8';
EOF
py='d = {}
for i in range(60000):
    d[str(i)] = [i] * 3
print(sum(len(v) for v in d.values()))'
pl='my %h; for my $i (1..60000) { $h{"k$i"} = [$i, $i * 2]; } my $s = 0; $s += $_->[1] for values %h; print "$s\n";'

names=()
record gzip gzip -9 -c "$DIR/in.txt" && names+=(gzip)
record sqlite3 sqlite3 :memory: ".read $DIR/sql.txt" && names+=(sqlite3)
# absolute paths: a pyenv or perlbrew shim would be recorded instead
record python3 /usr/bin/python3 -c "$py" && names+=(python3)
record perl /usr/bin/perl -e "$pl" && names+=(perl)

printf '%-9s %8s | %-8s | %-26s | %-26s\n' trace "M acc" "decode" "trace-objects --db" "trace-mempat"
printf '%-9s %8s | %8s | %8s %8s %8s | %8s %8s %8s\n' "" "" "cpu s" "cpu s" "M/s" MiB "cpu s" "M/s" MiB
for n in "${names[@]}"; do
  t=$DIR/$n.mrt
  rm -f "$DIR/$n.db"
  # bench.sh's speed_of: "accesses cpu wall rate peak_mib", medians of RUNS
  speed_of info "$t" "$BIN/trace-info"
  speed_of objs "$t" "$BIN/trace-objects" -q --db "$DIR/$n.db"
  speed_of pat "$t" "$BIN/trace-mempat" -q
  read -r acc is _ _ _ <<<"$info"
  read -r _ os _ orate om <<<"$objs"
  read -r _ ms _ mrate mm <<<"$pat"
  printf '%-9s %8.1f | %8.2f | %8.2f %8.1f %8.0f | %8.2f %8.1f %8.0f\n' "$n" "$(calc "$acc / 1e6")" \
    "$is" "$os" "$orate" "$om" "$ms" "$mrate" "$mm"
  bound=$(awk -v a="$acc" 'BEGIN { b = 1024 * a / 1e8; print int(b < 256 ? 256 : b) }')
  target() {  # EXPR TEXT: one PASS or FAIL line
    local v; v=$(check "$1"); echo "$v $2"; [ "$v" = PASS ] || fail=1
  }
  target "$orate >= 30" "$n: trace-objects $(printf %.1f "$orate") M accesses/s (target 30)"
  target "$mrate >= 50" "$n: trace-mempat $(printf %.1f "$mrate") M accesses/s (target 50)"
  target "$om <= $bound" "$n: trace-objects peak $(printf %.0f "$om") MiB (bound $bound MiB)"
done
# FAIL is reported, not an error: the other benchmarks still run.
[ "$fail" = 0 ] || echo "realprof: some targets fail (see FAIL above)"
exit 0
