#!/usr/bin/env bash
# A trace that cannot be written to the end: the file size limit (ulimit -f,
# write() fails with EFBIG) or a full filesystem (ENOSPC) partway through a
# recording, and an output that is full from the first byte (/dev/full).
# The recorded program must behave as without memrec (same output, same
# exit status); memrec says so in exactly one line on stderr naming the
# trace and the error; no encoder is left running; the file keeps every
# chunk written before the failure, which trace-info and trace-dump read
# as a truncated trace without an error. Also: the smallest ring, which a
# small limit brings, takes the largest records a program can cause.
source "$(dirname "$0")/lib.sh"

# The shuffled list walk records some 13 MB of trace (glibc's malloc included).
prog=("$SAMPLES/linked_list" 100000 1)
"${prog[@]}" >"$TMP/native.out"
native_rc=$?

# cut_run NAME LIMIT-KIB|- TRACE: records prog into TRACE under `ulimit -f
# LIMIT-KIB` (sets the hard limit too, as a user would; "-": no limit), in
# a subshell so the limit stays there; stdout, stderr, status in $TMP/NAME.*,
# and in $TMP/NAME.left the encoders of TRACE still running when it ended
# (the tool waits for its encoder's exit; "[m]" keeps pgrep's caller out).
# The timeout catches a hang.
cut_run() {
  local name=$1 limit=$2 trace=$3
  ( [ "$limit" = - ] || ulimit -f "$limit"
    timeout 120 valgrind --tool=memrec -q --memrec-out-file="$trace" "${prog[@]}" \
      >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $? >"$TMP/$name.rc" )
  pgrep -f "[m]emrec-encoder $trace " >"$TMP/$name.left"
}
# check_cut NAME TRACE ERROR [WRITTEN]: what a demanding user expects of a
# recording cut short by ERROR (strerror's text); WRITTEN is where the
# encoder wrote TRACE (default: there).
check_cut() {
  local name=$1 trace=$2 error=$3 written=${4:-$2}
  check_eq "$name: the program's exit status is its own" "$native_rc" "$(cat "$TMP/$name.rc")"
  check "$name: the program's output is its own" cmp -s "$TMP/native.out" "$TMP/$name.out"
  check_eq "$name: one line on stderr" 1 "$(wc -l <"$TMP/$name.err")"
  check "$name: it names the trace and the error" \
    grep -qE "^memrec: $written: .*$error.*; the trace is cut short$" "$TMP/$name.err"
  check "$name: no encoder left running" [ ! -s "$TMP/$name.left" ]
  local json
  json=$("$BIN/trace-info" --json "$trace" 2>"$TMP/$name.info.err")
  check_eq "$name: trace-info reads the trace (status 0)" 0 $?
  check_eq "$name: trace-info reports it truncated" true "$(jq -r .truncated <<<"$json")"
  check "$name: trace-info's stderr is one truncation warning" \
    grep -qx "trace-info: $trace: warning: truncated: .*; using the events before it" \
    "$TMP/$name.info.err"
  local instr
  instr=$(jq -r .instructions <<<"$json")
  check "$name: the chunks before the cut hold events ($instr of $full_instr instructions)" \
    [ "${instr:-0}" -gt 0 -a "${instr:-0}" -lt "$full_instr" ]
  check "$name: trace-dump reads it through to the cut (status 0)" \
    bash -c "'$BIN/trace-dump' '$trace' >/dev/null 2>&1"
}

# The complete trace, recorded as the others are.
cut_run full - "$TMP/full.trace"
full_size=$(stat -c %s "$TMP/full.trace")
full_instr=$("$BIN/trace-info" --json "$TMP/full.trace" | jq -r .instructions)
echo "# complete trace: $full_size bytes, $full_instr instructions"
check_eq "no limit: the trace is complete" false \
  "$("$BIN/trace-info" --json "$TMP/full.trace" | jq -r .truncated)"

# ---- the file size limit ------------------------------------------------------
# 2 MiB is below the 8 MiB ring the tool shares with the encoder, which is
# a memfd, and the kernel applies the limit to a memfd too: a ring that does
# not fit used to kill Valgrind with SIGXFSZ before the program ran. The ring
# now shrinks to fit; the encoder ignores SIGXFSZ, so its write fails with
# EFBIG and the file stops at exactly the limit.
cut_run fsize 2048 "$TMP/fsize.trace"
check_cut fsize "$TMP/fsize.trace" "File too large"
check_eq "fsize: the trace fills the limit" $((2048 * 1024)) "$(stat -c %s "$TMP/fsize.trace" 2>/dev/null)"

# A limit 128 KiB below the complete trace: the cut falls in what the
# encoder writes after the program ended (the last events chunk, some
# 880 KB here, the end record, the footer index), so the failure comes
# from closing the trace. The margin covers the size's variation from run
# to run: with glibc's malloc recorded, heap addresses move with the
# environment and the trace by up to some 30 KB (4 KiB let a run fit).
cut_run close $(((full_size - 131072) / 1024)) "$TMP/close.trace"
check_cut close "$TMP/close.trace" "File too large"

# A limit too small even for the smallest ring (4 slots of 128 KiB): memrec
# stops before the program runs, as for an unwritable output, in one line.
( ulimit -f 256; valgrind --tool=memrec -q --memrec-out-file="$TMP/tiny.trace" \
    /usr/bin/touch "$TMP/tiny-ran" 2>"$TMP/tiny.err"; echo $? >"$TMP/tiny.rc" )
check_eq "ulimit -f 256: memrec fails (status 1, not a signal)" 1 "$(cat "$TMP/tiny.rc")"
check "ulimit -f 256: the program did not run" [ ! -e "$TMP/tiny-ran" ]
check "ulimit -f 256: one line says why" \
  bash -c "[ \$(wc -l <'$TMP/tiny.err') = 1 ] && grep -q 'file size limit (ulimit -f)' '$TMP/tiny.err'"

# ---- large records in the smallest ring -------------------------------------------
# Under `ulimit -f 512` the ring has its smallest slots, 128 KiB, and a
# record never straddles two slots. The client sets the size of some
# records: an argument string (Linux takes up to 128 KiB - 1 bytes), the
# process record (a word per argument), a MEMREC_MARK name (any length; a
# 3 MiB one is over even a default 2 MiB slot and over the format's 1 MiB
# for a string). Each stopped Valgrind with an assertion in put(). memrec
# now cuts a string to 65535 bytes ending in "..." and records at most
# 8192 arguments, the last saying how many more there were. The program
# also marks a name without a NUL that runs to the end of its mapping.
cat >"$TMP/bigrec.c" <<'END'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "memrec.h"
int main(int argc, char **argv)
{
    size_t n = 3u << 20;
    char *name = malloc(n + 1), *end;
    memset(name, 'm', n);
    name[n] = 0;
    MEMREC_MARK(name);
    end = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(end, 'e', 4096);
    munmap(end + 4096, 4096);
    MEMREC_MARK(end);
    printf("%d arguments, the first %zu bytes\n", argc, strlen(argv[1]));
    return 0;
}
END
cc -O1 -I"$ROOT/recorder" -o "$TMP/bigrec" "$TMP/bigrec.c"
bigarg=$(head -c 131071 /dev/zero | tr '\0' a)
( ulimit -f 512
  timeout 120 valgrind --tool=memrec -q --memrec-out-file="$TMP/bigrec.trace" \
    "$TMP/bigrec" "$bigarg" $(seq 20000) >"$TMP/bigrec.out" 2>"$TMP/bigrec.err"
  echo $? >"$TMP/bigrec.rc" )
check_eq "large records: the program's exit status" 0 "$(cat "$TMP/bigrec.rc")"
check_eq "large records: the program's output" "20002 arguments, the first 131071 bytes" \
  "$(cat "$TMP/bigrec.out")"
check "large records: nothing on stderr" [ ! -s "$TMP/bigrec.err" ]
json=$("$BIN/trace-info" --json "$TMP/bigrec.trace" 2>/dev/null)
check_eq "large records: trace-info reads a complete trace" "false exit 0" \
  "$(jq -r '"\(.truncated) \(.end_reason) \(.exit_status)"' <<<"$json" 2>/dev/null)"
check_eq "large records: 8192 arguments, the last says how many more" \
  "8192 ... 11811 more arguments" \
  "$(jq -r '"\(.command | length) \(.command[-1])"' <<<"$json" 2>/dev/null)"
check_eq "large records: the long argument cut to 65535 bytes ending in ..." "65535 ..." \
  "$(jq -r '.command[1] | "\(length) \(.[-3:])"' <<<"$json" 2>/dev/null)"
# The marks as "length last-3-bytes": the 3 MiB name cut, the other whole.
check_eq "large records: the marks, cut to 65535 bytes or up to the unmapped page" \
  "65535 ...,4096 eee," \
  "$("$BIN/trace-dump" "$TMP/bigrec.trace" 2>/dev/null |
     sed -n 's/^[0-9]* t[0-9]* mark "\(.*\)"$/\1/p' |
     awk '{ printf "%d %s,", length($0), substr($0, length($0) - 2) }')"

# ---- a full filesystem ----------------------------------------------------------
# /dev/full fails the first write (the file header): memrec stops before the
# program runs, as for an unwritable path.
valgrind --tool=memrec -q --memrec-out-file=/dev/full /usr/bin/touch "$TMP/devfull-ran" \
  2>"$TMP/devfull.err"
check_eq "/dev/full: memrec fails before the program runs (status 1)" 1 $?
check "/dev/full: the program did not run" [ ! -e "$TMP/devfull-ran" ]
check "/dev/full: one line names it and the error" \
  bash -c "[ \$(wc -l <'$TMP/devfull.err') = 1 ] &&
           grep -q 'cannot write /dev/full: .*No space left on device' '$TMP/devfull.err'"

# A real ENOSPC partway: a 2 MiB tmpfs in a private mount namespace (gone
# when unshare ends), only where that works (root with CAP_SYS_ADMIN).
mkdir "$TMP/small"
export TMP
export -f cut_run
unshare -m --propagation private bash -c '
  mount -t tmpfs -o size=2m memrec-test "$TMP/small" 2>/dev/null || exit 77
  prog=("$@")
  cut_run enospc - "$TMP/small/enospc.trace"
  cp "$TMP/small/enospc.trace" "$TMP/enospc.trace"' cut_run "${prog[@]}" 2>/dev/null
if [ $? -eq 77 ] || [ ! -e "$TMP/enospc.rc" ]; then
  ok "ENOSPC on a 2 MiB tmpfs # SKIP cannot mount a tmpfs in a private mount namespace"
else
  check_cut enospc "$TMP/enospc.trace" "No space left on device" "$TMP/small/enospc.trace"
fi
