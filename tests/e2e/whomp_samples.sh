#!/usr/bin/env bash
# trace-whomp on recorded samples: --expand rebuilds from the four OMSG
# grammars exactly the (instruction, group, object, offset) fields that
# trace-objrel prints for the kept accesses (heap and static; with --stack
# also stack), sizes and the ratio reach the database, and bad input gets
# a one-line error.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-whomp trace-objrel; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"
WHOMP=$BIN/trace-whomp

# objrel_fields TRACE KEEP_STACK: trace-objrel's instruction, pc, group,
# object and offset of the accesses WHOMP keeps.
objrel_fields() {
  "$BIN/trace-objrel" -q --no-header "$1" |
    awk -F'\t' -v stack="$2" '$7 != "unknown" && ($7 != "stack" || stack)' | cut -f3,4,7,8,9
}

declare -A args=([linked_list]="300 1" [binary_tree]="500" [struct_array]="2000 2")
for s in linked_list binary_tree struct_array; do
  [ -x "$SAMPLES/$s" ] || { fail "$SAMPLES/$s not built"; continue; }
  t=$TMP/$s.trace
  record "$t" "$SAMPLES/$s" ${args[$s]} >/dev/null
  "$WHOMP" -q --expand "$t" >"$TMP/$s.whomp"
  objrel_fields "$t" "" >"$TMP/$s.objrel"
  check "$s: --expand equals trace-objrel's fields ($(wc -l <"$TMP/$s.objrel") accesses)" \
    cmp -s "$TMP/$s.whomp" "$TMP/$s.objrel"
  "$WHOMP" -q --stack --expand "$t" >"$TMP/$s.whomp"
  objrel_fields "$t" 1 >"$TMP/$s.objrel"
  check "$s: --stack --expand equals trace-objrel's fields with stack ($(wc -l <"$TMP/$s.objrel"))" \
    cmp -s "$TMP/$s.whomp" "$TMP/$s.objrel"
  check "$s: --threads=1 prints the same sizes as two threads" \
    cmp -s <("$WHOMP" -q --threads=1 --vertical "$t") <("$WHOMP" -q --threads=2 --vertical "$t")
  kept=$("$WHOMP" -q "$t" | awk '/^accesses/ { print $2 }')
  check_eq "$s: accesses kept = lines" "$(objrel_fields "$t" "" | wc -l)" "$kept"
done

# The database: four OMSG grammars, the RASG, sizes adding up, vertical.
t=$TMP/linked_list.trace db=$TMP/whomp.db
"$WHOMP" -q --vertical --db="$db" "$t" >/dev/null
"$WHOMP" -q --vertical --db="$db" "$t" >"$TMP/db.out"
check "--db prints the report too" cmp -s "$TMP/db.out" <("$WHOMP" -q --vertical "$t")
q() { sqlite3 "$db" "$1"; }
check_eq "omsg and rasg grammars stored once" 5 \
  "$(q "SELECT count(*) FROM grammars WHERE analysis = 'whomp' AND stream NOT LIKE 'vertical %'")"
check_eq "omsg_bytes is the sum of the four" 1 \
  "$(q "SELECT omsg_bytes = instruction_bytes + group_bytes + object_bytes + offset_bytes
        FROM whomp_sizes")"
check_eq "sizes are the stored grammars' bytes" 1 \
  "$(q "SELECT s.omsg_bytes = (SELECT sum(bytes) FROM grammars WHERE stream LIKE 'omsg %')
          AND s.rasg_bytes = (SELECT bytes FROM grammars WHERE stream = 'rasg')
          AND s.vertical_bytes = (SELECT sum(bytes) FROM grammars WHERE stream LIKE 'vertical %')
        FROM whomp_sizes s")"
check_eq "every grammar is as long as the stream (vertical: three per access)" 1 \
  "$(q "SELECT (SELECT count(DISTINCT length) FROM grammars WHERE stream NOT LIKE 'vertical %') = 1
          AND (SELECT sum(length) FROM grammars WHERE stream LIKE 'vertical %')
              = 3 * (SELECT accesses FROM whomp_sizes)")"

# The picture, when gnuplot is there.
if [ -x "$BIN/trace-plot" ] && command -v gnuplot >/dev/null; then
  MEMREC_PLOTS=$ROOT/plots "$BIN/trace-plot" whomp --db "$db"  -o "$TMP/whomp.png" >/dev/null 2>"$TMP/err"
  check "trace-plot whomp: a PNG image" test "$(head -c 4 "$TMP/whomp.png" | od -An -tx1 | tr -d ' \n')" = 89504e47
fi

# Bad input.
echo "not a trace" >"$TMP/bad.trace"
rc=0; "$WHOMP" "$TMP/bad.trace" 2>"$TMP/err" >/dev/null || rc=$?
check "not a trace: exit 1, one line naming the file" \
  test "$rc" -eq 1 -a "$(wc -l <"$TMP/err")" -eq 1 -a -n "$(grep "trace-whomp: $TMP/bad.trace: " "$TMP/err")"
rc=0; "$WHOMP" --group-depth=0 "$t" 2>/dev/null || rc=$?
check_eq "--group-depth=0: exit 2" 2 "$rc"
size=$(stat -c %s "$t")
head -c $((size / 2)) "$t" >"$TMP/cut.trace"
rc=0; "$WHOMP" -q --expand "$TMP/cut.trace" >"$TMP/cut.out" 2>"$TMP/cut.err" || rc=$?
check_eq "truncated trace: exit 0" 0 "$rc"
check "truncated trace: a warning naming it" grep -q "trace-whomp: .*cut.trace" "$TMP/cut.err"
check "truncated trace: the accesses read" \
  cmp -s "$TMP/cut.out" <(objrel_fields "$TMP/cut.trace" "")

echo "1..$_n"
