#!/usr/bin/env bash
# trace-wpp on recorded samples: --expand gives back every block execution
# exactly as trace-dump prints them (one thread: the same order; several
# threads: thread by thread, each in its own order), the grammar and hot
# subpaths reach the database in one run, a truncated trace warns and
# still gives its paths, and bad input gets a one-line error.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-wpp trace-dump; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"
WPP=$BIN/trace-wpp

# exec_addresses TRACE [TID]: trace-dump's exec lines, block addresses only.
exec_addresses() {
  "$BIN/trace-dump" -q ${2:+--thread=$2} "$1" | awk '$3 == "exec" { print $4 }'
}

for s in linked_list binary_tree struct_array; do
  [ -x "$SAMPLES/$s" ] || { fail "$SAMPLES/$s not built"; continue; }
  t=$TMP/$s.trace
  record "$t" "$SAMPLES/$s" >/dev/null
  "$WPP" -q --expand "$t" >"$TMP/$s.wpp"
  exec_addresses "$t" >"$TMP/$s.dump"
  check "$s: --expand equals trace-dump's exec lines ($(wc -l <"$TMP/$s.dump") executions)" \
    cmp -s "$TMP/$s.wpp" "$TMP/$s.dump"
  n=$("$WPP" -q "$t" | awk '/^thread/ { print $3 }')
  check_eq "$s: executions reported" "$(wc -l <"$TMP/$s.dump")" "$n"
done

# Several threads: thread by thread, in order of first execution.
if [ -x "$SAMPLES/prodcons" ]; then
  t=$TMP/prodcons.trace
  record "$t" "$SAMPLES/prodcons" >/dev/null
  : >"$TMP/pc.dump"
  for tid in $("$BIN/trace-dump" -q "$t" | awk '$3 == "exec" && !seen[$2]++ { sub(/^t/, "", $2); print $2 }'); do
    exec_addresses "$t" "$tid" >>"$TMP/pc.dump"
  done
  "$WPP" -q --expand "$t" >"$TMP/pc.wpp"
  threads=$("$WPP" -q "$t" | grep -c '^thread')
  check "prodcons: $threads threads, --expand thread by thread equals trace-dump --thread" \
    cmp -s "$TMP/pc.wpp" "$TMP/pc.dump"
  check "prodcons: more than one thread" [ "$threads" -gt 1 ]
fi

# The database: a grammars row per thread, hot subpaths, re-running replaces.
t=$TMP/linked_list.trace db=$TMP/wpp.db
"$WPP" -q --db="$db" "$t" >/dev/null
"$WPP" -q --db="$db" "$t" >"$TMP/db.out"
check "--db prints the report too" cmp -s "$TMP/db.out" <("$WPP" -q "$t")
check_eq "--db twice: one grammar row" 1 "$(sqlite3 "$db" "SELECT count(*) FROM grammars WHERE analysis = 'wpp'")"
check_eq "blob size is bytes" 1 "$(sqlite3 "$db" "SELECT length(blob) = bytes FROM grammars")"
check_eq "grammar length is the executions" "$(wc -l <"$TMP/linked_list.dump")" \
  "$(sqlite3 "$db" "SELECT length FROM grammars")"
check_eq "ten hot subpaths, ranked by cost" 10 \
  "$(sqlite3 "$db" "SELECT count(*) FROM hot_subpaths h WHERE cost = length * executions
     AND cost >= (SELECT coalesce(max(cost), 0) FROM hot_subpaths g WHERE g.rank > h.rank)")"
# Which subpath ranks first depends on ld.so's and libc's work (blocks in
# code without line numbers are named by function or address), so look for
# the sample's own code among them.
paths=$(sqlite3 "$db" "SELECT path FROM hot_subpaths")
check "hot subpaths name the sample's blocks as function:line ($(head -c 120 <<<"$paths"))" \
  grep -qE '(^| )[A-Za-z_][A-Za-z0-9_]*:[0-9]+( > |$)' <<<"$paths"

# A truncated trace: a warning, exit 0, and the executions read.
size=$(stat -c %s "$t")
head -c $((size / 2)) "$t" >"$TMP/cut.trace"
rc=0; "$WPP" -q --expand "$TMP/cut.trace" >"$TMP/cut.out" 2>"$TMP/cut.err" || rc=$?
check_eq "truncated trace: exit 0" 0 "$rc"
check "truncated trace: a warning" grep -q "trace-wpp: .*cut.trace" "$TMP/cut.err"
check "truncated trace: a prefix of the executions" \
  cmp -s "$TMP/cut.out" <(head -n "$(wc -l <"$TMP/cut.out")" "$TMP/linked_list.dump")

# The picture, when gnuplot is there.
if [ -x "$BIN/trace-plot" ] && command -v gnuplot >/dev/null; then
  MEMREC_PLOTS=$ROOT/plots "$BIN/trace-plot" hotpaths --db "$db" --run=$(sqlite3 "$db" "SELECT max(run) FROM hot_subpaths") -o "$TMP/hotpaths.png" >/dev/null 2>"$TMP/err"
  check "trace-plot hotpaths: a PNG image" test "$(head -c 4 "$TMP/hotpaths.png" | od -An -tx1 | tr -d ' \n')" = 89504e47
fi

# Bad input.
echo "not a trace" >"$TMP/bad.trace"
rc=0; "$WPP" "$TMP/bad.trace" 2>"$TMP/err" >/dev/null || rc=$?
check "not a trace: exit 1, one line naming the file" \
  test "$rc" -eq 1 -a "$(wc -l <"$TMP/err")" -eq 1 -a -n "$(grep "trace-wpp: $TMP/bad.trace: " "$TMP/err")"
rc=0; "$WPP" --hot-length=0 "$t" 2>/dev/null || rc=$?
check_eq "--hot-length=0: exit 2" 2 "$rc"
mkdir "$TMP/dir.db"
rc=0; "$WPP" -q --db="$TMP/dir.db" "$t" 2>"$TMP/err" || rc=$?
check "a database that cannot be opened: exit 1 naming it" \
  test "$rc" -eq 1 -a -n "$(grep "trace-wpp: $TMP/dir.db: " "$TMP/err")"

echo "1..$_n"
