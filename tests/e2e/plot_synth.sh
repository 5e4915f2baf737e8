#!/usr/bin/env bash
# trace-plot draws the three pictures from a database filled by
# trace-objects on synthetic traces, as PNG and SVG, and refuses bad input
# with one line; trace-objrel prints one line per access, consistent with
# the profile. No recorder needed.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-objects trace-objrel trace-plot trace-synth; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v gnuplot >/dev/null || skip "gnuplot not installed"
export MEMREC_PLOTS=$ROOT/plots
db=$TMP/p.db

"$BIN/trace-synth" --pattern=chase --accesses=30000 -o "$TMP/chase.mr"
"$BIN/trace-synth" --pattern=mixed --accesses=50000 -o "$TMP/mixed.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/chase.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/mixed.mr"
check_eq "two runs to draw from" 2 "$(sqlite3 "$db" 'SELECT count(*) FROM runs')"

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
for plot in lifetimes offsets groups; do
  out=$TMP/$plot.png
  "$BIN/trace-plot" $plot --db "$db" --run=1 -o "$out" >/dev/null 2>"$TMP/err"
  check_eq "$plot: exit status" 0 $?
  check "$plot: a PNG image" is_png "$out"
  check "$plot: of some size" [ "$(stat -c %s "$out")" -gt 10000 ]
  "$BIN/trace-plot" $plot --db "$db" -o "$TMP/$plot.svg" >/dev/null 2>&1
  check "$plot: SVG too" grep -q '<svg' "$TMP/$plot.svg"
done
check "offsets: the title names the group (function@file:line)" \
  grep -q 'chase_build@synth.c:[0-9]' "$TMP/offsets.svg"
check "lifetimes: the axes are named" grep -q 'time (instructions executed)' "$TMP/lifetimes.svg"
"$BIN/trace-plot" offsets --db "$db" --run=2 --group=synth:seq_array -o "$TMP/seq.png" >/dev/null
check_eq "offsets --group picks a static group" 0 $?

"$BIN/trace-plot" nosuchplot --db "$db" 2>"$TMP/err"
check_eq "unknown plot: usage error" 2 $?
"$BIN/trace-plot" groups --db "$db" -o "$TMP/x.jpg" 2>"$TMP/err"
check_eq "unknown picture type: usage error" 2 $?
"$BIN/trace-plot" groups --db "$TMP/none.db" -o "$TMP/x.png" 2>"$TMP/err"
check_eq "missing database: exit 1" 1 $?
check_eq "missing database: one line" 1 "$(wc -l < "$TMP/err")"
check "missing database: not created" [ ! -e "$TMP/none.db" ]
"$BIN/trace-plot" offsets --db "$db" --group=no_such_group -o "$TMP/x.png" 2>"$TMP/err"
check_eq "unknown group: exit 1 with one line" "1:1" "$?:$(wc -l < "$TMP/err")"
"$BIN/trace-plot" groups --db "$db" --run=99 -o "$TMP/x.png" 2>"$TMP/err"
check_eq "unknown run: exit 1" 1 $?

# trace-objrel: one line per access, the same classification as the profile.
"$BIN/trace-objrel" -q "$TMP/chase.mr" > "$TMP/rel" 2>"$TMP/err"
check_eq "objrel: exit status" 0 $?
check_eq "objrel: one line per access" 30000 "$(grep -vc '^#' "$TMP/rel")"
check_eq "objrel: ten tab-separated columns" 10 "$(awk -F'\t' '!/^#/ { print NF }' "$TMP/rel" | sort -u)"
check_eq "objrel: accesses per group agree with the database" \
  "$(sqlite3 "$db" "SELECT name || ' ' || accesses FROM alloc_sites WHERE run = 1 AND accesses > 0 ORDER BY name")" \
  "$(awk -F'\t' '!/^#/ { n[$7]++ } END { for (g in n) print g, n[g] }' "$TMP/rel" | sort)"
check_eq "objrel: offset = address - object start, so equal addresses of one object agree" "" \
  "$(awk -F'\t' '!/^#/ && $7 != "unknown" { k = $10; v = $7 "#" $8 "+" $9; if (k in s && s[k] != v) print k; s[k] = v }' "$TMP/rel" | head -1)"
printf 'garbage' > "$TMP/bad.mr"
"$BIN/trace-objrel" "$TMP/bad.mr" >/dev/null 2>"$TMP/err"
check_eq "objrel: bad trace, exit 1 with one line" "1:1" "$?:$(wc -l < "$TMP/err")"
"$BIN/trace-objrel" --bogus 2>/dev/null
check_eq "objrel: bad option, exit 2" 2 $?
