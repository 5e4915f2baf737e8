#!/usr/bin/env bash
# Plots stay readable with real programs' names (issue 14): a database whose
# groups and instructions have 500-character C++ names and whose sampled
# group is touched by 40 instructions still gives pictures with data in
# their plot area (the PNG's middle is not blank: png_ink.py), labels cut to
# 40 characters with the full names left in the database, and a legend of
# the ten instructions with the most samples, saying so.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-objects trace-plot trace-synth; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
command -v gnuplot >/dev/null || skip "gnuplot not installed"
command -v python3 >/dev/null || skip "python3 not installed"
export MEMREC_PLOTS=$ROOT/plots
db=$TMP/p.db
"$BIN/trace-synth" --pattern=chase --accesses=30000 -o "$TMP/chase.mr"
"$BIN/trace-objects" -q --db "$db" "$TMP/chase.mr"
check_eq "profile written" 0 $?

# 500 characters of template arguments in every group name, and 40
# instructions with long names sharing the group's samples unevenly (the
# first ones get more), so that the legend has to choose.
x500=$(head -c 500 /dev/zero | tr '\0' x)
sqlite3 "$db" "
  UPDATE alloc_sites SET name = 'std::map<$x500>::_M_insert@stl_tree.h:' || serial;
  WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 40)
  INSERT INTO instructions (run, address, function, file, line, kind, size)
    SELECT 1, 9437184 + v, 'ns::Widget<$x500>::render_' || v, 'widget.h', v, 'load', 8 FROM n;
  UPDATE access_samples SET instruction =
    (SELECT min(id) FROM instructions WHERE address > 9437184) + (rowid % 40);"
check_eq "the database holds the full 500-character names" 1 \
  "$(sqlite3 "$db" "SELECT min(length(name)) > 500 FROM alloc_sites")"

for plot in lifetimes offsets groups; do
  "$BIN/trace-plot" $plot --db "$db" -o "$TMP/$plot.png" >/dev/null 2>"$TMP/err"
  check_eq "$plot: exit status, nothing on stderr" "0 " "$? $(cat "$TMP/err")"
  ink=$(python3 "$ROOT/tests/e2e/png_ink.py" "$TMP/$plot.png")
  check "$plot: data in the plot area ($ink per mille of its middle drawn)" [ "${ink:-0}" -ge 20 ]
  "$BIN/trace-plot" $plot --db "$db" -o "$TMP/$plot.svg" >/dev/null 2>&1
  check "$plot: no label longer than 40 characters reaches the picture" \
    [ "$(grep -c "$(head -c 41 /dev/zero | tr '\0' x)" "$TMP/$plot.svg")" = 0 ]
done
check "offsets: labels keep their end (the line)" grep -q '\.\.\.[x>:]*render_[0-9]*:[0-9]*/load<' "$TMP/offsets.svg"
# 40 instructions, loads and stores: 80 labels
check "offsets: the legend says it lists the top 10 of 80" grep -q 'top 10 of 80' "$TMP/offsets.svg"
check_eq "offsets: 10 instructions in the legend" 10 \
  "$(grep -o '<text>ns::Widget[^<]*</text>' "$TMP/offsets.svg" | sort -u | wc -l)"
