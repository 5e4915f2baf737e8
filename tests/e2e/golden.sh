#!/usr/bin/env bash
# Behaviour stays: every command's output on stored recordings and on
# synthetic traces is byte-identical to what the release before the
# tools/lib restructuring printed (tests/data/golden/, made by that
# release's build with GOLDEN_REGEN=1). Outputs up to 64 KiB are kept
# whole (NAME.out: a difference prints its diff); longer ones as their
# SHA-256 and line count (NAME.sum), to keep the repository small.
#   GOLDEN_REGEN=1 BIN=/path/to/old/bin bash tests/e2e/golden.sh
# rewrites the expected files instead of checking them. A deliberate change
# of output regenerates them with the current build, and its commit says
# why (code without symbols named module+0xOFF, not 0xADDR).
source "$(dirname "$0")/lib.sh"
golden=$ROOT/tests/data/golden
cd "$TMP"
# Stored traces: recordings, and synthetic ones as the release before wrote
# them (trace-synth --pattern=mixed --accesses=60000 --chunk-bytes=8192,
# --pattern=threads --accesses=40000, and the first half of the mixed one):
# what is compared is how they read, not how a later writer packs them.
cp "$ROOT"/tests/data/linked_list.mrt "$ROOT"/tests/data/binary_tree.mrt \
   "$ROOT"/tests/data/prodcons.mrt "$ROOT"/tests/data/mixed.mrt \
   "$ROOT"/tests/data/threads.mrt .
cp "$ROOT"/tests/data/mixed-cut.mrt cut.mrt

# The profile database's rows, minus what differs between runs of the same
# command (the trace's absolute path, commit times).
db_rows() {
  sqlite3 "$1" "SELECT id, command, pid, started, instructions, loads, stores FROM runs ORDER BY id;
    SELECT run, name, options FROM analyses ORDER BY run, name;" &&
  for t in instructions alloc_sites objects object_offsets instr_groups threads access_samples mempat; do
    echo "== $t"; sqlite3 "$1" "SELECT * FROM $t ORDER BY rowid"
  done
}

# name | command (run in $TMP; stdout and stderr are compared, and the status)
cases() {
  for t in linked_list binary_tree prodcons mixed threads cut; do
    cat <<EOC
info-$t|trace-info $t.mrt
infojson-$t|trace-info --json $t.mrt
dump-$t|trace-dump $t.mrt
lackey-$t|trace-dump --format=lackey $t.mrt
objrel-$t|trace-objrel $t.mrt
objects-$t|trace-objects $t.mrt
objects2-$t|trace-objects --group-depth=2 --top=5 $t.mrt
translate-$t|trace-objects --translate-only $t.mrt
mempat-$t|trace-mempat $t.mrt
mempatsym-$t|trace-mempat --symbolize --max-patterns=3 $t.mrt
EOC
  done
  for t in linked_list prodcons mixed; do
    cat <<EOC
db-$t|trace-objects -q --db $t.db $t.mrt && trace-mempat -q --db $t.db $t.mrt >/dev/null && db_rows $t.db
EOC
    for q in hot_groups hot_objects group_fields group_instructions never_freed thread_traffic mempat_coverage function_traffic; do
      echo "query-$q-$t|trace-db $t.db query $q"
    done
  done
}

summary() { echo "$(sha256sum < "$1" | cut -d' ' -f1) $(wc -l < "$1") lines"; }

run_case() {  # command -> its output and status, as the golden files hold them
  ( PATH=$BIN:$PATH; eval "$1" ) 2>&1; echo "status $?"
}

if [ -n "${GOLDEN_REGEN:-}" ]; then
  mkdir -p "$golden"
  rm -f "$golden"/*.out "$golden"/*.sum
  cases | while IFS='|' read -r name cmd; do
    run_case "$cmd" > "$name.got"
    if [ "$(stat -c %s "$name.got")" -le 65536 ]; then cp "$name.got" "$golden/$name.out"
    else summary "$name.got" > "$golden/$name.sum"; fi
  done
  echo "wrote $(ls "$golden" | wc -l) files into $golden"
  exit 0
fi
while IFS='|' read -r name cmd; do
  run_case "$cmd" > "$name.got"
  if [ -f "$golden/$name.out" ]; then
    if cmp -s "$golden/$name.out" "$name.got"; then ok "$name"
    else fail "$name: $cmd"; diff "$golden/$name.out" "$name.got" | head -n 10 | sed 's/^/#   /'; fi
  elif [ -f "$golden/$name.sum" ]; then
    check_eq "$name (long output, by checksum): $cmd" "$(cat "$golden/$name.sum")" "$(summary "$name.got")"
  else fail "$name: no golden file"; fi
done < <(cases)
