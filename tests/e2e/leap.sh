#!/usr/bin/env bash
# trace-leap and trace-deps on the samples of known behaviour
# (samples/deps_known.c, samples/strides_known.c) recorded with the memrec
# Valgrind tool, checked against the frequencies and strides the samples
# were built to have; and bad input. The instructions are found by the
# marker comments on their source lines.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-leap trace-deps trace-db; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
[ -x "$SAMPLES/deps_known" ] && [ -x "$SAMPLES/strides_known" ] || skip "samples not built"
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"

line() { grep -n "/\* $2 \*/" "$ROOT/samples/$1.c" | cut -d: -f1; }
db=$TMP/leap.db
q() { sqlite3 "$db" "$1"; }

# ---- dependences -----------------------------------------------------------
record "$TMP/deps.trace" "$SAMPLES/deps_known" 20000 >/dev/null
check_eq "deps_known recorded" 0 $?
for m in exact connors; do
  "$BIN/trace-deps" -q --method=$m --db "$db" "$TMP/deps.trace" >"$TMP/$m.out" 2>"$TMP/err"
  check_eq "trace-deps --method=$m: exit status" 0 $?
  check_eq "trace-deps --method=$m: nothing on stderr" "" "$(cat "$TMP/err")"
done
"$BIN/trace-leap" -q --db "$db" "$TMP/deps.trace" >"$TMP/leap.out" 2>"$TMP/err"
check_eq "trace-leap: exit status" 0 $?
check_eq "trace-leap: nothing on stderr" "" "$(cat "$TMP/err")"
check "trace-leap: a summary line" grep -qP '^summary\taccesses [0-9]+ captured' "$TMP/leap.out"

# freq METHOD STORE-MARK LOAD-MARK: the frequency of the pair, 3 decimals
# ("" when the method has no such pair).
freq() {
  q "SELECT printf('%.3f', d.frequency) FROM dependences d
     JOIN instructions s ON s.id = d.store JOIN instructions l ON l.id = d.load
     WHERE d.method = '$1' AND s.file LIKE '%deps_known.c' AND s.line = $(line deps_known "$2")
       AND l.file LIKE '%deps_known.c' AND l.line = $(line deps_known "$3")"
}
for m in exact connors; do
  check_eq "$m: store_a feeds the load 10% of the time" 0.100 "$(freq $m DEP_STORE_A DEP_LOAD)"
  check_eq "$m: store_b feeds it 90%" 0.900 "$(freq $m DEP_STORE_B DEP_LOAD)"
done
# store_b's runs of nine fold into one LMAD (an outer level): the whole
# stream is captured. The default run solves a stratified sample of 1024 of
# the load's 20000 points; --mdf-sample=0 solves them all: exactly 10/90.
check_eq "leap: the default sample is 1024 loads of 20000 (two writers)" 2 "$(
  awk -F'\t' -v l=":$(line deps_known DEP_LOAD)@" '$1 == "dep" && index($3, l) && $6 == 1024 && $7 == 20000' \
    "$TMP/leap.out" | wc -l)"
"$BIN/trace-leap" -q --mdf-sample=0 --db "$db" "$TMP/deps.trace" >/dev/null
check_eq "leap --mdf-sample=0: store_a 10%" 0.100 "$(freq leap DEP_STORE_A DEP_LOAD)"
check_eq "leap --mdf-sample=0: store_b 90%" 0.900 "$(freq leap DEP_STORE_B DEP_LOAD)"
check_eq "leap --mdf-sample=0: the sample is every load" "20000 20000" "$(q "
  SELECT DISTINCT d.sampled || ' ' || d.load_executions FROM dependences d JOIN instructions l ON l.id = d.load
  WHERE d.method = 'leap' AND l.file LIKE '%deps_known.c' AND l.line = $(line deps_known DEP_LOAD)")"
check_eq "exact: the far dependence is 100%" 1.000 "$(freq exact FAR_STORE FAR_LOAD)"
check_eq "leap: the far dependence is 100%" 1.000 "$(freq leap FAR_STORE FAR_LOAD)"
check_eq "connors: the far dependence is beyond its window" "" "$(freq connors FAR_STORE FAR_LOAD)"
"$BIN/trace-deps" -q --method=connors --window=10000 "$TMP/deps.trace" >"$TMP/wide.out"
check "connors --window=10000 finds the far dependence" \
  grep -qP '^dep\tfar_dependence:[0-9]+@\S+\(store 8\)\tfar_dependence:[0-9]+@\S+\(load 8\)\t1\.0000\t4096\t4096$' "$TMP/wide.out"
for m in exact connors leap; do
  check_eq "$m: the reads after reads depend on nothing" 0 "$(q "
    SELECT count(*) FROM dependences d JOIN instructions l ON l.id = d.load
    WHERE d.method = '$m' AND l.file LIKE '%deps_known.c'
      AND l.line IN ($(line deps_known RAR_LOAD1), $(line deps_known RAR_LOAD2))")"
done
# LEAP solves exactly what it captured: every pair it finds on decided
# points, the exact profiler finds, ld.so's and libc's stack pairs included
# (a stack's offsets are fixed for the run, not taken from the window's
# moving low end). Guesses (sampled 0: no point of the load decided) may
# name a writer the exact profiler does not.
check_eq "leap finds no decided pair the exact profiler does not" 0 "$(q "
  SELECT count(*) FROM dependences m WHERE m.method = 'leap' AND m.sampled > 0 AND NOT EXISTS (
    SELECT 1 FROM dependences e WHERE e.method = 'exact' AND e.run = m.run
      AND e.store = m.store AND e.load = m.load)")"
check "leap marks its guesses" grep -qP '^dep\t.*\t0\t[0-9]+\tguess$' "$TMP/leap.out"
check_eq "no load is anyone's writer" 0 "$(q "
  SELECT count(*) FROM dependences d JOIN instructions s ON s.id = d.store WHERE s.kind = 'load'")"
check_eq "every load's frequencies add up to at most 1" 0 "$(q "
  SELECT count(*) FROM (SELECT sum(frequency) AS f FROM dependences GROUP BY run, method, load)
  WHERE f > 1.000001")"
check_eq "the program's pairs: LEAP within 10% for all, Connors not" "leap 100.0|connors 35.7" "$(
  "$BIN/trace-db" "$db" query leap_accuracy --param file=%deps_known.c --tsv |
  awk -F'\t' 'NR > 1 { printf "%s%s %s", sep, $1, $4; sep = "|" }')"
check "Table 1 query" grep -q deps_known <("$BIN/trace-db" "$db" query leap_table1)
# leap_streams splits the profile by stream: its sums are leap_summary's,
# and the program's own streams are a small part of the bytes (the rest is
# the dynamic linker's and libc's startup).
check_eq "leap_streams sums to leap_summary" "$(q "SELECT accesses, captured, profile_bytes
  FROM leap_summary")" "$(q "SELECT sum(accesses), sum(captured), sum(profile_bytes) FROM leap_streams")"
check_eq "leap_compression: the program's streams compress over 1000x, the whole trace less" "1 1" "$(
  "$BIN/trace-db" "$db" query leap_compression --param file=%deps_known.c --tsv |
    awk -F'\t' '$1 == "files" { f = $6 } $1 == "trace" { t = $6 } END { print (f > 1000), (t < f) }')"

# ---- strides ---------------------------------------------------------------
sdb=$TMP/strides.db
record "$TMP/strides.trace" "$SAMPLES/strides_known" 20000 >/dev/null
check_eq "strides_known recorded" 0 $?
"$BIN/trace-deps" -q --db "$sdb" "$TMP/strides.trace" >/dev/null &&
  "$BIN/trace-leap" -q --db "$sdb" "$TMP/strides.trace" >/dev/null
check_eq "strides: both profiles stored" 0 $?
# stride METHOD MARK: "stride share strongly" of the marked load.
stride() {
  sqlite3 "$sdb" "SELECT s.stride || ' ' || printf('%.2f', s.share) || ' ' || s.strongly_strided
    FROM strides s JOIN instructions i ON i.id = s.instruction
    WHERE s.method = '$1' AND i.kind = 'load' AND i.file LIKE '%strides_known.c'
      AND i.line = $(line strides_known "$2")"
}
for m in exact leap; do
  check_eq "$m: constant stride 16, strongly strided" "16 1.00 1" "$(stride $m CONST_LOAD)"
  check_eq "$m: stride changing halfway is not strongly strided" "8 0.50 0" "$(stride $m HALF_LOAD)"
  check_eq "$m: changing at three quarters is" "8 0.75 1" "$(stride $m LATE_LOAD)"
  check_eq "$m: the pointer chase has no stride within objects" "0 0.00 0" "$(stride $m CHASE_LOAD)"
done
check_eq "LEAP finds every strongly strided instruction of the program" "100.0 0" "$(
  "$BIN/trace-db" "$sdb" query leap_strides --param file=%strides_known.c --tsv |
  awk -F'\t' 'NR > 1 { print $3, $4 }')"

# ---- loops read as runs give the profile an unbatched reading gives ---------
record "$TMP/stencil.trace" "$SAMPLES/stencil" 9 3 >/dev/null
for t in deps strides stencil; do
  check_eq "$t: batched and --no-batch profiles are identical" \
    "$("$BIN/trace-leap" -q --lmads --no-batch "$TMP/$t.trace" | md5sum)" \
    "$("$BIN/trace-leap" -q --lmads "$TMP/$t.trace" | md5sum)"
done

# ---- bad input -------------------------------------------------------------
for c in trace-leap trace-deps; do
  "$BIN/$c" "$TMP/missing.trace" >/dev/null 2>"$TMP/err"
  st=$?
  check_eq "$c: a missing trace is status 1" 1 $st
  check "$c: one line naming the file" \
    [ "$(wc -l <"$TMP/err")" = 1 -a -n "$(grep -F "$c: $TMP/missing.trace:" "$TMP/err")" ]
  head -c 100 /dev/urandom >"$TMP/junk.trace"
  "$BIN/$c" "$TMP/junk.trace" >/dev/null 2>"$TMP/err"
  check_eq "$c: not a trace is status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
  "$BIN/$c" --bogus >/dev/null 2>"$TMP/err"
  check_eq "$c: an unknown option is status 2" 2 $?
  echo nonsense >"$TMP/bad.db"
  "$BIN/$c" -q --db "$TMP/bad.db" "$TMP/deps.trace" >/dev/null 2>"$TMP/err"
  check_eq "$c: a file that is no database is status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
done
"$BIN/trace-leap" --max-lmads=0 "$TMP/deps.trace" >/dev/null 2>&1
check_eq "trace-leap --max-lmads=0 is bad usage" 2 $?
"$BIN/trace-deps" --method=fast "$TMP/deps.trace" >/dev/null 2>&1
check_eq "trace-deps --method=fast is bad usage" 2 $?
"$BIN/trace-deps" --window=8 "$TMP/deps.trace" >/dev/null 2>&1
check_eq "trace-deps --window without connors is bad usage" 2 $?
