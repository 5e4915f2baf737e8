#!/usr/bin/env bash
# trace-objects --db says in one line where the profile went (issue 14):
# the database, the run id, the accesses (as many as trace-info counts), the
# objects and groups, the tables written and the peak memory; -q says
# nothing; a failure prints its error and no summary.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-objects trace-info trace-synth; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v jq >/dev/null || skip "jq not installed"
"$BIN/trace-synth" --pattern=mixed --accesses=40000 -o "$TMP/mixed.mr"
"$BIN/trace-synth" --pattern=chase --accesses=20000 -o "$TMP/chase.mr"
acc=$("$BIN/trace-info" --json "$TMP/mixed.mr" | jq .accesses)
db=$TMP/p.db

"$BIN/trace-objects" --db "$db" "$TMP/mixed.mr" >"$TMP/out" 2>"$TMP/err"
check_eq "exit status, nothing on stderr" "0 " "$? $(cat "$TMP/err")"
check_eq "one line" 1 "$(wc -l < "$TMP/out")"
re="^trace-objects: $db: run 1: $acc accesses, [0-9]+ objects in [0-9]+ groups by [0-9]+ instructions -> tables access_samples, instr_groups, object_offsets, objects, threads, alloc_sites; peak memory [0-9]+ MiB$"
check "it names the database, the run, the accesses, the tables, the peak memory" grep -qE "$re" "$TMP/out"
objects=$(sed -E 's/.* ([0-9]+) objects in ([0-9]+) groups.*/\1 \2/' "$TMP/out")
check_eq "its objects and groups are the database's" "$objects" \
  "$(sqlite3 "$db" "SELECT (SELECT count(*) FROM objects WHERE run = 1) || ' ' || (SELECT count(*) FROM alloc_sites WHERE run = 1)")"

"$BIN/trace-objects" --db "$db" "$TMP/chase.mr" >"$TMP/out2"
check "a second trace is run 2" grep -q ": run 2: " "$TMP/out2"
"$BIN/trace-objects" --db "$db" "$TMP/mixed.mr" >"$TMP/out3"
check "the first trace again replaces run 1" grep -q ": run 1: $acc accesses" "$TMP/out3"

"$BIN/trace-objects" -q --db "$db" "$TMP/mixed.mr" >"$TMP/quiet"
check_eq "-q: no summary" "0:0" "$?:$(wc -c < "$TMP/quiet")"

printf 'garbage' > "$TMP/bad.mr"
"$BIN/trace-objects" --db "$db" "$TMP/bad.mr" >"$TMP/badout" 2>"$TMP/err"
check_eq "bad trace: exit 1, one error line, no summary" "1:1:0" \
  "$?:$(wc -l < "$TMP/err"):$(wc -c < "$TMP/badout")"
"$BIN/trace-objects" --help | grep -q "one line says what" 
check_eq "--help says --db prints a summary" 0 $?
