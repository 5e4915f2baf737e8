#!/usr/bin/env bash
# The profile database keeps its promises: re-running an analysis replaces
# its rows of the run (and only those), a corrupt or truncated trace, an
# unwritable or foreign database file and a killed run leave an existing
# database byte for byte as it was, with a one-line error; trace-db lists,
# queries and deletes runs. Synthetic traces (trace-synth), no recorder.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-objects trace-db trace-synth; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
db=$TMP/p.db
q() { sqlite3 "$db" "$1"; }

"$BIN/trace-synth" --pattern=chase --accesses=40000 -o "$TMP/chase.mr"
"$BIN/trace-synth" --pattern=mixed --accesses=60000 -o "$TMP/mixed.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/chase.mr"
check_eq "first run: exit status" 0 $?
"$BIN/trace-objects" -q --db "$db" "$TMP/mixed.mr"
check_eq "second trace: exit status" 0 $?
check_eq "two runs" 2 "$(q 'SELECT count(*) FROM runs')"
check_eq "schema version" 6 "$(q 'PRAGMA user_version')"
# Rows the objects analysis does not own must survive a re-run.
q "INSERT INTO mempat SELECT 1, id, 'Fix:[8x1]', 'Fix', 1, 0 FROM instructions WHERE run = 1"
before=$(q "SELECT (SELECT count(*) FROM objects WHERE run = 1), (SELECT count(*) FROM object_offsets WHERE run = 1),
                   (SELECT count(*) FROM instr_groups WHERE run = 1), (SELECT count(*) FROM alloc_sites WHERE run = 1),
                   (SELECT count(*) FROM mempat), (SELECT count(*) FROM instructions)")
"$BIN/trace-objects" -q --db "$db" "$TMP/chase.mr"
check_eq "re-run: exit status" 0 $?
check_eq "re-run: still two runs" 2 "$(q 'SELECT count(*) FROM runs')"
check_eq "re-run replaces the run's rows (same counts, no duplicates), keeps mempat's" "$before" \
  "$(q "SELECT (SELECT count(*) FROM objects WHERE run = 1), (SELECT count(*) FROM object_offsets WHERE run = 1),
               (SELECT count(*) FROM instr_groups WHERE run = 1), (SELECT count(*) FROM alloc_sites WHERE run = 1),
               (SELECT count(*) FROM mempat), (SELECT count(*) FROM instructions)")"
check_eq "every mempat row still points at an instruction" 0 \
  "$(q 'SELECT count(*) FROM mempat m LEFT JOIN instructions i ON i.id = m.instruction WHERE i.id IS NULL')"
# Other analyses of the run name their groups by trace-objects' alloc_sites rows.
sites=$(q "SELECT count(*) FROM alloc_sites WHERE run = 1")
for c in trace-values trace-layout; do
  [ -x "$BIN/$c" ] && "$BIN/$c" -q --db "$db" "$TMP/chase.mr" >/dev/null
  check_eq "$c --db: exit status" 0 $?
done
check_eq "values and layout add no alloc_sites row to trace-objects' run" "$sites" \
  "$(q "SELECT count(*) FROM alloc_sites WHERE run = 1")"
check_eq "value_fields and layout_groups name sites of their own run" 0 \
  "$(q "SELECT count(*) FROM (SELECT run, site FROM value_fields UNION ALL SELECT run, site FROM layout_groups) x
        LEFT JOIN alloc_sites s ON s.id = x.site WHERE s.id IS NULL OR s.run != x.run")"
check "value_fields has rows" test "$(q 'SELECT count(*) FROM value_fields WHERE run = 1')" -gt 0
check_eq "re-run with --group-depth=2 replaces too" 0 \
  "$("$BIN/trace-objects" -q --group-depth=2 --db "$db" "$TMP/chase.mr"; echo $?)"
check_eq "chase: one heap group of nodes, all at offsets 0 and 8" "0 8" \
  "$(q "SELECT group_concat(offset, ' ') FROM (SELECT f.offset FROM object_offsets f
        JOIN alloc_sites s ON s.id = f.site WHERE s.run = 1 AND s.kind = 'heap' ORDER BY f.offset)")"
check_eq "runs totals match trace-info" \
  "$(q 'SELECT loads FROM runs WHERE id = 1')" \
  "$("$BIN/trace-info" --json "$TMP/chase.mr" 2>/dev/null | sed -n 's/.*"loads": *\([0-9]*\).*/\1/p')"

# ---- failures leave the database as it was ----------------------------------------
cp "$db" "$TMP/orig.db"
same() { cmp -s "$db" "$TMP/orig.db"; }
one_line() { [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^trace-objects: " "$TMP/err"; }

# A trace corrupted in its middle: the first chunks are fine, one is not.
"$BIN/trace-synth" --pattern=mixed --accesses=400000 --chunk-bytes=65536 -o "$TMP/big.mr"
size=$(stat -c %s "$TMP/big.mr")
cp "$TMP/big.mr" "$TMP/corrupt.mr"
printf 'GARBAGEGARBAGEGARBAGE' | dd of="$TMP/corrupt.mr" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$BIN/trace-objects" -q --db "$db" "$TMP/corrupt.mr" 2>"$TMP/err"
check_eq "corrupt trace: exit status 1" 1 $?
check "corrupt trace: one line 'trace-objects: FILE: ...'" one_line
check "corrupt trace: database byte for byte unchanged" same
check "corrupt trace: no journal left behind" [ ! -e "$db-journal" ]

printf 'not a trace at all\n' > "$TMP/junk.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/junk.mr" 2>"$TMP/err"
check_eq "not a trace: exit status 1" 1 $?
check "not a trace: one line" one_line
check "not a trace: database unchanged" same

"$BIN/trace-objects" -q --db "$TMP/new.db" "$TMP/corrupt.mr" 2>/dev/null
check "corrupt trace into a new database: no file left" [ ! -e "$TMP/new.db" ]

# Cut short (the program was killed): a warning, and the complete chunks count.
head -c $((size / 2)) "$TMP/big.mr" > "$TMP/cut.mr"
"$BIN/trace-objects" -q --db "$TMP/cut.db" "$TMP/cut.mr" 2>"$TMP/err"
check_eq "truncated trace: exit status 0 (a warning)" 0 $?
check "truncated trace: the warning says so" grep -q warning "$TMP/err"

# Unwritable databases, of kinds root cannot write either (the tests run as
# root, where permission bits prove nothing): each refused with one line.
refused() {  # what path message: trace-objects --db path fails, naming the problem
  "$BIN/trace-objects" -q --db "$2" "$TMP/chase.mr" 2>"$TMP/err"
  check_eq "$1: exit status 1" 1 $?
  check "$1: one line" one_line
  check "$1: the line says '$3'" grep -q "$3" "$TMP/err"
}
refused "a missing directory" /nonexistent/dir/p.db "cannot create database"
mkdir "$TMP/dir.db"
refused "a directory where the file should be" "$TMP/dir.db" "not a regular file"
check "a directory where the file should be: left empty" rmdir "$TMP/dir.db"
printf 'plain\n' > "$TMP/plain"
refused "a path under a regular file" "$TMP/plain/p.db" "cannot create database"
check_eq "a path under a regular file: the file untouched" "plain" "$(cat "$TMP/plain")"
# A sysctl file: the kernel refuses root a read-write open, SQLite falls
# back to read-only, and that must be refused by name.
refused "a /proc/sys file" /proc/sys/kernel/ostype "read-only"
refused "a new file in /proc" /proc/memrec-test.db "cannot create database"
refused "a new file in /sys" /sys/memrec-test.db "cannot create database"
chmod 444 "$db"
if [ ! -w "$db" ]; then    # permission bits hold (not root)
  refused "a read-only file" "$db" "read-only"
  check "a read-only file: unchanged" same
fi
chmod 644 "$db"
# A sound database on a read-only tmpfs, and one on a full tmpfs, in a
# private mount namespace (gone when unshare ends): where mounting works.
mkdir "$TMP/mnt"
export TMP BIN
unshare -m --propagation private bash -c '
  mount -t tmpfs -o size=8m memrec-test "$TMP/mnt" 2>/dev/null || exit 77
  cp "$TMP/orig.db" "$TMP/mnt/p.db"
  mount -o remount,ro "$TMP/mnt" || exit 77
  "$BIN/trace-objects" -q --db "$TMP/mnt/p.db" "$TMP/chase.mr" 2>"$TMP/ro.err"
  echo $? > "$TMP/ro.rc"
  cp "$TMP/mnt/p.db" "$TMP/ro.db"
  mount -o remount,rw "$TMP/mnt" || exit 77
  head -c 9m /dev/zero > "$TMP/mnt/filler" 2>/dev/null
  "$BIN/trace-objects" -q --db "$TMP/mnt/p.db" "$TMP/mixed.mr" 2>"$TMP/full.err"
  echo $? > "$TMP/full.rc"
  cp "$TMP/mnt/p.db" "$TMP/full.db"
  "$BIN/trace-objects" -q --db "$TMP/mnt/new.db" "$TMP/mixed.mr" 2>"$TMP/fullnew.err"
  echo $? > "$TMP/fullnew.rc"
  [ -e "$TMP/mnt/new.db" ] && touch "$TMP/fullnew.left"
  exit 0'
if [ $? -eq 77 ] || [ ! -e "$TMP/fullnew.rc" ]; then
  ok "a read-only and a full tmpfs # SKIP cannot mount a tmpfs in a private mount namespace"
else
  check_eq "a read-only mount: exit status 1" 1 "$(cat "$TMP/ro.rc")"
  check "a read-only mount: one line saying read-only" \
    bash -c "[ \$(wc -l < '$TMP/ro.err') = 1 ] && grep -q 'read-only' '$TMP/ro.err'"
  check "a read-only mount: database unchanged" cmp -s "$TMP/ro.db" "$TMP/orig.db"
  check_eq "a full filesystem: exit status 1" 1 "$(cat "$TMP/full.rc")"
  check "a full filesystem: one line saying it is full" \
    bash -c "[ \$(wc -l < '$TMP/full.err') = 1 ] && grep -q 'full' '$TMP/full.err'"
  check "a full filesystem: database unchanged" cmp -s "$TMP/full.db" "$TMP/orig.db"
  check_eq "a full filesystem, new database: exit status 1" 1 "$(cat "$TMP/fullnew.rc")"
  check "a full filesystem, new database: no file left" [ ! -e "$TMP/fullnew.left" ]
fi
printf 'SQLite format 3\0 but then nonsense, nonsense, nonsense, nonsense.....' > "$TMP/bad.db"
cp "$TMP/bad.db" "$TMP/bad.orig"
"$BIN/trace-objects" -q --db "$TMP/bad.db" "$TMP/chase.mr" 2>"$TMP/err"
check_eq "not a database: exit status 1" 1 $?
check "not a database: one line" one_line
check "not a database: file unchanged" cmp -s "$TMP/bad.db" "$TMP/bad.orig"

# Killed halfway: the next opener rolls the journal back. The run's
# transaction begins at the trace's first event; the trace is long enough
# (some 3 s even for the optimised build) that the kill lands inside it.
"$BIN/trace-synth" --pattern=chase --accesses=20000000 -o "$TMP/long.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/long.mr" & pid=$!
sleep 0.5
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
check_eq "after a killed run: still two runs" 2 "$(q 'SELECT count(*) FROM runs')"
check_eq "after a killed run: same content" "$(sqlite3 "$TMP/orig.db" .dump | md5sum)" \
  "$(sqlite3 "$db" .dump | md5sum)"
check "after a killed run and the rollback: byte for byte unchanged" same

# ---- trace-db ------------------------------------------------------------------
"$BIN/trace-db" "$db" runs > "$TMP/runs"
check_eq "trace-db runs: header and two runs" 3 "$(wc -l < "$TMP/runs")"
check "trace-db runs: shows the analyses" grep -q objects "$TMP/runs"
n=$("$BIN/trace-db" queries | wc -l)
check "trace-db queries: at least eight canned queries" [ "$n" -ge 8 ]
for name in $("$BIN/trace-db" queries | awk '{ print $1 }'); do
  "$BIN/trace-db" "$db" query "$name" --run=1 > "$TMP/q" 2>"$TMP/err"
  check_eq "query $name runs" "0:" "$?:$(cat "$TMP/err")"
done
check_eq "hot_groups: the node group first on the chase run" "heap" \
  "$("$BIN/trace-db" "$db" query hot_groups --run=1 --tsv | awk -F'\t' 'NR == 2 { print $2 }')"
check_eq "the canned queries work in the sqlite3 shell" \
  "$("$BIN/trace-db" "$db" query hot_groups --tsv | sed -n 2p | cut -f1)" \
  "$(sqlite3 -separator "$(printf '\t')" "$db" < "$ROOT/sql/queries/hot_groups.sql" | sed -n 1p | cut -f1)"
"$BIN/trace-db" "$db" query no_such_query 2>"$TMP/err"
check_eq "unknown query: usage error" 2 $?
"$BIN/trace-db" "$db" delete 1 > /dev/null
check_eq "delete: exit status" 0 $?
check_eq "delete: one run left" 1 "$(q 'SELECT count(*) FROM runs')"
check_eq "delete: no row of run 1 anywhere" 0 \
  "$(q 'SELECT (SELECT count(*) FROM objects WHERE run = 1) + (SELECT count(*) FROM instructions WHERE run = 1)
             + (SELECT count(*) FROM mempat WHERE run = 1) + (SELECT count(*) FROM access_samples WHERE run = 1)')"
"$BIN/trace-db" "$db" delete 1 2>"$TMP/err"
check_eq "delete a missing run: exit 1" 1 $?
"$BIN/trace-db" "$TMP/fresh.db" init > /dev/null
check_eq "init creates the schema" 6 "$(sqlite3 "$TMP/fresh.db" 'PRAGMA user_version')"
sqlite3 "$TMP/old.db" "CREATE TABLE runs (id INTEGER PRIMARY KEY, trace TEXT NOT NULL, command TEXT,
  pid INTEGER NOT NULL, started INTEGER NOT NULL, instructions INTEGER, loads INTEGER, stores INTEGER,
  UNIQUE (trace, pid, started)); INSERT INTO runs VALUES (1, 'x', 'y', 1, 2, 3, 4, 5);"
"$BIN/trace-db" "$TMP/old.db" upgrade > /dev/null
check_eq "upgrade an old (version 0) database keeps its rows, adds the tables and columns" "1|1|6|?" \
  "$(sqlite3 "$TMP/old.db" "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM sqlite_master WHERE name = 'mempat'), (SELECT user_version FROM pragma_user_version), (SELECT coalesce(complete, '?') FROM runs)")"
sqlite3 "$TMP/new.db" 'PRAGMA user_version = 7'
"$BIN/trace-db" "$TMP/new.db" runs 2>"$TMP/err"
check_eq "a newer database is refused" "1:1" "$?:$(grep -c newer "$TMP/err")"

# ---- usage errors ----------------------------------------------------------------
"$BIN/trace-objects" --group-depth=0 "$TMP/chase.mr" 2>/dev/null
check_eq "trace-objects --group-depth=0: usage error" 2 $?
"$BIN/trace-objects" "$TMP/chase.mr" "$TMP/mixed.mr" 2>/dev/null
check_eq "trace-objects with two traces: usage error" 2 $?
"$BIN/trace-objects" --translate-only --db "$TMP/x.db" "$TMP/chase.mr" 2>/dev/null
check_eq "trace-objects --translate-only --db: usage error" 2 $?
"$BIN/trace-db" 2>/dev/null
check_eq "trace-db without arguments: usage error" 2 $?
check_eq "trace-objects --version" 0 "$("$BIN/trace-objects" --version >/dev/null; echo $?)"
