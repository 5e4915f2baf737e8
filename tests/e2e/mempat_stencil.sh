#!/usr/bin/env bash
# trace-mempat on the 3-D Jacobi sample (samples/stencil.c) recorded with the
# memrec Valgrind tool. A sweep reads each row of K-2 floats sequentially,
# rows 2 floats apart, planes 2K+2 floats apart, and the sweep repeats every
# iteration: each array load of the sweep must be exactly
#   REP<its>SeqStr:[SeqStr:[4x<K-2>,(+8+,4x<K-2>)*<J-3>],(+<8K+8>+,SeqStr:[...])*<I-3>]
# (a sequential-stride pattern, nested for the planes), and nothing in the
# kernel may come out Complex.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
[ -x "$BIN/trace-mempat" ] || skip "$BIN/trace-mempat not built"
[ -x "$SAMPLES/stencil" ] || skip "$SAMPLES/stencil not built"
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"

# The kernel's source lines (jacobi may be inlined into main, so functions
# cannot tell; lines can).
src=$ROOT/samples/stencil.c
first=$(grep -n '^static float jacobi' "$src" | cut -d: -f1)
last=$(awk -v f="$first" 'NR > f && /^}/ { print NR; exit }' "$src")

for size in "8 2" "11 3"; do
  set -- $size
  I=$1 its=$2 J=$1 K=$((2 * $1 - 1))
  name="${I}x${J}x${K}, $its iterations"
  t=$TMP/stencil-$I.trace
  record "$t" "$SAMPLES/stencil" $I $its >/dev/null
  check_eq "$name: recorded" 0 $?
  db=$TMP/stencil-$I.db
  "$BIN/trace-mempat" -q --symbolize --db "$db" "$t" >"$TMP/out" 2>"$TMP/err"
  check_eq "$name: exit status" 0 $?
  check_eq "$name: nothing on stderr" "" "$(cat "$TMP/err")"

  row="SeqStr:[4x$((K - 2)),(+8+,4x$((K - 2)))*$((J - 3))]"
  want="REP${its}SeqStr:[$row,(+$((8 * K + 8))+,$row)*$((I - 3))]"
  sweep=$((its * (I - 2) * (J - 2) * (K - 2)))
  # Array loads of the sweep: 4-byte loads on the kernel's lines executed
  # once per interior point and iteration.
  sweep_loads=$(sqlite3 "$db" "
    SELECT m.pattern FROM mempat m JOIN instructions i ON i.id = m.instruction
    WHERE i.kind = 'load' AND i.size = 4 AND i.file LIKE '%stencil.c' AND i.line BETWEEN $first AND $last
      AND m.accesses = $sweep")
  n=$(grep -c . <<<"$sweep_loads")
  check "$name: the sweep's array loads found ($n)" [ "$n" -ge 20 ]
  check_eq "$name: every one is the nested SeqStr" "$n" "$(grep -cxF -- "$want" <<<"$sweep_loads")"
  check_eq "$name: the store of the sweep too" 2 "$(sqlite3 "$db" "
    SELECT count(*) FROM mempat m JOIN instructions i ON i.id = m.instruction
    WHERE i.kind = 'store' AND i.size = 4 AND i.file LIKE '%stencil.c' AND i.line BETWEEN $first AND $last
      AND m.accesses = $sweep AND m.pattern = '$want'")"
  check_eq "$name: nothing on the kernel's lines is Complex" 0 "$(sqlite3 "$db" "
    SELECT count(*) FROM mempat m JOIN instructions i ON i.id = m.instruction
    WHERE i.file LIKE '%stencil.c' AND i.line BETWEEN $first AND $last AND m.kind = 'Complex'")"
  check_eq "$name: kind of the sweep's loads is Rep (REPnSeqStr)" "Rep" "$(sqlite3 "$db" "
    SELECT group_concat(DISTINCT m.kind) FROM mempat m JOIN instructions i ON i.id = m.instruction
    WHERE i.kind = 'load' AND i.size = 4 AND i.file LIKE '%stencil.c' AND i.line BETWEEN $first AND $last
      AND m.accesses = $sweep")"
  check "$name: printed lines carry function:line" \
    grep -qP "^R4@[0-9a-f]+=\\Q$want\\E\\t\\w+:[0-9]+\$" "$TMP/out"
  check_eq "$name: the db has a row per printed line" "$(wc -l <"$TMP/out")" \
    "$(sqlite3 "$db" 'SELECT count(*) FROM mempat')"
done

# One iteration: no repeat, the plain nested SeqStr.
record "$TMP/one.trace" "$SAMPLES/stencil" 8 1 >/dev/null
"$BIN/trace-mempat" --symbolize "$TMP/one.trace" >"$TMP/one"
row="SeqStr:[4x13,(+8+,4x13)*5]"
check "one iteration: SeqStr without REP" \
  grep -qP "^R4@[0-9a-f]+=\\QSeqStr:[$row,(+128+,$row)*5]\\E\\t" "$TMP/one"

# Streaming: the recorder writes into a FIFO while trace-mempat reads it
# (no trace file, as Exana's online MemPat); the same lines as from a file
# for the program's own code (the dynamic loader's string handling differs
# with the file name given to the recorder).
own() { grep -P '\t(main|jacobi|grid):' "$1"; }
"$BIN/trace-mempat" --symbolize "$TMP/one.trace" >"$TMP/one.file"
mkfifo "$TMP/fifo"
record "$TMP/fifo" "$SAMPLES/stencil" 8 1 >/dev/null &
rec=$!
"$BIN/trace-mempat" --symbolize "$TMP/fifo" >"$TMP/one.fifo"
check_eq "fifo: trace-mempat exit status" 0 $?
wait $rec
check_eq "fifo: recorder exit status" 0 $?
check "fifo: the program's lines found" [ "$(own "$TMP/one.fifo" | wc -l)" -ge 30 ]
check_eq "fifo: same lines for the program's code" "$(own "$TMP/one.file")" "$(own "$TMP/one.fifo")"
