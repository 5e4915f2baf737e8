#!/usr/bin/env bash
# A profile database written by an older memrec opens with today's commands
# and is upgraded in place. tests/data/v1-profile.db is schema version 1,
# made by the commands of commit 8b733f7 (before runs.complete) with:
#   trace-synth --pattern=chase --accesses=3000 -o chase.mr
#   trace-synth --pattern=mixed --accesses=4000 -o mixed.mr
#   trace-objects -q --samples=64 --db v1-profile.db chase.mr
#   trace-objects -q --samples=64 --db v1-profile.db mixed.mr
#   trace-mempat -q --db v1-profile.db chase.mr
# in /tmp/memrec-v1-fixture (the runs' trace paths). Read-only commands
# leave it as it is; the first write upgrades it (user_version 6, the
# complete column, NULL for the old runs: not known), keeps every old row,
# and a re-run of an old trace replaces its rows without duplicating them.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-objects trace-mempat trace-db trace-synth; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
db=$TMP/p.db
q() { sqlite3 "$db" "$1"; }
cp "$ROOT/tests/data/v1-profile.db" "$db"
check_eq "the stored database is version 1" 1 "$(q 'PRAGMA user_version')"
check_eq "... without runs.complete" 0 \
  "$(q "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'complete'")"

# Every old row, as text: each table's rows in a fixed order (runs without
# the new column), to compare after the upgrade.
old_rows() {
  local t
  q "SELECT id, trace, command, pid, started, instructions, loads, stores FROM runs WHERE id IN (1, 2) ORDER BY id"
  for t in analyses instructions alloc_sites objects object_offsets instr_groups threads \
           access_samples mempat; do
    echo "== $t"
    # threads gained a column (instructions) with the upgrade: the old ones
    if [ $t = threads ]; then
      q "SELECT run, tid, parent, loads, stores, bytes, heap, static, stack, unknown, allocs,
                first_access, last_access FROM threads WHERE run IN (1, 2) ORDER BY 1, 2"
    else
      q "SELECT * FROM $t WHERE run IN (1, 2) ORDER BY 1, 2, 3, 4"
    fi
  done
}
old_rows > "$TMP/before"
check "the stored database holds objects and mempat rows" \
  bash -c "[ \$(sqlite3 '$db' 'SELECT count(*) FROM objects') -gt 100 ] &&
           [ \$(sqlite3 '$db' 'SELECT count(*) FROM mempat') -gt 0 ]"

# ---- read-only commands: the file stays version 1, byte for byte ------------------
cp "$db" "$TMP/orig.db"
"$BIN/trace-db" "$db" runs > "$TMP/runs" 2>"$TMP/err"
check_eq "trace-db runs on version 1: exit 0, no message" "0:" "$?:$(cat "$TMP/err")"
check_eq "trace-db runs: header and two runs" 3 "$(wc -l < "$TMP/runs")"
check_eq "trace-db runs: complete is '?' (not known) for the old runs" "complete ? ?" \
  "$("$BIN/trace-db" --tsv "$db" runs | awk -F'\t' '{ printf "%s%s", (NR > 1 ? " " : ""), $7 }')"
check "trace-db runs: shows both analyses of run 1" grep -q "mempat,objects" "$TMP/runs"
# Every canned query answers on the old file, or, when it needs tables that
# came after version 1, says so with the way out, which then works.
cp "$db" "$TMP/upgraded.db"
"$BIN/trace-db" "$TMP/upgraded.db" upgrade >/dev/null
for name in $("$BIN/trace-db" queries | awk '{ print $1 }'); do
  "$BIN/trace-db" "$db" query "$name" --run=1 > "$TMP/q" 2>"$TMP/err"
  rc=$?
  if [ $rc = 0 ]; then
    check_eq "query $name on version 1" "0:" "$rc:$(cat "$TMP/err")"
  else
    check "query $name on version 1 needs newer tables: one line naming the upgrade ($(cat "$TMP/err"))" \
      bash -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] && grep -q 'no such table.*trace-db FILE upgrade' '$TMP/err'"
    "$BIN/trace-db" "$TMP/upgraded.db" query "$name" --run=1 > /dev/null 2>"$TMP/err"
    check_eq "query $name after trace-db upgrade" "0:" "$?:$(cat "$TMP/err")"
  fi
done
check_eq "hot_groups on the old chase run: the list nodes first" "heap" \
  "$("$BIN/trace-db" "$db" query hot_groups --run=1 --tsv | awk -F'\t' 'NR == 2 { print $2 }')"
check "read-only commands left the file unchanged" cmp -s "$db" "$TMP/orig.db"

# ---- the first write upgrades in place -----------------------------------------------
"$BIN/trace-synth" --pattern=threads --accesses=3000 -o "$TMP/threads.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/threads.mr" 2>"$TMP/err"
check_eq "trace-objects --db adds a run: exit 0, no message" "0:" "$?:$(cat "$TMP/err")"
check_eq "upgraded: version 6" 6 "$(q 'PRAGMA user_version')"
check_eq "upgraded: runs.complete exists" 1 \
  "$(q "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'complete'")"
check_eq "upgraded: threads.instructions exists, filled for the new run only" "1|0|5" \
  "$(q "SELECT (SELECT count(*) FROM pragma_table_info('threads') WHERE name = 'instructions'),
               (SELECT count(instructions) FROM threads WHERE run IN (1, 2)),
               (SELECT count(instructions) FROM threads WHERE run = 3)")"
check_eq "three runs: the old ones not known, the new one complete" "-1 -1 1" \
  "$(q "SELECT group_concat(c, ' ') FROM (SELECT coalesce(complete, -1) AS c FROM runs ORDER BY id)")"
old_rows > "$TMP/after"
check "every old row intact" cmp -s "$TMP/before" "$TMP/after"
check_eq "the new run has its objects" 1 "$(q 'SELECT count(*) > 0 FROM objects WHERE run = 3')"
check_eq "integrity check" ok "$(q 'PRAGMA integrity_check')"
check_eq "trace-db runs after the upgrade: complete column" "complete ? ? yes" \
  "$("$BIN/trace-db" --tsv "$db" runs | awk -F'\t' '{ printf "%s%s", (NR > 1 ? " " : ""), $7 }')"

# ---- a re-run of an old trace replaces its rows, no duplicates --------------------------
# The same trace made again here (trace-synth writes the same bytes for the
# same options); run 1 is pointed at it, as if the trace had moved.
"$BIN/trace-synth" --pattern=chase --accesses=3000 -o "$TMP/chase.mr"
q "UPDATE runs SET trace = '$TMP/chase.mr' WHERE id = 1"
counts() {
  q "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM analyses),
            (SELECT count(*) FROM instructions WHERE run = 1), (SELECT count(*) FROM alloc_sites WHERE run = 1),
            (SELECT count(*) FROM objects WHERE run = 1), (SELECT count(*) FROM object_offsets WHERE run = 1),
            (SELECT count(*) FROM instr_groups WHERE run = 1), (SELECT count(*) FROM threads WHERE run = 1),
            (SELECT count(*) FROM access_samples WHERE run = 1), (SELECT count(*) FROM mempat WHERE run = 1)"
}
before=$(counts)
"$BIN/trace-objects" -q --samples=64 --db "$db" "$TMP/chase.mr"
check_eq "re-run of trace-objects on the old trace: exit 0" 0 $?
"$BIN/trace-mempat" -q --db "$db" "$TMP/chase.mr" > /dev/null
check_eq "re-run of trace-mempat on the old trace: exit 0" 0 $?
check_eq "re-runs: same runs, analyses and rows (nothing duplicated)" "$before" "$(counts)"
check_eq "the re-run run is now known complete" 1 "$(q 'SELECT complete FROM runs WHERE id = 1')"
check_eq "run 2's objects untouched by the re-runs" \
  "$(sqlite3 "$TMP/orig.db" 'SELECT * FROM objects WHERE run = 2 ORDER BY id' | md5sum)" \
  "$(q 'SELECT * FROM objects WHERE run = 2 ORDER BY id' | md5sum)"

# ---- trace-db upgrade, and once more ----------------------------------------------------
cp "$ROOT/tests/data/v1-profile.db" "$TMP/u.db"
check_eq "trace-db upgrade: says version 6" "$TMP/u.db: schema version 6" \
  "$("$BIN/trace-db" "$TMP/u.db" upgrade)"
check_eq "trace-db upgrade again: still fine" "0:6" \
  "$("$BIN/trace-db" "$TMP/u.db" upgrade >/dev/null; echo "$?:$(sqlite3 "$TMP/u.db" 'PRAGMA user_version')")"
check_eq "upgraded by trace-db: old runs kept" 2 "$(sqlite3 "$TMP/u.db" 'SELECT count(*) FROM runs')"

# ---- version 2: a file from before this version's tables -------------------------------
# Made here as a version-2 memrec left it: today's file without the tables
# version 3 added, user_version 2. The first write of an analysis whose
# tables are new must create them (the upgrade), not fail on them.
v2=$TMP/v2.db
"$BIN/trace-objects" -q --db "$v2" "$TMP/chase.mr"
for t in leap_lmad_levels twpp_dependences twpp_load_points redundancy dataflow_graphs \
         slice_criteria slice_lines value_runs value_fields value_instructions value_top value_widths; do
  sqlite3 "$v2" "DROP TABLE $t"
done
sqlite3 "$v2" "PRAGMA user_version = 2"
for c in trace-values trace-leap; do
  if [ -x "$BIN/$c" ]; then
    "$BIN/$c" -q --db "$v2" "$TMP/chase.mr" >/dev/null 2>"$TMP/err"
    check_eq "version 2: $c --db exits 0, no message" "0:" "$?:$(cat "$TMP/err")"
  fi
done
check_eq "version 2 upgraded: version 6, value and LEAP tables filled" "6|1|1" \
  "$(sqlite3 "$v2" "SELECT (SELECT user_version FROM pragma_user_version),
                           (SELECT count(*) > 0 FROM value_fields), (SELECT count(*) > 0 FROM leap_lmads)")"

# ---- version 3: threads without os_tid (and, made early in 3, instructions) -------------
# Made here as a version-3 memrec left it: today's file without the columns
# version 4 added. The next write adds them; the old run's rows stay.
v3=$TMP/v3.db
"$BIN/trace-objects" -q --db "$v3" "$TMP/chase.mr"
sqlite3 "$v3" "ALTER TABLE threads DROP COLUMN os_tid; ALTER TABLE threads DROP COLUMN instructions;
               PRAGMA user_version = 3"
old3=$(sqlite3 "$v3" "SELECT * FROM threads ORDER BY tid")
"$BIN/trace-objects" -q --db "$v3" "$TMP/threads.mr" 2>"$TMP/err"
check_eq "version 3: trace-objects --db exits 0, no message" "0:" "$?:$(cat "$TMP/err")"
check_eq "version 3 upgraded: version 6, threads.os_tid and threads.instructions exist" "6|1|1" \
  "$(sqlite3 "$v3" "SELECT (SELECT user_version FROM pragma_user_version),
                           (SELECT count(*) FROM pragma_table_info('threads') WHERE name = 'os_tid'),
                           (SELECT count(*) FROM pragma_table_info('threads') WHERE name = 'instructions')")"
check_eq "version 3 upgraded: the old run's thread rows kept" "$old3" \
  "$(sqlite3 "$v3" "SELECT run, tid, parent, loads, stores, bytes, heap, static, stack, unknown, allocs,
                           first_access, last_access FROM threads WHERE run = 1 ORDER BY tid")"

# ---- version 4: without leap_streams ------------------------------------------------
# A version-4 file lacks the table version 5 added; trace-leap --db adds it.
v4=$TMP/v4.db
"$BIN/trace-objects" -q --db "$v4" "$TMP/chase.mr"
sqlite3 "$v4" "DROP TABLE leap_streams; PRAGMA user_version = 4"
if [ -x "$BIN/trace-leap" ]; then
  "$BIN/trace-leap" -q --db "$v4" "$TMP/chase.mr" >/dev/null 2>"$TMP/err"
  check_eq "version 4: trace-leap --db exits 0, no message" "0:" "$?:$(cat "$TMP/err")"
  check_eq "version 4 upgraded: version 6, leap_streams filled" "6|1" \
    "$(sqlite3 "$v4" "SELECT (SELECT user_version FROM pragma_user_version),
                             (SELECT count(*) > 0 FROM leap_streams)")"
fi

# ---- version 5: without the view redundancy_classes --------------------------------
# A version-5 file lacks the view version 6 added; the next write adds it, and
# the Figure 5.4 query answers from it.
v5=$TMP/v5.db
"$BIN/trace-objects" -q --db "$v5" "$TMP/chase.mr"
sqlite3 "$v5" "DROP VIEW redundancy_classes; PRAGMA user_version = 5"
if [ -x "$BIN/trace-redundancy" ]; then
  "$BIN/trace-redundancy" -q --db "$v5" "$TMP/chase.mr" >/dev/null 2>"$TMP/err"
  check_eq "version 5: trace-redundancy --db exits 0, no message" "0:" "$?:$(cat "$TMP/err")"
  check_eq "version 5 upgraded: version 6, the view answers" "6|1" \
    "$(sqlite3 "$v5" "SELECT (SELECT user_version FROM pragma_user_version),
                             (SELECT count(*) > 0 FROM redundancy_classes)")"
  "$BIN/trace-db" "$v5" query redundancy_loads >/dev/null 2>"$TMP/err"
  check_eq "version 5 upgraded: query redundancy_loads exits 0" "0:" "$?:$(cat "$TMP/err")"
fi
