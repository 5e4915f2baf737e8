#!/usr/bin/env bash
# trace-twpp on recorded samples: the expansion read from the .twpp file
# alone equals trace-wpp --expand (one thread and several), --function
# prints a function's traces, dictionaries and paths, --dependences a load
# point's TWPP+ edges (by number and by function:line, as many as the
# database counts), and bad input (an unknown function or load point, a
# truncated or corrupt .twpp file, corrupt dependence grammars, a query on
# stdin) gets one line and status 1 (2 for usage).
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-twpp trace-wpp; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"
TW=$BIN/trace-twpp

for s in linked_list binary_tree struct_array prodcons; do
  [ -x "$SAMPLES/$s" ] || { fail "$SAMPLES/$s not built"; continue; }
  t=$TMP/$s.trace
  record "$t" "$SAMPLES/$s" >/dev/null
  "$TW" -q -o "$TMP/$s.twpp" "$t" >"$TMP/$s.summary"
  check_eq "$s: built" 0 $?
  "$TW" --expand "$TMP/$s.twpp" >"$TMP/$s.tx"
  "$BIN/trace-wpp" -q --expand "$t" >"$TMP/$s.wx"
  check "$s: --expand from the file equals trace-wpp --expand ($(wc -l <"$TMP/$s.wx") blocks)" \
    cmp -s "$TMP/$s.tx" "$TMP/$s.wx"
  n=$(awk '/^blocks/ { sub(/,/, "", $2); print $2 }' "$TMP/$s.summary")
  check_eq "$s: blocks in the summary" "$(wc -l <"$TMP/$s.wx")" "$n"
done

t=$TMP/linked_list.twpp
"$TW" --function main "$t" >"$TMP/main.out"
check "--function main: header line with one call" \
  grep -qE '^function main \(entry 0x[0-9a-f]+\): 1 calls, 1 unique path traces' "$TMP/main.out"
check "--function main: its trace in TWPP form (first DBB at timestamp 1)" \
  grep -qE '^  [0-9]+ timestamps: b[0-9]+ -> \{-1\}' "$TMP/main.out"
check "--function main: blocks as function:line" grep -qE '^    b[0-9]+\(0x[0-9a-f]+ main:[0-9]+\)$' "$TMP/main.out"

# --db: one row per function, one per part; the .twpp total matches the file
"$TW" -q -o "$TMP/db.twpp" --db "$TMP/t.db" "$TMP/linked_list.trace" >/dev/null
check_eq "--db: total bytes equal the file's size" "$(stat -c %s "$TMP/db.twpp")" \
  "$(sqlite3 "$TMP/t.db" "SELECT bytes FROM twpp_sizes WHERE part = 'total'")"
check_eq "--db: main has one call and one unique trace" "1 1" \
  "$(sqlite3 "$TMP/t.db" "SELECT calls || ' ' || unique_traces FROM twpp_functions WHERE function = 'main'")"
check_eq "--db: the calls of all functions equal the DCG's nodes" \
  "$(sqlite3 "$TMP/t.db" "SELECT sum(calls) FROM twpp_functions")" \
  "$(awk '/^blocks/ { sub(/,/, "", $6); print $6 }' "$TMP/linked_list.summary")"
"$BIN/trace-db" "$TMP/t.db" query twpp_sizes >"$TMP/q"
check "--db: the twpp_sizes query lists the steps" grep -qE '^2 +unique traces ' "$TMP/q"

# bad input: one line, status 1
"$TW" --function no_such_function "$t" >/dev/null 2>"$TMP/err"
check_eq "unknown function: status 1" 1 $?
check_eq "unknown function: one line" "trace-twpp: $t: no function 'no_such_function'" "$(cat "$TMP/err")"
head -c $(( $(stat -c %s "$t") - 10 )) "$t" >"$TMP/cut.twpp"
"$TW" --expand "$TMP/cut.twpp" >/dev/null 2>"$TMP/err"
check_eq "truncated .twpp: status 1" 1 $?
check "truncated .twpp: one line naming it" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-twpp: $TMP/cut.twpp: truncated: ' '$TMP/err'"
head -c 100 "$t" >"$TMP/short.twpp"
"$TW" --function main "$TMP/short.twpp" >/dev/null 2>"$TMP/err"
check_eq "a .twpp cut inside its function table: status 1" 1 $?
check "a .twpp cut inside its function table: one line" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-twpp: $TMP/short.twpp: truncated' '$TMP/err'"
# --dependences: the load point with the most edges, by number and by function:line
db=$TMP/db.twpp
read -r g fl edges <<<"$(sqlite3 -separator ' ' "$TMP/t.db" "SELECT point, function || ':' || line, edges
  FROM twpp_load_points WHERE edges > 0 AND line > 0 ORDER BY edges DESC, point LIMIT 1")"
"$TW" --dependences "$g" "$db" >"$TMP/dep.out"
check_eq "--dependences $g: status 0" 0 $?
check "--dependences $g: its header line" grep -qE "^load point A$g [^ ]+:[0-9]+ \(0x" "$TMP/dep.out"
check_eq "--dependences $g: one line per edge the database counts" "$edges" \
  "$(grep -cE '^  \[<A[0-9]+,[0-9]+,[0-9]+>, <A[0-9]+,[0-9]+,[0-9]+>, [0-9]+\]  A[0-9]+ ' "$TMP/dep.out")"
"$TW" --dependences "$fl" "$db" >"$TMP/dep2.out"
check "--dependences $fl: includes A$g" grep -q "^load point A$g " "$TMP/dep2.out"
"$BIN/trace-db" "$TMP/t.db" query twpp_plus_sizes >"$TMP/q2"
check "--db: twpp_plus_sizes compares TWPP+ with the trace with addresses" \
  grep -qE '^twpp\+ \(control \+ memory\) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+$' "$TMP/q2"
check_eq "--db: twpp_dependences' edges equal the load points' sum" \
  "$(sqlite3 "$TMP/t.db" "SELECT sum(edges) FROM twpp_load_points")" \
  "$(sqlite3 "$TMP/t.db" "SELECT edges FROM twpp_dependences")"
"$TW" -q --no-dependences -o "$TMP/c.twpp" "$TMP/linked_list.trace" >/dev/null
"$TW" --expand "$TMP/c.twpp" | cmp -s - "$TMP/linked_list.wx"
check_eq "--no-dependences: the same expansion" 0 $?
"$TW" --dependences 1 "$TMP/c.twpp" >/dev/null 2>"$TMP/err"
check_eq "--no-dependences: no load points in the file" "trace-twpp: $TMP/c.twpp: no load point '1'" "$(cat "$TMP/err")"
"$TW" --all-edges --no-dependences "$TMP/linked_list.trace" >/dev/null 2>&1
check_eq "--all-edges with --no-dependences: status 2" 2 $?
"$TW" --dependences nope:1 "$db" >/dev/null 2>"$TMP/err"
check_eq "unknown load point: status 1" 1 $?
check_eq "unknown load point: one line" "trace-twpp: $db: no load point 'nope:1'" "$(cat "$TMP/err")"
# the header's u64 at byte 96 is the offset of TWPP+'s dictionary, after the last function block
points=$(od -An -t u8 -j 96 -N 8 "$db" | tr -d ' ')
last=$(sqlite3 "$TMP/t.db" "SELECT max(point) FROM twpp_load_points WHERE edges > 0")
size=$(stat -c %s "$db")
cp "$db" "$TMP/badg.twpp"
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$TMP/badg.twpp" bs=1 seek=$(( size - 8 )) conv=notrunc 2>/dev/null
"$TW" --dependences "$last" "$TMP/badg.twpp" >/dev/null 2>"$TMP/err"
check_eq "corrupt dependence grammars: status 1" 1 $?
check "corrupt dependence grammars: one line" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-twpp: $TMP/badg.twpp: corrupt dependence grammars of A$last' '$TMP/err'"
head -c $(( size - 3 )) "$db" >"$TMP/cutg.twpp"
"$TW" --dependences "$g" "$TMP/cutg.twpp" >/dev/null 2>"$TMP/err"
check_eq "a .twpp cut in its dependence grammars: status 1" 1 $?
check "a .twpp cut in its dependence grammars: one line" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-twpp: $TMP/cutg.twpp: truncated' '$TMP/err'"

cp "$t" "$TMP/bad.twpp"
points=$(od -An -t u8 -j 96 -N 8 "$t" | tr -d ' ')
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$TMP/bad.twpp" bs=1 seek=$(( points - 8 )) conv=notrunc 2>/dev/null
"$TW" --expand "$TMP/bad.twpp" >/dev/null 2>"$TMP/err"
check_eq "a corrupt last block: --expand status 1" 1 $?
check "a corrupt last block: one line" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-twpp: $TMP/bad.twpp: corrupt block of function ' '$TMP/err'"
# the most called function's block is in the first chunk, far from the last
top=$(sqlite3 "$TMP/t.db" "SELECT function FROM twpp_functions ORDER BY calls DESC, entry LIMIT 1")
"$TW" --function "$top" "$t" >"$TMP/top.out"
"$TW" --function "$top" "$TMP/bad.twpp" >"$TMP/top.bad"
check "a corrupt block of a least-called function: --function $top reads only its own chunk" \
  cmp -s "$TMP/top.bad" "$TMP/top.out"
"$TW" --expand "$SAMPLES/linked_list" >/dev/null 2>"$TMP/err"
check_eq "not a .twpp file" "trace-twpp: $SAMPLES/linked_list: not a .twpp file" "$(cat "$TMP/err")"
"$TW" --expand </dev/null >/dev/null 2>"$TMP/err"
check_eq "a query on stdin: status 2" 2 $?
"$TW" --expand --function main "$t" >/dev/null 2>"$TMP/err"
check_eq "two queries: status 2" 2 $?
echo "1..$_n"
