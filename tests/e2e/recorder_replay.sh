#!/usr/bin/env bash
# The encoder's raw copy and replay (bench/encoder.sh measures the encoder
# with them): MEMREC_ENCODER_RAW keeps every slot the tool hands over, and
# `memrec-encoder --replay RAW OUT LEVEL` encodes it again into the same
# bytes; a raw copy cut short gives a trace cut short (lost); a missing
# raw file is one error line.
source "$(dirname "$0")/lib.sh"

ENC=$VALGRIND_LIB/memrec-encoder
[ -x "$ENC" ] || skip "$ENC not built"
[ -x "$BIN/trace-info" ] || skip "$BIN/trace-info not built"
command -v valgrind >/dev/null || skip "valgrind not installed"

MEMREC_ENCODER_RAW=$TMP/raw record "$TMP/rec.trace" "$SAMPLES/linked_list" 2000 1 >/dev/null
check_eq "recorded with a raw copy" 0 $?
check "the raw copy holds the stream (more bytes than the trace)" \
  [ "$(stat -c %s "$TMP/raw")" -gt "$(stat -c %s "$TMP/rec.trace")" ]
out=$("$ENC" --replay "$TMP/raw" "$TMP/replay.trace" 0)
check_eq "replay: exit status" 0 $?
check "replay: prints its CPU seconds ($out)" grep -qE '^[0-9]+\.[0-9]{3} CPU seconds$' <<<"$out"
check "replay: the same trace, byte for byte" cmp -s "$TMP/rec.trace" "$TMP/replay.trace"

# The first half of the raw copy: whole slots up to some point, then a cut.
head -c $(( $(stat -c %s "$TMP/raw") / 2 )) "$TMP/raw" > "$TMP/half"
"$ENC" --replay "$TMP/half" "$TMP/half.trace" 0 >/dev/null
check_eq "half a raw copy: exit status" 0 $?
check_eq "half a raw copy: a trace cut short (lost), readable" "true" \
  "$("$BIN/trace-info" --json "$TMP/half.trace" 2>/dev/null | jq -r .truncated)"

"$ENC" --replay "$TMP/none" "$TMP/none.trace" 0 >/dev/null 2>"$TMP/err"
check_eq "a missing raw file: exit status 1" 1 $?
check_eq "... and one line naming it" "memrec-encoder: $TMP/none: No such file or directory" "$(cat "$TMP/err")"
echo "1..$_n"
