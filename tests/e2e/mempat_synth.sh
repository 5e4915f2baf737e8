#!/usr/bin/env bash
# trace-mempat on a synthetic trace whose patterns follow from its generator
# (tools/lib/synth/synth.c, strided: c[i][j] += a[i][j] + bt[j][i] over 256x256
# int64 arrays, a load of a, a load of bt, a modify of c per iteration), the
# profile database, the overflow summary, and bad input.
source "$(dirname "$0")/lib.sh"

for c in trace-mempat trace-synth; do
  if [ ! -x "$BIN/$c" ]; then
    echo "ok 1 # SKIP $BIN/$c not built"
    exit 0
  fi
done

# Two whole sweeps and 100 iterations of a third.
N=$((3 * (2 * 65536 + 100)))
t=$TMP/strided.trace
"$BIN/trace-synth" --pattern=strided --accesses=$N --chunk-bytes=65536 -o "$t"
check_eq "trace-synth made the trace" 0 $?

"$BIN/trace-mempat" "$t" >"$TMP/out" 2>"$TMP/err"
check_eq "exit status" 0 $?
check_eq "nothing on stderr" "" "$(cat "$TMP/err")"
check_eq "one line per memory instruction" 3 "$(wc -l <"$TMP/out")"

# a and c: rows one after the other, so a sweep is one run of 65536 doubles;
# the third sweep starts back at the array, 100 doubles long.
row='{REP2Seq:[8x65536] -524288- Seq:[8x100]}'
# bt: a column is 256 doubles 2048 bytes apart (2040 between them); the next
# column starts 8 bytes after the previous one's start, i.e. 522240 bytes
# before the end of its last access. The third sweep's 100 accesses are part
# of the first column.
col='Str:[8x1,(+2040+,8x1)*255]'
cols="REP2Str:[$col,(-522240-,$col)*255]"
check_eq "a: load of rows" "R8=$row" "$(sed -n 's/^\(R8\)@[0-9a-f]*=\(.*\)/\1=\2/p' "$TMP/out" | grep -F -- "$row")"
check_eq "c: modify of rows" "M8=$row" "$(sed -n 's/^\(M8\)@[0-9a-f]*=\(.*\)/\1=\2/p' "$TMP/out")"
check_eq "bt: load of columns" \
  "R8={$cols -524288- Str:[8x1,(+2040+,8x1)*99]}" \
  "$(sed -n 's/^\(R8\)@[0-9a-f]*=\(.*Str.*\)/\1=\2/p' "$TMP/out")"
addrs=$(sed 's/=.*//; s/^.*@//' "$TMP/out" | while read -r a; do printf '%016x\n' $((16#$a)); done)
check "lines in address order" sort -c <<<"$addrs"

# The same from a pipe.
cat "$t" | "$BIN/trace-mempat" - >"$TMP/pipe"
check_eq "same from a pipe" "$(cat "$TMP/out")" "$(cat "$TMP/pipe")"

# --symbolize: a tab, then the function of the kernel.
"$BIN/trace-mempat" --symbolize -q "$t" >"$TMP/sym"
check_eq "symbolize: every line names the kernel" 3 \
  "$(grep -cP '^[RWM]8@[0-9a-f]+=\S.*\tstrided_kernel' "$TMP/sym")"
check_eq "symbolize: same patterns" "$(cat "$TMP/out")" "$(cut -f1 "$TMP/sym")"

# --db: one row per instruction, kinds, accesses, references.
db=$TMP/p.db
"$BIN/trace-mempat" -q --db "$db" "$t" >/dev/null
check_eq "db: exit status" 0 $?
check_eq "db: three rows" 3 "$(sqlite3 "$db" 'SELECT count(*) FROM mempat')"
check_eq "db: accesses add up to the trace's" $N \
  "$(sqlite3 "$db" 'SELECT sum(accesses) FROM mempat')"
check_eq "db: kinds" "Complex|3" "$(sqlite3 "$db" "SELECT kind, count(*) FROM mempat GROUP BY kind")"
check_eq "db: every row references its instruction" 3 \
  "$(sqlite3 "$db" 'SELECT count(*) FROM mempat m JOIN instructions i ON i.id = m.instruction AND i.run = m.run')"
check_eq "db: instruction kinds" "load load modify" \
  "$(sqlite3 "$db" 'SELECT i.kind FROM mempat m JOIN instructions i ON i.id = m.instruction ORDER BY i.kind' | xargs)"
check_eq "db: instructions carry the function" "strided_kernel|3" \
  "$(sqlite3 "$db" 'SELECT i.function, count(*) FROM mempat m JOIN instructions i ON i.id = m.instruction GROUP BY i.function')"
check_eq "db: the analysis is recorded" "mempat" "$(sqlite3 "$db" 'SELECT name FROM analyses')"
check_eq "db: pattern is the text after =" "$(sed 's/^[^=]*=//' "$TMP/out" | sort)" \
  "$(sqlite3 "$db" 'SELECT pattern FROM mempat' | sort)"
check_eq "db: nothing overflowed" 0 "$(sqlite3 "$db" 'SELECT sum(overflowed) FROM mempat')"
"$BIN/trace-mempat" -q --db "$db" "$t" >/dev/null
check_eq "db: a second run replaces the rows" "1|3" \
  "$(sqlite3 "$db" 'SELECT count(DISTINCT run), count(*) FROM mempat')"

# Canned queries work in the sqlite3 shell.
q=$ROOT/sql/queries
check_eq "mempat_complex.sql: the Complex rows and their members" "2|2|2" \
  "$(sqlite3 "$db" <"$q/mempat_complex.sql" | cut -d'|' -f7 | xargs | tr ' ' '|')"
check_eq "mempat_coverage.sql: shares add up to 100" 100 \
  "$(sqlite3 "$db" <"$q/mempat_coverage.sql" | awk -F'|' '{s += $5} END {printf "%d", s + 0.5}')"

# Exactly two sweeps: each instruction repeats one pattern.
"$BIN/trace-synth" --pattern=strided --accesses=$((3 * 2 * 65536)) -o "$TMP/two.trace"
"$BIN/trace-mempat" --db "$TMP/two.db" "$TMP/two.trace" >"$TMP/two.out"
check_eq "two sweeps: the patterns" \
  "$(printf '%s\n' "R8=REP2Seq:[8x65536]" "R8=$cols" "M8=REP2Seq:[8x65536]" | sort)" \
  "$(sed 's/@[0-9a-f]*=/=/' "$TMP/two.out" | sort)"
check_eq "two sweeps: kind Rep" "Rep|3" "$(sqlite3 "$TMP/two.db" "SELECT kind, count(*) FROM mempat GROUP BY kind")"

# Overflow: with one pattern allowed, a and c are summarised.
"$BIN/trace-mempat" --max-patterns=1 --db "$TMP/o.db" "$t" >"$TMP/over"
check_eq "overflow: exit status" 0 $?
check_eq "overflow: summarised lines" 3 \
  "$(grep -cE '=Overflow:\[count=[0-9]+,min=[0-9a-f]+,max=[0-9a-f]+,stride=(-?[0-9]+|none)\]$' "$TMP/over")"
check_eq "overflow: a's summary" "count=$((2 * 65536 + 100)),stride=8" \
  "$(grep '^R8' "$TMP/over" | head -1 | sed -n 's/.*count=\([0-9]*\),min=\([0-9a-f]*\),max=\([0-9a-f]*\),stride=\(.*\)\]/count=\1,stride=\4/p')"
check_eq "overflow: bt's dominant stride is a column step" 1 \
  "$(grep -c 'stride=2048\]' "$TMP/over")"
check_eq "overflow: flagged in the db" "3|Complex" \
  "$(sqlite3 "$TMP/o.db" 'SELECT sum(overflowed), min(kind) FROM mempat')"
"$BIN/trace-mempat" --max-patterns=2 "$t" >"$TMP/two"
check_eq "exactly max-patterns members is no overflow" "$(cat "$TMP/out")" "$(cat "$TMP/two")"

# Bad input.
"$BIN/trace-mempat" "$TMP/missing" >"$TMP/o" 2>"$TMP/e"
check_eq "missing trace: exit 1" 1 $?
check_eq "missing trace: one line" 1 "$(wc -l <"$TMP/e")"
check "missing trace: names the program and the file" grep -q "^trace-mempat: $TMP/missing: " "$TMP/e"
head -c 5000 /dev/urandom >"$TMP/garbage"
"$BIN/trace-mempat" "$TMP/garbage" >"$TMP/o" 2>"$TMP/e"
check_eq "garbage: exit 1" 1 $?
check_eq "garbage: one line" 1 "$(wc -l <"$TMP/e")"
check_eq "garbage: no output" "" "$(cat "$TMP/o")"
# Corrupt bytes in the middle of a chunk.
cp "$t" "$TMP/corrupt"
size=$(stat -c %s "$t")
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$TMP/corrupt" bs=1 seek=$((size / 2)) conv=notrunc status=none
"$BIN/trace-mempat" --db "$TMP/c.db" "$TMP/corrupt" >"$TMP/o" 2>"$TMP/e"
check_eq "corrupt: exit 1" 1 $?
check_eq "corrupt: one line on stderr" 1 "$(wc -l <"$TMP/e")"
check "corrupt: says where" grep -q "^trace-mempat: $TMP/corrupt: " "$TMP/e"
check "corrupt: no database made" [ ! -e "$TMP/c.db" ]
# A trace cut in the middle: the events before the cut, with a warning.
# Small chunks: repeated executions make the strided trace a few chunks of
# 1.5 KB at the default size, and half of it would end inside the first.
"$BIN/trace-synth" --pattern=strided --accesses=$N --chunk-bytes=1024 -o "$TMP/many"
head -c $(($(stat -c %s "$TMP/many") / 2)) "$TMP/many" >"$TMP/cut"
"$BIN/trace-mempat" "$TMP/cut" >"$TMP/o" 2>"$TMP/e"
check_eq "cut trace: exit 0" 0 $?
check "cut trace: a warning" grep -q "^trace-mempat: $TMP/cut: warning: " "$TMP/e"
check "cut trace: patterns of what was read" [ "$(wc -l <"$TMP/o")" -ge 1 ]

for bad in --max-patterns=0 --max-patterns=x --bogus "--db=" -z; do
  "$BIN/trace-mempat" $bad "$t" >/dev/null 2>"$TMP/e"
  check_eq "usage: $bad: exit 2" 2 $?
done
"$BIN/trace-mempat" "$t" "$t" >/dev/null 2>&1
check_eq "usage: two traces: exit 2" 2 $?
"$BIN/trace-mempat" --db >/dev/null 2>&1
check_eq "usage: --db without a file: exit 2" 2 $?
"$BIN/trace-mempat" --help >"$TMP/help"
check_eq "--help: exit 0" 0 $?
check "--help: documents the offset" grep -q 'end of the previous access' "$TMP/help"
check "--version" "$BIN/trace-mempat" --version

# An unwritable database: exit 1, the file as it was.
"$BIN/trace-mempat" --db "$TMP/no/such/dir/p.db" "$t" >/dev/null 2>"$TMP/e"
check_eq "db in a missing directory: exit 1" 1 $?
check_eq "db in a missing directory: one line" 1 "$(wc -l <"$TMP/e")"
cp "$db" "$TMP/newer.db"
sqlite3 "$TMP/newer.db" 'PRAGMA user_version = 999'
sum=$(md5sum <"$TMP/newer.db")
"$BIN/trace-mempat" --db "$TMP/newer.db" "$t" >/dev/null 2>"$TMP/e"
check_eq "db of a newer schema: exit 1" 1 $?
check_eq "db of a newer schema: unchanged" "$sum" "$(md5sum <"$TMP/newer.db")"
cp "$TMP/garbage" "$TMP/notdb.db"
"$BIN/trace-mempat" --db "$TMP/notdb.db" "$t" >/dev/null 2>"$TMP/e"
check_eq "db that is not a database: exit 1" 1 $?
check_eq "db that is not a database: one line" 1 "$(wc -l <"$TMP/e")"
check "db that is not a database: unchanged" cmp -s "$TMP/garbage" "$TMP/notdb.db"
if [ "$(id -u)" != 0 ]; then
  cp "$db" "$TMP/ro.db"; chmod 444 "$TMP/ro.db"
  sum=$(md5sum <"$TMP/ro.db")
  "$BIN/trace-mempat" --db "$TMP/ro.db" "$t" >/dev/null 2>"$TMP/e"
  check_eq "read-only db: exit 1" 1 $?
  check_eq "read-only db: unchanged" "$sum" "$(md5sum <"$TMP/ro.db")"
fi
