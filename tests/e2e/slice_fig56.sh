#!/usr/bin/env bash
# trace-slice on Figure 5.6's program (samples/slice_fig56.c, input N = 3,
# X = {0, -1, 1}): the slice for Z at (16), as source statements, must be
# the paper's: precise {2,3,4,6,7,8,9,11,13,14,15,16}; executed edges all
# but 5 and 12; executed nodes all but 12; with the memory edges of TWPP+
# (the default) and with the trace's last writers. f3 (called at (11))
# joins the precise slice, f2 (called at (10)) does not. Bad input gets
# one line and status 1 (2 for usage).
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-twpp trace-slice; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"
[ -x "$SAMPLES/slice_fig56" ] || skip "$SAMPLES/slice_fig56 not built"
SL=$BIN/trace-slice
SRC=$ROOT/samples/slice_fig56.c

t=$TMP/fig.trace
record "$t" "$SAMPLES/slice_fig56" >/dev/null
"$BIN/trace-twpp" -q "$t" >/dev/null
check "trace-twpp wrote TRACE.twpp" [ -s "$t.twpp" ]

# source line -> statement number, from the "/* (k) */" markers
grep -n '/\* ([0-9]*) \*/' "$SRC" | sed -E 's|^([0-9]+):.*/\* \(([0-9]+)\) \*/.*|\1 \2|' > "$TMP/stmts"
check_eq "the sample marks 16 statements" 16 "$(wc -l <"$TMP/stmts")"
crit=$(awk '$2 == 16 { print $1 }' "$TMP/stmts")

# statements SECTION-PATTERN < report: the statements of main's lines in that section
statements() {
  awk -v sec="$1" -v map="$TMP/stmts" '
    BEGIN { while ((getline l < map) > 0) { split(l, f, " "); st[f[1]] = f[2] } }
    /^[a-z]/ { on = index($0, sec) == 1; next }
    on && $1 ~ /^main:[0-9]+$/ { split($1, p, ":"); if (p[2] in st) print st[p[2]] }' |
    sort -n | paste -sd, -
}

for edges in twpp trace; do
  "$SL" -q --edges $edges --at "main:$crit" --var Z "$t.twpp" >"$TMP/out.$edges" 2>"$TMP/err"
  check_eq "--edges $edges: status 0, nothing on stderr" "0 " "$? $(cat "$TMP/err")"
  check_eq "--edges $edges: precise slice (approach 3)" "2,3,4,6,7,8,9,11,13,14,15,16" \
    "$(statements "precise" <"$TMP/out.$edges")"
  check_eq "--edges $edges: executed edges (approach 2): all but 5 and 12" "1,2,3,4,6,7,8,9,10,11,13,14,15,16" \
    "$(statements "executed edges" <"$TMP/out.$edges")"
  check_eq "--edges $edges: executed nodes (approach 1): all but 12" "1,2,3,4,5,6,7,8,9,10,11,13,14,15,16" \
    "$(statements "executed nodes" <"$TMP/out.$edges")"
done
out=$TMP/out.twpp
# instance counts: (9) ran twice, only the last is in the slice; (14) ran 3 times, 2 in it
s9=$(awk '$2 == 9 { print $1 }' "$TMP/stmts"); s14=$(awk '$2 == 14 { print $1 }' "$TMP/stmts")
check "precise: main:$s9 1 of 2 instances" grep -qx "  main:$s9  1 of 2" "$out"
check "precise: main:$s14 2 of 3 instances" grep -qx "  main:$s14  2 of 3" "$out"
prec=$(sed -n '/^precise/,/^executed/p' "$out")
check "precise: f3 (called by (11)) is in it" grep -q '^  f3:' <<<"$prec"
check "precise: f2 (called by (10)) is not" bash -c "! grep -q '^  f2:' <<<'$prec'"
check "precise: nothing of the dynamic loader or libc (the criterion's callers are not followed)" \
  bash -c "[ \$(grep -c '^  ' <<<'$prec') -eq \$(grep -cE '^  (main|f3|inout):' <<<'$prec') ]"

# --db: the request and the slices by line; a second request replaces the first
db=$TMP/s.db
"$SL" -q --db "$db" --at "main:$crit" --var W "$t.twpp" >/dev/null
"$SL" -q --db "$db" --at "main:$crit" --var Z "$t.twpp" >/dev/null
check_eq "--db: one request per run, the last" "1|Z" "$(sqlite3 "$db" "SELECT count(*), max(var) FROM slice_criteria")"
check_eq "--db: the precise slice's lines" "$(statements precise <"$out")" \
  "$(sqlite3 "$db" "SELECT line FROM slice_lines WHERE slice = 'precise' AND function = 'main'" |
     awk -v map="$TMP/stmts" 'BEGIN { while ((getline l < map) > 0) { split(l, f, " "); st[f[1]] = f[2] } }
                              $1 in st { print st[$1] }' | sort -n | paste -sd, -)"
"$BIN/trace-db" "$db" query slice_lines --param function=main >"$TMP/q"
check "trace-db query slice_lines: (9) in the precise slice once, in both approximate ones" \
  grep -qE "^main +$s9 +2 +1 +x +x *$" "$TMP/q"
"$BIN/trace-plot" slice --db "$db" -o "$TMP/slice.png" >/dev/null 2>&1
check "trace-plot slice draws a PNG" [ -s "$TMP/slice.png" ]

# the criterion as an address and as a register
zaddr=$(awk '/^criterion/ { match($0, /\[0x[0-9a-f]+/); print substr($0, RSTART + 1, RLENGTH - 1) }' "$out")
"$SL" -q --precise-only --at "main:$crit" --var "$zaddr:8" "$t.twpp" >"$TMP/addr" 2>&1
check_eq "--var ADDRESS:8 gives the same precise slice" "$(statements precise <"$out")" "$(statements precise <"$TMP/addr")"
check "--precise-only prints no approximate slice" bash -c "! grep -q '^executed' '$TMP/addr'"
s15=$(awk '$2 == 15 { print $1 }' "$TMP/stmts")
"$SL" -q --at "main:$s15" --var edx "$t.twpp" >"$TMP/reg" 2>&1
check_eq "--var edx at (15): status 0" 0 $?
check "--var edx at (15): register rdx, its last definition at (6)" \
  bash -c "grep -q 'register rdx' '$TMP/reg' && grep -q '^  main:$(awk '$2 == 6 { print $1 }' "$TMP/stmts")  ' '$TMP/reg'"

# the startup (before main) is not followed unless --startup: argc in rdi at (1)
s1=$(awk '$2 == 1 { print $1 }' "$TMP/stmts")
"$SL" -q --precise-only --at "main:$s1" --var rdi "$t.twpp" >"$TMP/st" 2>&1
check_eq "rdi at (1): only the criterion's line (its value comes from the startup)" "  main:$s1  1 of 1" \
  "$(grep '^  ' "$TMP/st")"
"$SL" -q --precise-only --startup --at "main:$s1" --var rdi "$t.twpp" >"$TMP/st" 2>&1
check "rdi at (1) with --startup: libc's start code is in it" grep -q '^  (below main):' "$TMP/st"

# bad input: one line, status 1 (2 for usage)
bad() {
  local what=$1 rc=$2 pattern=$3; shift 3
  "$SL" -q "$@" >"$TMP/o" 2>"$TMP/e"
  check_eq "$what: status $rc" "$rc" $?
  if [ "$(wc -l <"$TMP/e")" = 1 ] && grep -qE -e "$pattern" "$TMP/e"; then
    ok "$what: one line matching '$pattern'"
  else
    fail "$what: one line matching '$pattern' (got: $(head -c 200 "$TMP/e"))"
  fi
}
bad "a function that never ran" 1 "trace-slice: .*: nosuch:3 never ran" --at nosuch:3 --var Z "$t.twpp"
bad "a line that never ran" 1 "main:1 never ran" --at main:1 --var Z "$t.twpp"
bad "an instance past the last" 1 "main:$crit ran 1 times: no instance #2" --at "main:$crit#2" --var Z "$t.twpp"
bad "an unknown --var" 1 "--var nosuch: no register or data object" --at "main:$crit" --var nosuch "$t.twpp"
bad "a malformed --var address" 1 "--var 0x12zz: not 0xADDR" --at "main:$crit" --var 0x12zz "$t.twpp"
bad "a malformed --var" 1 "--var Z-1: not a register" --at "main:$crit" --var Z-1 "$t.twpp"
bad "a malformed --at" 2 "--at: 'main' is not FUNCTION:LINE" --at main --var Z "$t.twpp"
bad "--at and --var missing" 2 "--at and --var are both needed" "$t.twpp"
bad "--edges neither" 2 "--edges: 'x' is neither" --edges x --at "main:$crit" --var Z "$t.twpp"
cp "$t.twpp" "$TMP/moved.twpp"
bad "the default trace missing" 1 "trace-slice: $TMP/moved: no such trace .*say which .* with --trace" --at "main:$crit" --var Z "$TMP/moved.twpp"
head -c 2000 "$t.twpp" > "$TMP/cut.twpp"
bad "a truncated .twpp file" 1 "trace-slice: $TMP/cut.twpp: truncated" --trace "$t" --at "main:$crit" --var Z "$TMP/cut.twpp"
cp "$t.twpp" "$TMP/flip.twpp"
printf 'XXXX' | dd of="$TMP/flip.twpp" bs=1 seek=$(( $(stat -c %s "$t.twpp") - 3000 )) conv=notrunc 2>/dev/null
"$SL" -q --trace "$t" --at "main:$crit" --var Z "$TMP/flip.twpp" >"$TMP/o" 2>"$TMP/e"
rc=$?
check "a corrupt .twpp file: status 0 or 1, never a crash (got $rc)" [ "$rc" -le 1 ]
check "a corrupt .twpp file: at most one line on stderr" [ "$(wc -l <"$TMP/e")" -le 1 ]
# a .twpp file built from another program's trace
[ -x "$SAMPLES/linked_list" ] && {
  record "$TMP/ll.trace" "$SAMPLES/linked_list" >/dev/null
  bad "a trace the .twpp was not built from" 1 "not built from this trace" --trace "$TMP/ll.trace" --at "main:$crit" --var Z "$t.twpp"
}
bad "FILE not named .twpp, no --trace" 2 "not named TRACE.twpp" --at "main:$crit" --var Z "$t"
echo "1..$_n"
