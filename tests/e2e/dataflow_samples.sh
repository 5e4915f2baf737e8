#!/usr/bin/env bash
# trace-dataflow on a recorded sample's .twpp file: Table 5.1 (the total
# is the sum of the functions), a function's annotated CFG (main's loop
# as one series), queries <T, n>_d with known answers, a sweep of queries
# each checked against a forward walk over the expanded paths (--check
# fails the command when they differ), and bad input: one line, status 1
# (2 for usage).
source "$(dirname "$0")/lib.sh"

DATA=$(cd "$(dirname "$0")/../data" && pwd)
D=$BIN/trace-dataflow
t=$TMP/ll.twpp
"$BIN/trace-twpp" -q -o "$t" "$DATA/linked_list.mrt" >/dev/null

"$D" --top 100000 "$t" >"$TMP/table"
check_eq "Table 5.1: status 0" 0 $?
check "Table 5.1: the header" grep -q '^Table 5.1: ' "$TMP/table"
check_eq "Table 5.1: the total row is the sum of the functions' (static N, E, dynamic N, E)" \
  "$(awk '/\(all functions\)/ { print $1, $2, $3, $4 }' "$TMP/table")" \
  "$(awk 'NR > 4 && !/\(all functions\)/ { a += $1; b += $2; c += $3; d += $4 } END { print a, b, c, d }' "$TMP/table")"
check "Table 5.1: compacted vectors no larger than uncompacted" \
  bash -c "awk 'NR > 4 { v = \$5; u = \$6; gsub(/[()]/, \"\", u); if (v > u + 0) bad = 1 } END { exit bad }' '$TMP/table'"

"$D" --function main "$t" >"$TMP/main"
check "--function main: one trace of 2100 timestamps" grep -q '^trace 1: 2100 timestamps, 14 nodes, 18 edges$' "$TMP/main"
check "--function main: the list's loop as one series 2:600:2" grep -qE '^  DBB [0-9]+ main:46@0x[0-9a-f]+ T = 2:600:2  preds:' "$TMP/main"
check "--function main: its access points" grep -qE '^  A[0-9]+ main:[0-9]+@0x[0-9a-f]+ (load|store|modify) ' "$TMP/main"

# Known answers: before the block of __minimal_malloc:68, 0x4034188 was
# last written by line 47's store (A1076) in 18 of the 19 calls (the 19th
# ran it as A3318, in another block; the instruction covers both), by
# line 69's (A1078) never; line 47's load (A1075) never redundant there (its
# own block stores 0x4034188 after loading it).
q() { "$D" --function __minimal_malloc --at __minimal_malloc:68 --check --fact "$1" "$t"; }
q written-by:A1076@A1075 >"$TMP/q"
check "written-by: holds 18, fails 1" grep -q '^  holds 18 (94.7%), fails 1 (5.3%), undecided at the call.s entry 0 ' "$TMP/q"
check "written-by: the forward walk agrees" grep -q ': the same$' "$TMP/q"
q written-by:A1078@0x4034188 >"$TMP/q"
check "written-by another store: holds 0, fails 19" grep -q '^  holds 0 (0.0%), fails 19 ' "$TMP/q"
q written-by:0x400a70c@A1075 >"$TMP/q"
check "written-by the instruction (both its points): holds 19" grep -q '^  holds 19 (100.0%), fails 0 ' "$TMP/q"
q redundant:A1075 >"$TMP/q"
check "redundant: fails 19 (line 47 stores after it loads)" grep -q "^  holds 0 (0.0%), fails 19 " "$TMP/q"
"$D" --function main --at main:46 --check --fact redundant:0x109229 "$t" >"$TMP/q"
check "redundant in main's loop: 598 of 599" grep -q '^  holds 598 (99.8%), fails 0 (0.0%), undecided at the call.s entry 1 ' "$TMP/q"

# --calls: _dl_lookup_symbol_x's counter at 0x4033ab8 (line 762's modify)
# is written through calls from _dl_relocate_object: before its block
# 0x400df90, undecided in all 23 executions without following calls, the
# callee's write in all 23 with them, as the walk over the program counts.
r() { "$D" --function _dl_relocate_object --at 0x400df90 --fact written-by:0x40099e1@0x4033ab8 "$@" "$t"; }
r >"$TMP/q"
check "without --calls: undecided in 23" grep -q "^  holds 0 (0.0%), fails 0 (0.0%), undecided at the call.s entry 23 " "$TMP/q"
r --calls --check >"$TMP/q"
check "--calls: holds in 23" grep -q "^  holds 23 (100.0%), fails 0 (0.0%), undecided at the call.s entry 0 " "$TMP/q"
check "--calls: the walk over the program agrees" grep -q ': the same$' "$TMP/q"

# A sweep: every function among the most called with a single-address load,
# at each of its first blocks, the redundant fact of that load, checked
# (calls transparent, and followed).
n=0 bad=0
for f in $(awk 'NR > 4 && !/\(all functions\)/ { print $NF }' "$TMP/table" | head -40); do
  "$D" --function "$f" "$t" >"$TMP/f" 2>/dev/null || continue
  l=$(awk '/ load .* single address / { print $1; exit }' "$TMP/f")
  [ -n "$l" ] || continue
  for b in $(awk '/^  DBB / { split($3, a, "@"); print a[2] }' "$TMP/f" | sort -u | head -6); do
    for calls in "" --calls; do
      "$D" --function "$f" --at "$b" --fact "redundant:$l" --check $calls "$t" >/dev/null 2>"$TMP/err" || {
        bad=$((bad + 1)); echo "# $f $b $l $calls: $(cat "$TMP/err")"; }
      n=$((n + 1))
    done
  done
done
check "sweep: $n queries over the most called functions, propagation = the plain count in all" \
  [ "$n" -ge 40 -a "$bad" = 0 ]

# --db: Table 5.1 per function, the canned query's total as printed
"$D" --db "$TMP/d.db" "$t" >/dev/null
check_eq "--db: one row per function" "$(awk 'NR > 5' "$TMP/table" | wc -l)" \
  "$(sqlite3 "$TMP/d.db" "SELECT count(*) FROM dataflow_graphs")"
"$BIN/trace-db" "$TMP/d.db" query dataflow_table --tsv >"$TMP/q"
check_eq "dataflow_table: the total row as trace-dataflow prints it" \
  "$(awk '/\(all functions\)/ { print $1, $2, $3, $4 }' "$TMP/table")" \
  "$(awk -F'\t' '$1 == "(all functions)" { print $3, $4, $5, $6 }' "$TMP/q")"
"$D" --db "$TMP/d.db" --function main "$t" >/dev/null 2>&1
check_eq "--db with --function: status 2" 2 $?

# bad input
"$D" --function no_such "$t" >/dev/null 2>"$TMP/err"
check_eq "unknown function: status 1, one line" "1 trace-dataflow: $t: no function 'no_such'" "$? $(cat "$TMP/err")"
"$D" --function main --at 0x1 --fact redundant:0x109229 "$t" >/dev/null 2>"$TMP/err"
check_eq "unknown block: status 1, one line" "1 trace-dataflow: $t: no block '0x1'" "$? $(cat "$TMP/err")"
"$D" --function main --at main:46 --fact nonsense "$t" >/dev/null 2>"$TMP/err"
check_eq "unknown fact: status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
"$D" --function main --at main:46 "$t" >/dev/null 2>&1
check_eq "--at without --fact: status 2" 2 $?
"$D" "$TMP/missing.twpp" >/dev/null 2>"$TMP/err"
check_eq "missing file: status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
head -c $(( $(stat -c %s "$t") / 2 )) "$t" >"$TMP/cut.twpp"
"$D" "$TMP/cut.twpp" >/dev/null 2>"$TMP/err"
check_eq "truncated file: status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
"$D" "$DATA/linked_list.mrt" >/dev/null 2>"$TMP/err"
check_eq "a trace, not a .twpp file: status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
echo "1..$_n"
