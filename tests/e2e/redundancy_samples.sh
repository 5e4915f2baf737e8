#!/usr/bin/env bash
# trace-redundancy: the TWPP+ method (from a .twpp file) agrees exactly
# with the direct pass over the trace on recorded samples (one thread and
# several) and synthetic traces, for a file built with every edge kept;
# with the recoverable edges dropped, store counts stay exact, the
# recovery finds every dropped edge on one thread, and redundant loads
# differ by no more than the recoveries the file leaves ambiguous (none:
# exact). Also --db with Figures 5.4/5.5's queries, and bad input.
source "$(dirname "$0")/lib.sh"

DATA=$(cd "$(dirname "$0")/../data" && pwd)
TW=$BIN/trace-twpp
R=$BIN/trace-redundancy

# The report without names (the two methods name an instruction by the
# trace's symbol and by the TWPP function of its call) and the TWPP+ line.
counts() { grep -v '^TWPP+' "$1" | sed -E 's/^(( +[0-9.]+){7})  .*@(0x[0-9a-f]+ \()/\1  \3/'; }
# Column $2 of every instruction line of report $1 (1: loads ... 6: redundant stores).
column() { counts "$1" | awk -v c="$2" 'NR > 3 { print $c }'; }
total_redundant_loads() { awk '/^loads:/ { print $7 }' "$1"; }

"$BIN/trace-synth" --pattern=chase --accesses=40000 -o "$TMP/chase.mrt"
"$BIN/trace-synth" --pattern=mixed --accesses=60000 -o "$TMP/mixed.mrt"
for t in "$DATA/linked_list.mrt" "$DATA/binary_tree.mrt" "$DATA/prodcons.mrt" "$TMP/chase.mrt" "$TMP/mixed.mrt"; do
  s=$(basename "$t" .mrt)
  "$R" -q --top=0 "$t" >"$TMP/$s.direct"
  check_eq "$s: direct pass status 0" 0 $?
  "$TW" -q --all-edges -o "$TMP/$s.all.twpp" "$t" >/dev/null
  "$R" --top=0 "$TMP/$s.all.twpp" >"$TMP/$s.all" 2>"$TMP/$s.err"
  check_eq "$s: TWPP+ (every edge kept) status 0, quiet" "0 " "$? $(cat "$TMP/$s.err")"
  check "$s: TWPP+ with every edge kept equals the direct pass ($(wc -l <"$TMP/$s.direct") lines)" \
    cmp -s <(counts "$TMP/$s.all") <(counts "$TMP/$s.direct")
  "$TW" -q -o "$TMP/$s.twpp" "$t" >/dev/null
  "$R" --top=0 "$TMP/$s.twpp" >"$TMP/$s.tw" 2>"$TMP/$s.err"
  if [ "$s" = prodcons ]; then      # threads: the replay counts calls thread by thread
    check "$s: a recovery that differs from the file's dropped edges is said" \
      grep -q "^trace-redundancy: $TMP/$s.twpp: warning: the recovery found other edges" "$TMP/$s.err"
    continue
  fi
  for c in 1 4 5 6; do
    check "$s: dropped edges recovered: column $c exact" \
      cmp -s <(column "$TMP/$s.tw" $c) <(column "$TMP/$s.direct" $c)
  done
  read -r recorded dropped recovered ambiguous < <(sed -nE \
    's/^TWPP\+: ([0-9]+) recorded edges, ([0-9]+) dropped, ([0-9]+) recovered .*\(([0-9]+) ambiguous\)$/\1 \2 \3 \4/p' "$TMP/$s.tw")
  d=$(( $(total_redundant_loads "$TMP/$s.tw") - $(total_redundant_loads "$TMP/$s.direct") ))
  check "$s: redundant loads within the $ambiguous ambiguous recoveries (off by $d)" \
    [ "${d#-}" -le "$ambiguous" ]
  if [ "$ambiguous" = 0 ]; then
    check "$s: no ambiguous recovery: equal to the direct pass" \
      cmp -s <(counts "$TMP/$s.tw") <(counts "$TMP/$s.direct")
  fi
  check_eq "$s: every dropped edge recovered" "$dropped" "$recovered"
done
check "linked_list: some edges dropped and recovered" \
  grep -qE '^TWPP\+: [0-9]+ recorded edges, [1-9][0-9]* dropped' "$TMP/linked_list.tw"
check "linked_list: some loads redundant, some stores redundant" \
  bash -c "awk '/^loads:/ { l = \$7 } /^stores:/ { s = \$7 } END { exit !(l > 0 && s > 0) }' '$TMP/linked_list.direct'"

# The default report: the 30 most redundant instructions, most first, and
# how many more; the same instructions as the whole report's top 30.
"$R" -q "$DATA/linked_list.mrt" >"$TMP/top"
n=$(awk 'NR > 3 && !/^\.\.\./' "$TMP/top" | wc -l)
check_eq "default report: 30 instructions" 30 "$n"
check_eq "default report: says how many more" \
  "... and $(( $(awk 'NR > 3' "$TMP/linked_list.direct" | wc -l) - 30 )) more instructions (--top=0 lists them all, by address)" \
  "$(tail -n 1 "$TMP/top")"
check "default report: the most redundant first" \
  bash -c "awk 'NR > 3 && !/^\.\.\./ { print \$2 + \$6 }' '$TMP/top' | sort -c -g -r"
check "default report: the whole report's 30 most redundant" \
  cmp -s <(awk 'NR > 3 && !/^\.\.\./ { print $2 + $6 }' "$TMP/top") \
         <(awk 'NR > 3 { print $2 + $6 }' "$TMP/linked_list.direct" | sort -g -r | head -n 30)

# --db: both methods' rows; Figure 5.4 and 5.5's classes cover every instruction
db=$TMP/r.db
"$R" -q --db "$db" "$DATA/linked_list.mrt" >/dev/null
"$R" -q --db "$db" "$TMP/linked_list.all.twpp" >/dev/null
check_eq "--db: the direct pass and TWPP+ store the same total" \
  "$(sqlite3 "$db" "SELECT sum(redundant_loads) || ' ' || sum(redundant_stores) FROM redundancy WHERE method = 'direct'")" \
  "$(sqlite3 "$db" "SELECT sum(redundant_loads) || ' ' || sum(redundant_stores) FROM redundancy WHERE method = 'twpp'")"
"$BIN/trace-db" "$db" query redundancy_loads --tsv >"$TMP/q"
check_eq "redundancy_loads: the classes' instructions sum to the load instructions" \
  "$(sqlite3 "$db" "SELECT count(*) FROM redundancy WHERE method = 'twpp' AND loads > 0")" \
  "$(awk -F'\t' 'NR > 1 { n += $2 } END { print n }' "$TMP/q")"
check "redundancy_loads: a 100% class" grep -q '^100%' "$TMP/q"
"$BIN/trace-db" "$db" query redundancy_stores --tsv >"$TMP/q"
check "redundancy_stores: a 0% class" grep -q '^0%' "$TMP/q"
"$BIN/trace-db" "$db" query redundancy_top >"$TMP/q"
check "redundancy_top: names function:line" grep -qE '^[A-Za-z_].*:[0-9]+ +0x' "$TMP/q"

# bad input: one line, status 1 (2 for usage)
"$R" "$TMP/none.twpp" >/dev/null 2>"$TMP/err"
check_eq "missing file: status 1" 1 $?
check_eq "missing file: one line" 1 "$(wc -l <"$TMP/err")"
t=$TMP/linked_list.twpp
head -c $(( $(stat -c %s "$t") - 10 )) "$t" >"$TMP/cut.twpp"
"$R" "$TMP/cut.twpp" >/dev/null 2>"$TMP/err"
check_eq "truncated .twpp: status 1" 1 $?
check "truncated .twpp: one line naming it" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-redundancy: $TMP/cut.twpp: ' '$TMP/err'"
cp "$t" "$TMP/bad.twpp"
printf '\377\377\377\377\377\377\377\377' | dd of="$TMP/bad.twpp" bs=1 seek=$(( $(stat -c %s "$t") - 40 )) conv=notrunc 2>/dev/null
"$R" "$TMP/bad.twpp" >/dev/null 2>"$TMP/err"
check_eq "corrupt grammars: status 1" 1 $?
check_eq "corrupt grammars: one line" 1 "$(wc -l <"$TMP/err")"
"$R" --bogus "$t" >/dev/null 2>&1
check_eq "unknown option: status 2" 2 $?
echo "1..$_n"
