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

# Parallel modelling (format/SPEC.md 6.8): the encoder models on several
# threads with 3 cores or more (MEMREC_ENCODER_WORKERS sets how many, 0 the
# sequential writer). The
# trace is the same for any number of workers; the sequential writer's has
# other chunks but the same events, accesses and definitions. Small chunks
# (MEMREC_ENCODER_CHUNK_BYTES) cut a threaded program's stream into dozens
# of pieces.
[ -x "$SAMPLES/prodcons" ] || skip "prodcons sample not built"
MEMREC_ENCODER_RAW=$TMP/pc.raw record "$TMP/pc.trace" "$SAMPLES/prodcons" >/dev/null
check_eq "prodcons recorded with a raw copy" 0 $?
for w in 0 1 2 3; do
  MEMREC_ENCODER_WORKERS=$w MEMREC_ENCODER_CHUNK_BYTES=65536 \
    "$ENC" --replay "$TMP/pc.raw" "$TMP/pc.w$w" 0 >/dev/null
done
check "workers 1, 2 and 3 write the same bytes" \
  eval 'cmp -s "$TMP/pc.w1" "$TMP/pc.w2" && cmp -s "$TMP/pc.w1" "$TMP/pc.w3"'
check "... which differ from the sequential writer's (other chunks)" \
  eval '! cmp -s "$TMP/pc.w0" "$TMP/pc.w2"'
chunks=$("$BIN/trace-info" --json "$TMP/pc.w2" | jq .chunks)
check "many chunks ($chunks)" [ "$chunks" -gt 40 ]
# events DUMP: the dump's events and their accesses; defs DUMP: its
# definitions and their parts, without time and thread (a definition is
# delivered at the start of its chunk, with the chunk's).
DEFS='^(process|module|dataobj|symbol|block|stack|thread-os)$'
events() { "$BIN/trace-dump" "$1" | awk -v d="$DEFS" '!/^ / { def = $3 ~ d } !def'; }
defs() { "$BIN/trace-dump" "$1" | awk -v d="$DEFS" '!/^ / { def = $3 ~ d; if (def) $1 = $2 = "" } def'; }
events "$TMP/pc.w0" > "$TMP/pc.ev0"
events "$TMP/pc.w2" > "$TMP/pc.ev2"
check "sequential and parallel: the same events and accesses ($(wc -l <"$TMP/pc.ev2") lines)" \
  cmp -s "$TMP/pc.ev0" "$TMP/pc.ev2"
check "... and switches between threads among them" grep -q ' switch ' "$TMP/pc.ev2"
check "sequential and parallel: the same definitions" \
  eval 'cmp -s <(defs "$TMP/pc.w0") <(defs "$TMP/pc.w2")'
check_eq "parallel: the end totals match the events" true \
  "$("$BIN/trace-info" --json "$TMP/pc.w2" | jq .totals_match)"
MEMREC_ENCODER_WORKERS=2 record "$TMP/pc2.trace" "$SAMPLES/prodcons" >/dev/null
check_eq "a recording with 2 workers: complete, totals match" "false true" \
  "$("$BIN/trace-info" --json "$TMP/pc2.trace" | jq -r '"\(.truncated) \(.totals_match)"')"

# The first half of the raw copy: whole slots up to some point, then a cut.
head -c $(( $(stat -c %s "$TMP/raw") / 2 )) "$TMP/raw" > "$TMP/half"
"$ENC" --replay "$TMP/half" "$TMP/half.trace" 0 >/dev/null
check_eq "half a raw copy: exit status" 0 $?
check_eq "half a raw copy: a trace cut short (lost), readable" "true" \
  "$("$BIN/trace-info" --json "$TMP/half.trace" 2>/dev/null | jq -r .truncated)"

"$ENC" --replay "$TMP/none" "$TMP/none.trace" 0 >/dev/null 2>"$TMP/err"
check_eq "a missing raw file: exit status 1" 1 $?
check_eq "... and one line naming it" "memrec-encoder: $TMP/none: No such file or directory" "$(cat "$TMP/err")"

# The raw copy also shows what the tool sends that no reader delivers yet:
# each thread's OS thread id (WIRE_THREAD_OS, written as a THREAD
# definition, which readers skip until they use it). A main thread and 4
# threads one after the other (Valgrind gives the last three the id of the
# first, 2, again) each print their gettid().
cat > "$TMP/thr.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static void *run(void *a) { (void)a; printf("%ld\n", (long)syscall(SYS_gettid)); fflush(stdout); return NULL; }
int main(void)
{
    printf("%ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    for (int i = 0; i < 4; i++) {
        pthread_t t;
        pthread_create(&t, NULL, run, NULL);
        pthread_join(t, NULL);
    }
    return 0;
}
EOF
cc -O1 -pthread -o "$TMP/thr" "$TMP/thr.c"
MEMREC_ENCODER_RAW=$TMP/thr.raw record "$TMP/thr.trace" "$TMP/thr" > "$TMP/thr.out"
check_eq "threads recorded" 0 $?
# os_tids RAW: "tid os_tid" of each WIRE_THREAD_OS record (tag 15), found by
# walking the records (wire.h): an execution's length comes from its
# block's definition (tag 6).
os_tids() {
  python3 - "$1" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
words, pos = [], 0
while pos < len(data):
    n = struct.unpack_from('<Q', data, pos)[0]
    words.extend(struct.unpack_from('<%dQ' % n, data, pos + 8))
    pos += 8 + 8 * n
length, i = {}, 0
while i < len(words):
    h = words[i]
    if h & 0xff == 1:                       # WIRE_EXEC
        i += 1 + length[h >> 24]
        continue
    n, aux = (h >> 8) & 0xffffff, h >> 32
    p = words[i + 1:i + 1 + n]
    if h & 0xff == 6:                       # WIRE_BLOCK_DEF: addr, ninstrs, naccesses, nexits, ...
        acc = p[4 + p[1]:4 + p[1] + p[2]]
        length[aux] = p[2] + sum(1 for a in acc if (a >> 24) & 1)
    elif h & 0xff == 15:                    # WIRE_THREAD_OS
        print(p[0], p[1])
    i += 1 + n
EOF
}
os_tids "$TMP/thr.raw" > "$TMP/thr.os"
check_eq "each thread's OS thread id, once, as it first runs: the main thread's, then thread 2's four times" \
  "1 $(sed -n 1p "$TMP/thr.out") $(sed -n '2,$p' "$TMP/thr.out" | sed 's/^/2 /' | paste -sd' ')" \
  "$(paste -sd' ' "$TMP/thr.os")"
check_eq "readers skip the THREAD definitions: trace-info reads the whole trace, 2 threads" "false true 2" \
  "$("$BIN/trace-info" --json "$TMP/thr.trace" | jq -r '"\(.truncated) \(.totals_match) \(.threads)"')"
echo "1..$_n"
