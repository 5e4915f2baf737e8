#!/usr/bin/env bash
# demo.sh (make demo): records the samples with memrec, profiles each with
# trace-objects into one database, $MEMREC_BUILD/demo/profile.db, prints a
# few canned query results and draws the plots into $MEMREC_BUILD/demo/.
#   MEMREC_BUILD   the build directory (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${MEMREC_BUILD:-build}
BIN=$BUILD/bin
OUT=$BUILD/demo
DB=$OUT/profile.db
export VALGRIND_LIB=$PWD/$BUILD/valgrind
case $BUILD in /*) export VALGRIND_LIB=$BUILD/valgrind;; esac
export MEMREC_PLOTS=$PWD/plots

for c in trace-objects trace-mempat trace-cache trace-layout trace-wpp trace-whomp trace-rds trace-twpp trace-redundancy trace-dataflow trace-db trace-plot; do
  [ -x "$BIN/$c" ] || { echo "demo: $BIN/$c is missing: run make first" >&2; exit 1; }
done
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 ||
  { echo "demo: the memrec tool is not built in $VALGRIND_LIB" >&2; exit 1; }
mkdir -p "$OUT"
rm -f "$DB" "$OUT"/*.png "$OUT"/*.svg

# name and arguments: small sizes, so the demo takes seconds, not minutes
samples=(
  "linked_list 2000 1"      # shuffled list: pointer chasing over one group
  "binary_tree 3000"        # tree nodes: inserted, searched, freed
  "struct_array 20000 3"    # array of records swept field by field
  "matrix 200 2"            # rows then columns
  "stencil 17 4"            # Himeno-style Jacobi over 14 arrays
  "prodcons 2000"           # two threads through a ring buffer
  "static_arrays 2"         # static and global arrays, found by their symbols
  "layout_split 20000 4"    # LWPTool's Fig. 1a: a structure to split
  "layout_regroup16 20000 4" # LWPTool's Fig. 1b: 16 arrays to interleave
  "rds_shapes changed 500"  # a list changed between its walks (RDS stability)
)
echo "== recording and profiling into $DB"
for s in "${samples[@]}"; do
  set -- $s
  name=$1; shift
  [ -x "$BUILD/samples/$name" ] || { echo "   $name: not built, skipped"; continue; }
  trace=$OUT/$name.trace
  valgrind --tool=memrec -q --memrec-out-file="$trace" "$BUILD/samples/$name" "$@" >/dev/null
  # the stencil's 14 arrays come from one helper, grid(): two frames
  # of the allocation stack tell them apart
  depth=1; [ "$name" = stencil ] && depth=2
  "$BIN/trace-objects" -q --group-depth=$depth --db "$DB" "$trace"
  # Exana's access patterns of every memory instruction, into the same run
  "$BIN/trace-mempat" -q --db "$DB" "$trace" >/dev/null
  # the RDS paper's cache hierarchy (Table 1): misses, latency, curves
  "$BIN/trace-cache" -q --preset=rds --group-depth=$depth --db "$DB" "$trace" >/dev/null
  # LWPTool's layout advice with its predicted gain (lwptool hierarchy)
  "$BIN/trace-layout" -q --group-depth=$depth --db "$DB" "$trace" >/dev/null
  # Larus's whole program path and WHOMP's object-relative grammars
  "$BIN/trace-wpp" -q --db "$DB" "$trace"
  "$BIN/trace-whomp" -q --group-depth=$depth --db "$DB" "$trace"
  # the samples with linked structures: RDS types, instances, stability
  case $name in linked_list|binary_tree|rds_shapes)
    "$BIN/trace-rds" -q --db "$DB" "$trace" >/dev/null;; esac
  # Zhang and Gupta's timestamped whole program path, beside the trace
  "$BIN/trace-twpp" -q -o "${trace%.*}.twpp" --db "$DB" "$trace" >/dev/null
  # redundant loads and stores (the direct pass; the .twpp file gives the same)
  "$BIN/trace-redundancy" -q --db "$DB" "$trace" >/dev/null
  printf '   %-13s %s\n' "$name" "$(du -h "$trace" | cut -f1) trace"
done

run_of() { sqlite3 "$DB" "SELECT max(id) FROM runs WHERE command LIKE '%/$1 %' OR command LIKE '%/$1'"; }
query() {  # title, query name, options
  echo
  echo "== $1"
  shift
  "$BIN/trace-db" "$DB" query "$@" | sed 's/^/   /'
}

echo
echo "== runs"
"$BIN/trace-db" "$DB" runs | cut -c1-150 | sed 's/^/   /'
list=$(run_of linked_list) tree=$(run_of binary_tree) sa=$(run_of struct_array)
stencil=$(run_of stencil) pc=$(run_of prodcons) st=$(run_of static_arrays)
rds=$(run_of "rds_shapes changed 500")
[ -n "$list" ] && query "linked_list: hottest groups" hot_groups --run="$list" --limit=5
[ -n "$list" ] && query "linked_list: the fields of the node group by heat" group_fields --run="$list"
[ -n "$list" ] && query "linked_list: instructions that touch many nodes" insn_many_objects --run="$list" --limit=6
[ -n "$sa" ] && query "struct_array: the instructions sweeping the record array" group_instructions --run="$sa" --limit=8
[ -n "$tree" ] && query "binary_tree: memory traffic per function" function_traffic --run="$tree" --limit=6
[ -n "$stencil" ] && query "stencil (--group-depth=2): hottest groups" hot_groups --run="$stencil" --limit=8
[ -n "$stencil" ] && query "stencil: never-freed heap objects by site" never_freed --run="$stencil" --limit=6
[ -n "$pc" ] && query "prodcons: traffic per thread" thread_traffic --run="$pc"
[ -n "$st" ] && query "static_arrays: hottest objects (static ones by symbol)" hot_objects --run="$st" --limit=5
[ -n "$stencil" ] && query "stencil: share of accesses per MemPat kind" mempat_coverage --run="$stencil"
[ -n "$stencil" ] && query "stencil: the most complex MemPat patterns" mempat_complex --run="$stencil" --limit=5
[ -n "$list" ] && query "linked_list: groups by simulated cache latency (RDS hierarchy)" cache_worst_groups --run="$list" --limit=5
ls_=$(run_of layout_split) lr=$(run_of layout_regroup16)
[ -n "$ls_" ] && query "layout_split: trace-layout's advice, best predicted gain first" layout_advice --run="$ls_"
[ -n "$lr" ] && query "layout_regroup16: trace-layout's advice" layout_advice --run="$lr"
[ -n "$ls_" ] && query "layout_split: loops and the fields they touch" layout_loops --run="$ls_" --limit=4
[ -n "$list" ] && query "linked_list: hot subpaths of its whole program path" hot_subpaths --run="$list" --limit=5
query "WHOMP: object-relative grammars (OMSG) against raw address grammars (RASG)" whomp_sizes
[ -n "$tree" ] && query "binary_tree: recursive data structure types (RDS Table 3)" rds_types --run="$tree"
[ -n "$rds" ] && query "rds_shapes changed: RDS instances and their stability" rds_instances --run="$rds" --limit=5
[ -n "$stencil" ] && query "stencil: TWPP part by part against the WPP and Sequitur" twpp_sizes --run="$stencil"
[ -n "$list" ] && query "linked_list: redundant loads per instruction (Figure 5.4)" redundancy_loads --run="$list"
[ -n "$list" ] && query "linked_list: the most redundant instructions" redundancy_top --run="$list" --limit=5
for tw in "$OUT"/stencil*.twpp; do
  [ -e "$tw" ] || continue
  echo
  echo "== stencil: Table 5.1 (trace-dataflow on its .twpp file)"
  "$BIN/trace-dataflow" --top 4 "$tw" | sed 's/^/   /'
  break
done

echo
echo "== plots in $OUT"
plot() {  # file, trace-plot arguments
  local f=$1; shift
  if "$BIN/trace-plot" "$@" --db "$DB" -o "$OUT/$f" >/dev/null; then
    echo "   $OUT/$f"
  else
    echo "   $f: not drawn"
  fi
}
[ -n "$list" ] && plot linked_list-offsets.png offsets --run="$list"
[ -n "$list" ] && plot linked_list-lifetimes.png lifetimes --run="$list"
[ -n "$tree" ] && plot binary_tree-lifetimes.png lifetimes --run="$tree"
[ -n "$tree" ] && plot binary_tree-offsets.png offsets --run="$tree"
[ -n "$sa" ] && plot struct_array-offsets.png offsets --run="$sa"
[ -n "$stencil" ] && plot stencil-groups.png groups --run="$stencil"
[ -n "$pc" ] && plot prodcons-groups.svg groups --run="$pc"
[ -n "$stencil" ] && plot stencil-cache-curves.png cache_curves --run="$stencil"
[ -n "$list" ] && plot linked_list-cache-groups.png cache_groups --run="$list"
[ -n "$ls_" ] && plot layout_split-affinity.png layout_affinity --run="$ls_"
[ -n "$ls_" ] && plot layout_split-fields.png layout_fields --run="$ls_"
plot whomp-omsg-rasg.png whomp
[ -n "$stencil" ] && plot stencil-hotpaths.png hotpaths --run="$stencil"
[ -n "$stencil" ] && plot stencil-twpp.png twpp --run="$stencil"
[ -n "$list" ] && plot linked_list-redundant-loads.png redundancy_loads --run="$list"
[ -n "$list" ] && plot linked_list-redundant-stores.png redundancy_stores --run="$list"

# LEAP (trace-leap) against the exact and Connors dependence profilers
# (trace-deps), on the samples built with known dependences and strides:
# the paper's Figures 6-9 and Table 1, in a database of their own.
LDB=$OUT/leap.db
rm -f "$LDB"
echo
echo "== LEAP and its baselines into $LDB"
for s in "deps_known 50000" "strides_known 50000" "stencil 17 4"; do
  set -- $s
  name=$1; shift
  [ -x "$BUILD/samples/$name" ] && [ -x "$BIN/trace-leap" ] || continue
  trace=$OUT/$name.trace
  [ -e "$trace" ] || valgrind --tool=memrec -q --memrec-out-file="$trace" "$BUILD/samples/$name" "$@" >/dev/null
  "$BIN/trace-deps" -q --db "$LDB" "$trace" >/dev/null
  "$BIN/trace-deps" -q --method=connors --db "$LDB" "$trace" >/dev/null
  "$BIN/trace-leap" -q --db "$LDB" "$trace" >/dev/null
  run=$(sqlite3 "$LDB" "SELECT max(id) FROM runs")
  echo "   $name: run $run"
  echo "   -- pairs within 10% of the exact frequency, this program's code (Figure 8)"
  "$BIN/trace-db" "$LDB" query leap_accuracy --run="$run" --param file="%$name.c" | sed 's/^/      /'
  echo "   -- strongly strided instructions found (Figure 9)"
  "$BIN/trace-db" "$LDB" query leap_strides --run="$run" --param file="%$name.c" | sed 's/^/      /'
  if "$BIN/trace-plot" leap_errors --run="$run" --db "$LDB" -o "$OUT/$name-leap_errors.png" >/dev/null; then
    echo "   $OUT/$name-leap_errors.png"
  fi
done
if [ -e "$LDB" ]; then
  echo "   -- Table 1"
  "$BIN/trace-db" "$LDB" query leap_table1 | cut -c1-150 | sed 's/^/      /'
  "$BIN/trace-plot" leap_strides --db "$LDB" -o "$OUT/leap_strides.png" >/dev/null &&
    echo "   $OUT/leap_strides.png"
fi
[ -n "$tree" ] && plot binary_tree-rds-live.png rds_live --run="$tree"
[ -n "$rds" ] && plot rds_shapes-rds-rsf.png rds_rsf --run="$rds"

# Zhang's type-based value profiling needs every value: the linked
# structures recorded again with --values=all, into the same database.
if [ -x "$BIN/trace-values" ]; then
  echo
  echo "== value profiles (--values=all) into $DB"
  for s in "linked_list 2000 1" "binary_tree 3000" "struct_array 20000 3"; do
    set -- $s
    name=$1; shift
    [ -x "$BUILD/samples/$name" ] || continue
    trace=$OUT/$name-values.trace
    valgrind --tool=memrec -q --values=all --memrec-out-file="$trace" "$BUILD/samples/$name" "$@" >/dev/null
    "$BIN/trace-values" -q --db "$DB" "$trace" >/dev/null
    echo "   $name: run $(sqlite3 "$DB" "SELECT max(run) FROM value_runs")"
  done
  query "value classes per run (Zhang, Figure 8.2: 59% compressible on average)" values_runs
  vrun=$(sqlite3 "$DB" "SELECT max(run) FROM value_runs v JOIN runs r ON r.id = v.run WHERE r.command LIKE '%/linked_list %'")
  [ -n "$vrun" ] && query "linked_list: the fields to compress and the bytes saved" values_selected --run="$vrun" --limit=6
  plot values-bits.png values_bits
  plot values-fitting.png values_fitting
fi
if [ -x "$BUILD/samples/slice_fig56" ] && [ -x "$BIN/trace-slice" ]; then
  echo
  echo "== Figure 5.6's dynamic slices for Z at (16) (docs/trace-slice.md)"
  trace=$OUT/slice_fig56.trace
  valgrind --tool=memrec -q --memrec-out-file="$trace" "$BUILD/samples/slice_fig56" >/dev/null
  "$BIN/trace-twpp" -q "$trace" >/dev/null
  "$BIN/trace-slice" -q --at "main:$(grep -n '/\* (16) \*/' samples/slice_fig56.c | cut -d: -f1)" \
    --var Z "$trace.twpp" | grep -E '^[a-z]|^  (main|f2|f3|inout):' | sed 's/^/   /'
fi
echo
echo "Explore further: $BIN/trace-db $DB queries, or sqlite3 $DB < sql/queries/NAME.sql"
