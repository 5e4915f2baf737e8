#!/usr/bin/env bash
# trace-values on traces with known values:
#   - a synthetic chase trace (trace-synth): 500 nodes of 32 bytes from
#     0x20000010, 48 bytes apart, all in one 32 KB region: every next
#     pointer compresses against its field's address, the last node's nil
#     is a small value, the payload loads carry no value (the generator
#     records pointers only, as --values=pointers);
#   - samples/linked_list recorded with --values=all: the node's long key
#     (0..N-1) and int weight (1..7, a 4-byte word: the paper's 32-bit
#     test) are small values, its double score is incompressible but for
#     0.0, its next pointers are near their nodes: three fields selected;
#     recorded with the default --values=pointers: what could not be seen
#     is said in the report and stored in value_runs.note;
#   - the value_* tables, queries and plots; bad input.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-values trace-synth trace-db trace-plot; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
q() { sqlite3 "$db" "$1"; }

# ---- synthetic: the chase pattern ------------------------------------------------
t=$TMP/chase.trace db=$TMP/chase.db
"$BIN/trace-synth" --pattern=chase --accesses=4000 -o "$t"
"$BIN/trace-values" -q --db "$db" "$t" >"$TMP/out" 2>"$TMP/err"
check_eq "chase: exit status" 0 $?
check_eq "chase: nothing on stderr" "" "$(cat "$TMP/err")"
check_eq "chase: 4000 accesses, 2000 next pointers valued" "4000|2000|0" \
  "$(q "SELECT accesses, valued, outside FROM value_runs")"
# 500 nodes: each next stored once and loaded 3 times; the last one is nil
check_eq "chase: 1996 pointers, 4 nils (small), none incompressible" "4|1996|0" \
  "$(q "SELECT small, pointer, incompressible FROM value_runs")"
check_eq "chase: the next field selected, 500 * (8 - 2) bytes saved" "0|500|0|1|3000" \
  "$(q "SELECT offset, instances, spoiled, selected, saved_bytes FROM value_fields WHERE valued > 0")"
check_eq "chase: the payload field seen, without values" "8|2000|0|0" \
  "$(q "SELECT offset, accesses, valued, candidate FROM value_fields WHERE valued = 0")"
check_eq "chase: Figure 6.5 at 16 bits: all fit" "2000|2000" \
  "$(q "SELECT valued, fitting FROM value_widths WHERE width = 16")"
check_eq "chase: Figure 6.4 at 16 bits: a quarter of the 64-bit words" "25.0" \
  "$(q "SELECT printf('%.1f', 100.0 * bits / base_bits) FROM value_widths WHERE width = 16")"
check "chase: the report's note names --values=pointers" \
  grep -q "^note: 2000 of 4000 accesses (50.0%) carry no value.*--values=pointers" "$TMP/out"
check_eq "chase: the note stored" "pointers|1" \
  "$(q "SELECT values_mode, note LIKE '2000 of 4000 accesses%' FROM value_runs")"
# A payload of 4 bits: the pointers are 48 bytes apart, most no longer fit
cp "$db" "$TMP/chase4.db"
"$BIN/trace-values" -q --payload=4 --db "$TMP/chase4.db" "$t" >/dev/null
check_eq "chase --payload=4: the run's rows replaced, fewer pointers" "1|4|1" \
  "$(sqlite3 "$TMP/chase4.db" "SELECT count(*), payload, pointer < 100 FROM value_runs")"

# ---- recorded: linked_list with --values=all ---------------------------------------
if [ -x "$SAMPLES/linked_list" ] && command -v valgrind >/dev/null; then
  t=$TMP/ll.trace db=$TMP/ll.db
  N=500
  valgrind --tool=memrec -q --values=all --memrec-out-file="$t" "$SAMPLES/linked_list" $N >/dev/null
  "$BIN/trace-values" -q --db "$db" "$t" >"$TMP/out" 2>"$TMP/err"
  check_eq "linked_list: exit status" 0 $?
  # the nodes' group: N objects (the array of node pointers is one)
  site=$(q "SELECT s.id FROM value_fields f JOIN alloc_sites s ON s.id = f.site
            WHERE s.name LIKE 'main@linked_list.c:%' AND f.offset = 24 AND f.objects = $N")
  check "linked_list: the node group found" [ -n "$site" ]
  f() { q "SELECT $1 FROM value_fields WHERE site = '$site' AND offset = $2"; }
  check_eq "key (long 0..N-1): every value small, selected, N * 6 bytes" \
    "8|1|1|$((N * 6))" "$(f "size, valued = small AND valued = accesses, selected, saved_bytes" 0)"
  check_eq "key: range and instances" "0|$((N - 1))|$N|0" "$(f "min_value, max_value, instances, spoiled" 0)"
  check_eq "weight (int 1..7, a 32-bit word): small, selected, N * 2 bytes" \
    "4|1|1|7|1|$((N * 2))" "$(f "size, valued = small AND valued > 0, min_value, max_value, selected, saved_bytes" 8)"
  check_eq "score (double): incompressible but 0.0, not selected" "1|0" \
    "$(f "small + incompressible = valued AND small >= 1 AND incompressible > 0.99 * valued, selected" 16)"
  check_eq "next: pointers and one nil per walk, selected" "1|1" \
    "$(f "pointer + small = valued AND pointer > 0.99 * valued, selected" 24)"
  check_eq "next: every value a node of the group or nil" "1" \
    "$(f "min_value = 0 AND max_value > 0" 24)"
  check_eq "weight's most frequent values are exact counts" "0" \
    "$(q "SELECT sum(error) FROM value_top WHERE site = '$site' AND offset = 8")"
  check_eq "linked_list: every access valued but vectors" "1" \
    "$(q "SELECT valued + unvalued_wide = accesses AND values_mode = 'all' FROM value_runs")"
  check "linked_list: the report lists the node's selected fields" \
    grep -q "^  main@linked_list.c:[0-9]*+24 .* 8 *$N " "$TMP/out"
  # the default recording: 8-byte integer accesses only
  valgrind --tool=memrec -q --memrec-out-file="$TMP/llp.trace" "$SAMPLES/linked_list" $N >/dev/null
  "$BIN/trace-values" -q --db "$TMP/llp.db" "$TMP/llp.trace" >"$TMP/out" 2>"$TMP/err"
  check_eq "--values=pointers: exit status, quiet" "0 " "$? $(cat "$TMP/err")"
  check "--values=pointers: one note line" \
    bash -c "[ \$(grep -c '^note: ' '$TMP/out') = 1 ] && grep -q 'record with --values=all' '$TMP/out'"
  check_eq "--values=pointers: the weight and score fields have no value" "0|0" \
    "$(sqlite3 "$TMP/llp.db" "SELECT group_concat(f.valued, '|') FROM value_fields f JOIN alloc_sites s ON s.id = f.site WHERE s.name LIKE 'main@linked_list.c:%' AND f.offset IN (8, 16) AND f.objects = $N")"
  check_eq "--values=pointers: mode and note stored" "pointers|1" \
    "$(sqlite3 "$TMP/llp.db" "SELECT values_mode, note IS NOT NULL FROM value_runs")"
  # no values at all: everything counted, nothing classed, and said so
  valgrind --tool=memrec -q --values=none --memrec-out-file="$TMP/lln.trace" "$SAMPLES/linked_list" 100 >/dev/null
  "$BIN/trace-values" -q --db "$TMP/lln.db" "$TMP/lln.trace" >"$TMP/out" 2>"$TMP/err"
  check_eq "--values=none: exit status, quiet" "0 " "$? $(cat "$TMP/err")"
  check "--values=none: the note says so" \
    grep -q "^note: \([0-9]*\) of \1 accesses (100.0%) carry no value.*--values=none; record with --values=all" "$TMP/out"
  check_eq "--values=none: nothing classed, nothing selected" "none|0|0|0" \
    "$(sqlite3 "$TMP/lln.db" "SELECT values_mode, valued, small + pointer + incompressible, selected FROM value_runs")"
fi

# ---- queries and plots --------------------------------------------------------------
db=$TMP/chase.db
for name in values_runs values_fields values_selected values_instructions; do
  "$BIN/trace-db" "$db" query $name >"$TMP/q" 2>"$TMP/err"
  check_eq "query $name: status 0" 0 $?
  check "query $name: rows" [ "$(wc -l <"$TMP/q")" -ge 2 ]
done
if command -v gnuplot >/dev/null; then
  for plot in values_bits values_fitting; do
    "$BIN/trace-plot" $plot --db "$db" -o "$TMP/$plot.svg" >/dev/null 2>"$TMP/err"
    check_eq "plot $plot: status 0" 0 $?
    check "plot $plot: an svg" grep -q "<svg" "$TMP/$plot.svg"
  done
fi

# ---- bad input ---------------------------------------------------------------------
t=$TMP/chase.trace
for bad in "--payload=0|option '--payload': 0 is not in 1..63" \
           "--payload=64|option '--payload': 64 is not in 1..63" \
           "--select=0|option '--select': 0 is not in 1..100" \
           "--top-values=x|option '--top-values': 'x' is not a number"; do
  opt=${bad%%|*} msg=${bad#*|}
  "$BIN/trace-values" $opt "$t" >/dev/null 2>"$TMP/err"
  check_eq "$opt: status 2" 2 $?
  check "$opt: one line naming it" grep -qxF "trace-values: $msg (try 'trace-values --help')" "$TMP/err"
done
head -c 100 "$t" > "$TMP/bad.trace"; printf 'garbage%.0s' {1..200} >> "$TMP/bad.trace"
"$BIN/trace-values" --db "$TMP/bad.db" "$TMP/bad.trace" >/dev/null 2>"$TMP/err"
check_eq "corrupt trace: status 1" 1 $?
check_eq "corrupt trace: one line" 1 "$(wc -l <"$TMP/err")"
check "corrupt trace: no database left" [ ! -e "$TMP/bad.db" ]
"$BIN/trace-values" "$TMP/missing.trace" >/dev/null 2>"$TMP/err"
check_eq "missing trace: status 1" 1 $?
check "missing trace: one line naming the file" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-values: $TMP/missing.trace: ' '$TMP/err'"
