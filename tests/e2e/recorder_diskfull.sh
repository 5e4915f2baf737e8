#!/usr/bin/env bash
# A trace that cannot be written to the end: the file size limit (ulimit -f,
# write() fails with EFBIG) or a full filesystem (ENOSPC) partway through a
# recording, and an output that is full from the first byte (/dev/full).
# The recorded program must behave as without memrec (same output, same
# exit status); memrec says so in exactly one line on stderr naming the
# trace and the error; no encoder is left running; the file keeps every
# chunk written before the failure, which trace-info and trace-dump read
# as a truncated trace without an error.
source "$(dirname "$0")/lib.sh"

# The shuffled list walk records some 4.5 MB of trace in under a second.
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

# A limit 4 KiB below the complete trace (whose size varies by some
# bytes from run to run): the cut falls in what the encoder writes after
# the program ended (the last events chunk, some 880 KB here, the end
# record, the footer index), so the failure comes from closing the trace.
cut_run close $(((full_size - 4096) / 1024)) "$TMP/close.trace"
check_cut close "$TMP/close.trace" "File too large"

# A limit too small even for the smallest ring (4 slots of 128 KiB): memrec
# stops before the program runs, as for an unwritable output, in one line.
( ulimit -f 256; valgrind --tool=memrec -q --memrec-out-file="$TMP/tiny.trace" \
    /usr/bin/touch "$TMP/tiny-ran" 2>"$TMP/tiny.err"; echo $? >"$TMP/tiny.rc" )
check_eq "ulimit -f 256: memrec fails (status 1, not a signal)" 1 "$(cat "$TMP/tiny.rc")"
check "ulimit -f 256: the program did not run" [ ! -e "$TMP/tiny-ran" ]
check "ulimit -f 256: one line says why" \
  bash -c "[ \$(wc -l <'$TMP/tiny.err') = 1 ] && grep -q 'file size limit (ulimit -f)' '$TMP/tiny.err'"

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
