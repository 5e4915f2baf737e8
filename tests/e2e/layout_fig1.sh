#!/usr/bin/env bash
# trace-layout on LWPTool's Figure 1 micro-benchmarks, recorded with memrec:
#   - samples/layout_split (Fig. 1a): struct {int a, b, c, d} read as {a, c}
#     in one loop and {b, d} in another: stride 16, size 16, offsets 0 4 8
#     12, FA = 1 within the pairs and 0 across, the split {0,8} {4,12}, and
#     a predicted latency reduction; the byte-wise initialisation (a unit
#     stride) and b/c's outlier stream change none of it;
#   - samples/layout_regroup (Fig. 1b): four arrays read together give one
#     regrouping of the four with AA = 1; the conflict variants (reverse
#     order, disjoint halves, disjoint times in one loop run ten times) are
#     each found in the loop and leave the conflicting array out;
#   - bad input: standard input, a missing file, a bad option.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
[ -x "$BIN/trace-layout" ] || skip "$BIN/trace-layout not built"
[ -x "$SAMPLES/layout_split" ] || skip "samples not built"
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"

# ---- Figure 1a -----------------------------------------------------------------
record "$TMP/split.mrt" "$SAMPLES/layout_split" 20000 4 >/dev/null
check_eq "layout_split recorded" 0 $?
"$BIN/trace-layout" "$TMP/split.mrt" >"$TMP/out" 2>"$TMP/err"
check_eq "trace-layout: status 0, quiet" "0 " "$? $(cat "$TMP/err")"
line=$(grep -n 'arr = malloc' "$ROOT/samples/layout_split.c" | cut -d: -f1)
# a heap group's name: function:line, or function@file:line
M='main[@a-z_.]*'

sect() { sed -n "/^  main[@a-z_.]*:$line#[0-9]*: l_d/,/advice\|no split/p" "$TMP/out"; }
check "the structure's size is 16 (Eq. 5)" grep -q "structure size 16 bytes (Eq. 5), 4 fields" <(sect)
check_eq "fields at 0 4 8 12 with FA 1 within {a,c}, {b,d} and 0 across" \
"0 1.00 0.00 1.00 0.00
4 0.00 1.00 0.00 1.00
8 1.00 0.00 1.00 0.00
12 0.00 1.00 0.00 1.00" \
  "$(sect | awk '$1 ~ /^[0-9]+$/ && NF >= 8 { print $1, $5, $6, $7, $8 }')"
check "advice: split into {0,8} {4,12}" \
  grep -qE "advice: split $M:$line#[0-9]+ \(16-byte elements\) into 2 structures: \{0,8\} \{4,12\}" "$TMP/out"
check "the b and c arrays stay primitive (unit stride; the outlier left out)" \
  test "$(grep -c "main[@a-z_.]*:$((line + 1))#[0-9]*: l_d .*no non-unit stride: a primitive array" "$TMP/out")" = 2
check "no regrouping of b and c (never in one loop)" grep -q "no regrouping advice" "$TMP/out"
gain=$(awk '/^  split main/ { print $NF }' "$TMP/out")
check "the split's predicted latency change is a reduction ($gain)" grep -q '^-' <<<"$gain"
body=$(grep -n 'b\[i\] = arr\[i\].a + arr\[i\].c' "$ROOT/samples/layout_split.c" | cut -d: -f1)
check "the {a,c} loop maps to its lines and fields (offsets 0 and 8, each once)" \
  grep -qE "main .*layout_split.c:$((body - 1))-$body +$M:$line#[0-9]+\+0\+8( |$)" "$TMP/out"
# A loop whose load and store of one field are two instructions (two
# streams): the field is listed once.
cat >"$TMP/twice.c" <<'EOF2'
#include <stdlib.h>
struct r { long a, b, c; };
int main(void) {
    struct r *v = calloc(5000, sizeof *v);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 5000; i++)
            v[i].a = v[i].a + v[i].c;
    return (int)v[7].a;
}
EOF2
cc -O0 -g -o "$TMP/twice" "$TMP/twice.c"
record "$TMP/twice.mrt" "$TMP/twice" >/dev/null
"$BIN/trace-layout" -q "$TMP/twice.mrt" >"$TMP/twice.out" 2>&1
check "a loop loading and storing field 0: listed once, beside field 16" \
  grep -qE "main .*twice.c:[0-9-]+ +main@twice.c:[0-9]+#[0-9]+\+0\+16$" "$TMP/twice.out"
# repeated_field: some loop line lists a group's offset twice
repeated_field() {
  sed -n '/^Loops by weight/,$p' "$1" | grep -qE '\+([0-9]+)(\+[0-9]+)*\+\1(\+| |$)'
}
check "no loop lists a group's field twice" bash -c "$(declare -f repeated_field); ! repeated_field '$TMP/twice.out'"

# ---- the prediction against the advice applied by hand ----------------------------
# The predicted D1 miss reduction of the split and the reduction the
# rewritten sample shows in its own trace: same direction, within 2x.
d1() { awk -v what="$2" '$0 ~ "^  " what { print $3; exit }' "$1"; }  # two words, then D1
for pair in "layout_split 20000 4" "layout_hotcold 20000 5"; do
  set -- $pair
  record "$TMP/$1.mrt" "$SAMPLES/$1" "$2" "$3" >/dev/null
  record "$TMP/$1_opt.mrt" "$SAMPLES/$1_opt" "$2" "$3" >/dev/null
  "$BIN/trace-layout" "$TMP/$1.mrt" >"$TMP/$1.out" 2>/dev/null
  "$BIN/trace-layout" "$TMP/$1_opt.mrt" >"$TMP/$1_opt.out" 2>/dev/null
  before=$(d1 "$TMP/$1.out" "as recorded") predicted=$(d1 "$TMP/$1.out" "split ")
  measured=$(d1 "$TMP/$1_opt.out" "as recorded")
  check "$1: predicted ($before -> $predicted) and hand-applied ($measured) D1 reductions agree within 2x" \
    awk -v b="$before" -v p="$predicted" -v m="$measured" 'BEGIN {
      dp = b - p; dm = b - m; exit !(m != "" && dp > 0 && dm > 0 && dp <= 2 * dm && dm <= 2 * dp) }'
done
check "layout_hotcold: split {0..40} from {48}" \
  grep -qE "into 2 structures: \{0,8,16,24,32,40\} \{48\}" "$TMP/layout_hotcold.out"

# ---- Figure 1b and the conflicts of Figure 4 -------------------------------------
for mode in same reverse halves times; do
  record "$TMP/$mode.mrt" "$SAMPLES/layout_regroup" $mode 20000 4 >/dev/null
  "$BIN/trace-layout" --no-gain "$TMP/$mode.mrt" >"$TMP/$mode" 2>"$TMP/err"
  check_eq "regroup $mode: status 0, quiet" "0 " "$? $(cat "$TMP/err")"
done
check_eq "same order: one regrouping" 1 "$(grep -c '^  advice [0-9]*: interleave' "$TMP/same")"
check "same order: the four arrays, AA = 1" \
  grep -qE "interleave( $M:[0-9]+#[0-9]+){4} into one array of structures \(lowest AA, Eq. 11: 1.00\)" "$TMP/same"
check_eq "same order: no conflict" 0 "$(grep -c conflict "$TMP/same")"
for mode in reverse:"reverse order" halves:"disjoint parts" times:"disjoint times"; do
  m=${mode%%:*} why=${mode#*:}
  check_eq "$m: three conflicts ($why), all with one array" 3 \
    "$(grep -c "conflict (Eq. 10): .*, $why, in loop main" "$TMP/$m")"
  a2=$(grep "conflict (Eq. 10)" "$TMP/$m" | grep -oE "$M:[0-9]+#[0-9]+" | sort | uniq -c |
       awk '$1 == 3 { print $2 }')
  check "$m: the conflicting array is the one in every conflict ($a2)" test -n "$a2"
  check "$m: the other three still regrouped" \
    grep -qE "interleave( $M:[0-9]+#[0-9]+){3} into" "$TMP/$m"
  check "$m: the conflicting array left out" bash -c "! grep -q 'advice 0: interleave.* $a2 ' '$TMP/$m'"
done

# ---- sampling: the same advice from 1 access in 50 ------------------------------
"$BIN/trace-layout" --no-gain --sample=50 "$TMP/split.mrt" >"$TMP/sampled" 2>&1
check "--sample=50: the same split" grep -qE "into 2 structures: \{0,8\} \{4,12\}" "$TMP/sampled"
check "--sample=50: says so" grep -q "sampled 1 in 50 (random period)" "$TMP/sampled"

# ---- the database: the advice as rows, gains, plots ---------------------------
db=$TMP/l.db
"$BIN/trace-objects" -q --db "$db" "$TMP/split.mrt"
sites=$(sqlite3 "$db" "SELECT count(*) FROM alloc_sites")
"$BIN/trace-layout" -q --db "$db" "$TMP/split.mrt" >/dev/null
sname=$(sqlite3 "$db" "SELECT name FROM alloc_sites WHERE kind = 'heap' AND name GLOB 'main*:$line'")
check_eq "--db after trace-objects: its alloc_sites rows reused" "$sites" \
  "$(sqlite3 "$db" "SELECT count(*) FROM alloc_sites")"
check_eq "layout_splits: clusters of offsets of the malloc'd structure" \
  "$sname|0|0 $sname|0|8 $sname|1|4 $sname|1|12" \
  "$(sqlite3 "$db" "SELECT group_concat(x, ' ') FROM (SELECT s.name || '|' || l.cluster || '|' ||
      l.offset AS x FROM layout_splits l JOIN alloc_sites s ON s.id = l.site
      ORDER BY l.cluster, l.offset)")"
check_eq "layout_gains: D1 misses fall with the split" 1 \
  "$(sqlite3 "$db" "SELECT misses_after < misses_before FROM layout_gains WHERE level = 'D1' AND kind = 'split'")"
check_eq "layout_objects: the heaviest object is the structure array, with its group's l_d" \
  "$sname|1" \
  "$(sqlite3 "$db" "SELECT a.name, abs(o.l_d - g.l_d) < 1e-9 FROM layout_objects o
      JOIN layout_groups g ON g.run = o.run AND g.site = o.site
      JOIN alloc_sites a ON a.id = o.site ORDER BY o.weight DESC LIMIT 1")"
check "layout_advice query names the split" \
  grep -qF "split $sname into {0,8} {4,12}" <("$BIN/trace-db" "$db" query layout_advice)
"$BIN/trace-layout" -q --db "$db" "$TMP/same.mrt" >/dev/null
check_eq "layout_regroups: one advice of four arrays" "0|4" \
  "$(sqlite3 "$db" "SELECT advice, count(*) FROM layout_regroups WHERE run = (SELECT max(id) FROM runs) GROUP BY advice")"
if command -v gnuplot >/dev/null; then
  MEMREC_PLOTS=$ROOT/plots "$BIN/trace-plot" layout_affinity --db "$db" --run=1 -o "$TMP/a.png" >/dev/null 2>&1
  check "trace-plot layout_affinity draws" test -s "$TMP/a.png"
  MEMREC_PLOTS=$ROOT/plots "$BIN/trace-plot" layout_fields --db "$db" --run=1 -o "$TMP/f.png" >/dev/null 2>&1
  check "trace-plot layout_fields draws" test -s "$TMP/f.png"
fi

# ---- bad input -------------------------------------------------------------------
"$BIN/trace-layout" - <"$TMP/split.mrt" >/dev/null 2>"$TMP/err"
check_eq "standard input: status 1" 1 $?
check "standard input: one line saying why" \
  bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q '^trace-layout: <stdin>: reads the trace more than once' '$TMP/err'"
"$BIN/trace-layout" "$TMP/missing.mrt" >/dev/null 2>"$TMP/err"
check_eq "missing file: status 1, one line" "1 1" "$? $(wc -l <"$TMP/err")"
"$BIN/trace-layout" --metric=speed "$TMP/split.mrt" >/dev/null 2>"$TMP/err"
check_eq "--metric=speed: status 2" 2 $?
check "--metric=speed: says what is accepted" grep -q "not latency, misses or count" "$TMP/err"
"$BIN/trace-layout" --tau=2 "$TMP/split.mrt" >/dev/null 2>"$TMP/err"
check_eq "--tau=2: status 2" 2 $?
echo "1..$_n"
