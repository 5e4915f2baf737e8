#!/usr/bin/env bash
# The encoder alone, on real programs' raw streams: gzip -9 of 1 MB of C
# headers and sqlite3 with 20 K rows are each recorded once with
# MEMREC_ENCODER_RAW (the encoder keeps a copy of every slot the tool hands
# it), then `memrec-encoder --replay` encodes that stream again RUNS times
# (default 3) without Valgrind. The replayed trace must be byte for byte the
# recorded one. Printed per program: the raw stream's size, the executions,
# the median CPU seconds of a replay (its background thread included) and
# what they make per execution and per raw byte. On a real program the encoder, not the instrumentation, sets the
# recording's speed (recorder/README.md); this is its steady figure.
set -u
. "$(dirname "$0")/lib/bench.sh"
bench_init encoder
ENC=$VALGRIND_LIB/memrec-encoder
[ -x "$VALGRIND_LIB/memrec-amd64-linux" ] && [ -x "$ENC" ] || die "the recorder is not built (make all first)"
[ -x "$BUILD/bin/trace-info" ] || die "$BUILD/bin/trace-info is missing (make all first)"
for c in gzip sqlite3 jq; do command -v "$c" >/dev/null || die "$c is missing (make deps)"; done

find /usr/include -type f -name '*.h' | LC_ALL=C sort | xargs cat 2>/dev/null |
  head -c 1000000 > "$TMP/text"
sqlite_rows_script 20000 "$TMP/rows.sql"

# replay NAME WHAT COMMAND...: records the command's raw stream once,
# replays it RUNS times, checks the bytes and prints the figures.
replay() {
  local name=$1 what=$2; shift 2
  rm -f "$TMP/raw" "$TMP/cpu"
  MEMREC_ENCODER_RAW=$TMP/raw valgrind --tool=memrec -q --memrec-out-file="$TMP/rec.trace" \
    "$@" >/dev/null || die "recording $name failed"
  for _ in $(seq "$RUNS"); do
    rm -f "$TMP/replay.trace"
    "$ENC" --replay "$TMP/raw" "$TMP/replay.trace" 0 | awk '{ print $1 }' >> "$TMP/cpu" ||
      die "replay failed"
  done
  cmp -s "$TMP/rec.trace" "$TMP/replay.trace" ||
    die "the replayed trace of $name differs from the recorded one"
  local cpu execs raw
  cpu=$(sort -g "$TMP/cpu" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  execs=$("$BUILD/bin/trace-info" --json "$TMP/rec.trace" | jq .blocks)
  raw=$(stat -c %s "$TMP/raw")
  awk -v c="$cpu" -v e="$execs" -v r="$raw" -v t="$(stat -c %s "$TMP/rec.trace")" -v what="$what" 'BEGIN {
    printf "encoder replay of %s: %.0f MB raw, %d executions -> %.1f MB trace\n", what, r / 1e6, e, t / 1e6
    printf "  median %.3f CPU s: %.1f ns per execution, %.0f MB/s of raw stream\n", c, 1e9 * c / e, r / 1e6 / c }'
}

replay gzip "gzip -9 (1 MB)" gzip -9 -c "$TMP/text"
# Most of sqlite3's executions carry values (pointers): the other shape.
replay sqlite3 "sqlite3 (20 K rows)" sqlite3 -init "$TMP/rows.sql" :memory: </dev/null
