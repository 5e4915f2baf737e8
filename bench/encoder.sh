#!/usr/bin/env bash
# The encoder alone, on real programs' raw streams: gzip -9 of 1 MB of C
# headers and sqlite3 with 20 K rows are each recorded once with
# MEMREC_ENCODER_RAW (the encoder keeps a copy of every slot the tool hands
# it), then `memrec-encoder --replay` encodes that stream again RUNS times
# (default 3) without Valgrind, with the sequential writer and with 2
# modelling workers (format/SPEC.md 6.8). The sequential replay must be byte
# for byte the recorded trace. Printed per program: the raw stream's size,
# the executions, and for each writer the median CPU seconds of a replay
# (its threads included), per execution, the median wall time, and the
# trace's size. On a real program the encoder, not the instrumentation, sets the
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

# replay NAME WHAT COMMAND...: records the command's raw stream once
# (sequential writer), replays it RUNS times with the sequential writer and
# RUNS times with 2 modelling workers (format/SPEC.md 6.8), alternating,
# checks the bytes and prints the figures of both.
replay() {
  local name=$1 what=$2; shift 2
  rm -f "$TMP/raw" "$TMP"/cpu.* "$TMP"/wall.*
  MEMREC_ENCODER_WORKERS=0 MEMREC_ENCODER_RAW=$TMP/raw valgrind --tool=memrec -q \
    --memrec-out-file="$TMP/rec.trace" "$@" >/dev/null || die "recording $name failed"
  for _ in $(seq "$RUNS"); do
    for w in 0 2; do
      rm -f "$TMP/replay$w.trace"
      { TIMEFORMAT=%3R; time MEMREC_ENCODER_WORKERS=$w "$ENC" --replay "$TMP/raw" "$TMP/replay$w.trace" 0 |
          awk '{ print $1 }' >> "$TMP/cpu.$w"; } 2>> "$TMP/wall.$w" || die "replay failed"
    done
  done
  cmp -s "$TMP/rec.trace" "$TMP/replay0.trace" ||
    die "the replayed trace of $name differs from the recorded one"
  [ "$("$BUILD/bin/trace-info" --json "$TMP/replay2.trace" | jq .totals_match)" = true ] ||
    die "the parallel replay of $name does not read back"
  local execs raw
  execs=$("$BUILD/bin/trace-info" --json "$TMP/rec.trace" | jq .blocks)
  raw=$(stat -c %s "$TMP/raw")
  for w in 0 2; do
    awk -v c="$(median < "$TMP/cpu.$w")" -v wall="$(median < "$TMP/wall.$w")" -v e="$execs" -v r="$raw" \
        -v t="$(stat -c %s "$TMP/replay$w.trace")" -v what="$what" -v w="$w" 'BEGIN {
      if (w == 0) printf "encoder replay of %s: %.0f MB raw, %d executions\n", what, r / 1e6, e
      printf "  %-22s median %.3f CPU s (%.1f ns per execution), %.3f s wall, %.0f MB/s of raw stream -> %d bytes\n",
        (w == 0 ? "sequential writer:" : "2 modelling workers:"), c, 1e9 * c / e, wall, r / 1e6 / wall, t }'
  done
}

replay gzip "gzip -9 (1 MB)" gzip -9 -c "$TMP/text"
# Most of sqlite3's executions carry values (pointers): the other shape.
replay sqlite3 "sqlite3 (20 K rows)" sqlite3 -init "$TMP/rows.sql" :memory: </dev/null
