#!/usr/bin/env bash
# trace-rds on structures of known shape:
#   - a synthetic chase trace (trace-synth): one list of N nodes linked in
#     shuffled order, walked 3 times, freed: one type, one instance of N
#     nodes and N-1 edges, 3(N-1) traversals, freed entirely;
#   - samples/rds_shapes recorded with memrec: the RDS paper's Figure 2
#     (two instances {1,2,3} and {4,5,6} of the tree site, the array's two
#     edges queued and never merged), a list built by prepending (every edge
#     backward), one built by appending and never changed (RSF 1) against
#     one changed between walks (RSF 5), a list freed entirely, and
#     mutually recursive structures (an SCC of two sites);
#   - the rds_* tables, queries and plots; bad input: a trace recorded
#     with --values=none, a corrupt trace, a bad threshold.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-rds trace-synth trace-db trace-plot; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
q() { sqlite3 "$db" "$1"; }

# ---- synthetic: the chase pattern ----------------------------------------------
t=$TMP/chase.trace db=$TMP/chase.db
"$BIN/trace-synth" --pattern=chase --accesses=40000 -o "$t"
N=$((40000 / 8))    # chase: 8 accesses per node (see synth.c)
"$BIN/trace-rds" -q --db "$db" "$t" >"$TMP/out" 2>"$TMP/err"
check_eq "chase: exit status" 0 $?
check_eq "chase: nothing on stderr" "" "$(cat "$TMP/err")"
check_eq "chase: one type of one site" "1|1" "$(q "SELECT count(*), sum(sites) FROM rds_types")"
check_eq "chase: one instance of N nodes, N-1 edges, all freed" "1|$N|$((N - 1))|0|0" \
  "$(q "SELECT count(*), sum(nodes), sum(edges), sum(live_nodes), sum(live_edges) FROM rds_instances")"
check_eq "chase: three walks of N-1 traversals" $((3 * (N - 1))) "$(q "SELECT accesses FROM rds_instances")"
check_eq "chase: died" 1 "$(q "SELECT death IS NOT NULL AND death >= end_time FROM rds_instances")"
check_eq "chase: forward + backward = edges" 1 "$(q "SELECT forward_edges + backward_edges = edges AND forward_edges > 0 AND backward_edges > 0 FROM rds_instances")"
check_eq "chase: depth-first walks" "depth-first|1" "$(q "SELECT pattern, rsf FROM rds_instances")"
check_eq "chase: never queued" "0|1" "$(q "SELECT edges_queued, ssg_edges FROM rds_summary")"
check_eq "chase: one creating store, one traversing load" "create|store|1
traverse|load|1" "$(q "SELECT role, i.kind, count(*) FROM rds_instance_insns r JOIN instructions i ON i.id = r.instruction GROUP BY role")"
check_eq "chase: the deleting free's call site" "chase_free" \
  "$(q "SELECT substr(name, 1, instr(name, ':') - 1) FROM rds_instance_frees")"
grep -q "^RDS types 1, instances 1$" "$TMP/out"
check_eq "chase: the report's summary line" 0 $?
# Each node's next field is read right after its payload, in the same line:
# every traversal's load hits D1, at D1's latency.
check_eq "chase: traversals hit D1 (1 cycle)" "1.0" "$(q "SELECT avg_latency FROM rds_instances")"
check_eq "chase: the paper's Table 1 hierarchy by default" \
  "D1 16384,4,64 lat 1 lru; L2 262144,8,128 lat 6 lru; L3 1572864,12,128 lat 13 lru; memory lat 100" \
  "$(q "SELECT cache FROM rds_summary")"
# Another hierarchy: its D1 latency is what every traversal costs.
"$BIN/trace-rds" -q --db "$db" --D1=1K,2,64,3 --L2=2K,2,64,7 --L3=4K,2,64,20 \
  --memory-latency=500 "$t" >/dev/null
check_eq "chase: cache options reach the model" "D1 1024,2,64 lat 3 lru; L2 2048,2,64 lat 7 lru; L3 4096,2,64 lat 20 lru; memory lat 500" \
  "$(q "SELECT cache FROM rds_summary")"
check_eq "chase: and the latency per traversal follows" "3.0" "$(q "SELECT avg_latency FROM rds_instances")"

# ---- bad input ---------------------------------------------------------------------
"$BIN/trace-rds" --threshold=1.5 "$t" >/dev/null 2>"$TMP/err"
check_eq "bad threshold: status 2" 2 $?
check "bad threshold: names it" grep -q "not a threshold in (0, 1\]" "$TMP/err"
head -c 100 "$t" > "$TMP/bad.trace"; printf 'garbage%.0s' {1..200} >> "$TMP/bad.trace"
"$BIN/trace-rds" "$TMP/bad.trace" >/dev/null 2>"$TMP/err"
check_eq "corrupt trace: status 1" 1 $?
check_eq "corrupt trace: one line" 1 "$(wc -l <"$TMP/err")"
"$BIN/trace-rds" "$TMP/missing.trace" >/dev/null 2>"$TMP/err"
check_eq "missing trace: status 1" 1 $?
"$BIN/trace-rds" --preset=nosuch "$t" >/dev/null 2>"$TMP/err"
check_eq "unknown preset: status 2" 2 $?

# Truncated: a warning and a profile marked incomplete; with --strict an
# error and the database as it was.
head -c $(( $(stat -c %s "$t") / 2 )) "$t" > "$TMP/cut.trace"
sum=$(md5sum < "$db")
"$BIN/trace-rds" -q --strict --db "$db" "$TMP/cut.trace" >/dev/null 2>"$TMP/err"
check_eq "truncated, --strict: status 1" 1 $?
check_eq "truncated, --strict: the database as it was" "$sum" "$(md5sum < "$db")"
"$BIN/trace-rds" -q --db "$db" "$TMP/cut.trace" >/dev/null 2>"$TMP/err"
check_eq "truncated: status 0" 0 $?
check "truncated: one warning line" grep -q "warning: truncated" "$TMP/err"
check_eq "truncated: its run is marked incomplete" 0 "$(q "SELECT complete FROM runs ORDER BY id DESC LIMIT 1")"

# ---- recorded samples --------------------------------------------------------------
if [ ! -x "$SAMPLES/rds_shapes" ] || ! command -v valgrind >/dev/null ||
   ! ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1; then
  echo "ok $((_n + 1)) # SKIP rds_shapes, valgrind or the memrec tool missing"
  exit 0
fi
src=$ROOT/samples/rds_shapes.c
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
# run MODE: records rds_shapes MODE into $TMP/MODE.trace, profiles it into $db
run() {
  db=$TMP/$1.db
  record "$TMP/$1.trace" "$SAMPLES/rds_shapes" "$1" 100 >/dev/null
  "$BIN/trace-rds" -q --db "$db" "$TMP/$1.trace" >"$TMP/$1.out" 2>"$TMP/err"
  check_eq "$1: trace-rds exit status" 0 $?
}
# The instances of the sample's own types (ld.so's allocations have theirs).
mine="type IN (SELECT type FROM rds_type_sites WHERE name NOT LIKE '\\_%' ESCAPE '\\')"
mytypes="id IN (SELECT type FROM rds_type_sites WHERE name NOT LIKE '\\_%' ESCAPE '\\')"

run figure2
check_eq "figure2: the tree site is one type of one site" "make_tree@rds_shapes.c:$(line_of 'tree \*t = xmalloc')|1" \
  "$(q "SELECT name, sites FROM rds_types WHERE $mytypes")"
check_eq "figure2: two instances of 3 nodes, 2 forward edges each" "3|3|2|0
3|3|2|0" "$(q "SELECT nodes, live_nodes, forward_edges, backward_edges FROM rds_instances WHERE $mine ORDER BY id")"
check_eq "figure2: the first instance is born before the second" 1 \
  "$(q "SELECT min(birth) < max(birth) AND min(id) = (SELECT id FROM rds_instances WHERE $mine ORDER BY birth LIMIT 1) FROM rds_instances WHERE $mine")"
check_eq "figure2: the array's edges 0->1 and 0->4 queued, never merged" "2|0" \
  "$(q "SELECT edges_queued, edges_dequeued FROM rds_summary")"
check_eq "figure2: the array's site is in no type" 0 \
  "$(q "SELECT count(*) FROM rds_type_sites WHERE name LIKE 'figure2@%' OR name LIKE 'main@%'")"
check_eq "figure2: without trace-objects, no alloc_sites to refer to" 0 \
  "$(q "SELECT count(*) FROM rds_type_sites WHERE site IS NOT NULL")"
"$BIN/trace-objects" -q --db "$db" "$TMP/figure2.trace" && "$BIN/trace-rds" -q --db "$db" "$TMP/figure2.trace" >/dev/null
check_eq "figure2: after trace-objects, every type site is its alloc_sites row" "0|1" \
  "$(q "SELECT count(*) FILTER (WHERE s.id IS NULL OR s.name <> t.name OR s.run <> t.run),
               count(DISTINCT t.run) FROM rds_type_sites t LEFT JOIN alloc_sites s ON s.id = t.site")"

run prepend
check_eq "prepend: one instance, 99 backward edges, none forward" "100|99|0|99" \
  "$(q "SELECT nodes, edges, forward_edges, backward_edges FROM rds_instances WHERE $mine")"
check_eq "prepend: three walks, depth-first" "297|depth-first" \
  "$(q "SELECT accesses, pattern FROM rds_instances WHERE $mine")"
check_eq "prepend: the walk's load traverses it" "walk|$(line_of 'n = n->next')" \
  "$(q "SELECT i.function, i.line FROM rds_instance_insns r JOIN instructions i ON i.id = r.instruction
        WHERE role = 'traverse' AND r.instance IN (SELECT id FROM rds_instances WHERE $mine)")"

run stable
check_eq "stable: 99 forward edges, RSF 1" "99|0|495|1" \
  "$(q "SELECT forward_edges, backward_edges, accesses, rsf FROM rds_instances WHERE $mine")"

run changed
check_eq "changed: a node inserted before each of 5 walks, RSF 5" "105|5" \
  "$(q "SELECT nodes, rsf FROM rds_instances WHERE $mine")"
check_eq "changed: the overwritten head->next edges are gone" 104 \
  "$(q "SELECT live_edges FROM rds_instances WHERE $mine")"

run freed
check_eq "freed: two instances, the first freed entirely" "0|1|100
100|0|100" "$(q "SELECT live_nodes, death IS NOT NULL, nodes FROM rds_instances WHERE $mine ORDER BY id")"
check_eq "freed: the first dies before the second is born" 1 \
  "$(q "SELECT a.death <= b.birth AND a.end_time <= a.death FROM rds_instances a, rds_instances b
        WHERE a.id < b.id AND a.$mine AND b.$mine")"
# (free_list is inlined into main: the line is what is certain)
check_eq "freed: its deleting free" ":$(line_of 'free(n);')" \
  "$(q "SELECT substr(name, instr(name, ':')) FROM rds_instance_frees")"

run mutual
check_eq "mutual: one type of two sites" "2" "$(q "SELECT sites FROM rds_types WHERE $mytypes")"
check_eq "mutual: the sites are new_a and new_b" "new_a new_b" \
  "$(q "SELECT substr(name, 1, 5) FROM rds_type_sites WHERE $mine ORDER BY name" | xargs)"
check_eq "mutual: one instance of 201 objects and 200 edges" "201|200" \
  "$(q "SELECT nodes, edges FROM rds_instances WHERE $mine")"
check_eq "mutual: the first a->b edge waited for the SCC" "1|1" \
  "$(q "SELECT edges_queued, edges_dequeued FROM rds_summary")"

# ---- --values=none ---------------------------------------------------------------
valgrind --tool=memrec -q --values=none --memrec-out-file="$TMP/nv.trace" \
  "$SAMPLES/rds_shapes" stable 10 >/dev/null
"$BIN/trace-rds" "$TMP/nv.trace" >"$TMP/out" 2>"$TMP/err"
check_eq "--values=none: status 1" 1 $?
check "--values=none: one line saying RDS needs pointer values" \
  grep -qx "trace-rds: .*nv.trace: no pointer values recorded (--values=none?): RDS profiling needs them; record with --values=pointers" "$TMP/err"
check_eq "--values=none: one line only" 1 "$(wc -l <"$TMP/err")"

# ---- queries and plots --------------------------------------------------------------
db=$TMP/freed.db
for name in rds_types rds_instances rds_instructions; do
  "$BIN/trace-db" "$db" query $name >"$TMP/q" 2>"$TMP/err"
  check_eq "query $name: status 0" 0 $?
  check "query $name: rows" [ "$(wc -l <"$TMP/q")" -ge 2 ]
done
if command -v gnuplot >/dev/null; then
  for plot in rds_lifetimes rds_live rds_rsf; do
    "$BIN/trace-plot" $plot --db "$db" -o "$TMP/$plot.svg" >/dev/null 2>"$TMP/err"
    check_eq "plot $plot: status 0" 0 $?
    check "plot $plot: an svg" grep -q "<svg" "$TMP/$plot.svg"
  done
fi
