#!/usr/bin/env bash
# trace-synth: usage errors, unwritable output, and traces that the reader
# (through trace-info) accepts with exactly the counts trace-synth claims.
source "$(dirname "$0")/lib.sh"
SYNTH=$BIN/trace-synth
INFO=$BIN/trace-info

# usage_error "what" args...: exit 2, the message line names the command,
# and nothing but the message and the --help hint is printed.
usage_error() {
  local what=$1; shift
  local rc=0
  "$SYNTH" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
  local first lines
  first=$(head -n 1 "$TMP/err")
  lines=$(wc -l <"$TMP/err")
  if [ "$rc" -eq 2 ] && [[ "$first" == "trace-synth: "* ]] && [ "$lines" -eq 1 ] \
     && [ ! -s "$TMP/out" ]; then
    ok "usage error: $what"
  else
    fail "usage error: $what (exit $rc, stderr: $(tr '\n' '|' <"$TMP/err"))"
  fi
}

usage_error "no options" 
usage_error "no --accesses" --pattern=random
usage_error "no --pattern" --accesses=10
usage_error "unknown pattern" --pattern=zigzag --accesses=10
usage_error "accesses not a number" --pattern=random --accesses=lots
usage_error "negative accesses" --pattern=random --accesses=-5
usage_error "unknown option" --pattern=random --accesses=10 --frobnicate
usage_error "option without value" --pattern=random --accesses
usage_error "stray argument" --pattern=random --accesses=10 extra
usage_error "bad level" --pattern=random --accesses=10 --level=99

check "--help exits 0 and shows usage" \
  bash -c "'$SYNTH' --help | grep -q '^Usage: trace-synth'"
check "--version names the format" \
  bash -c "'$SYNTH' --version | grep -q 'trace-synth (memrec) .*trace format'"

# An output that cannot be created: one line naming the file, exit 1.
rc=0
"$SYNTH" --pattern=sequential --accesses=10 -o "$TMP/no/such/dir/t.mrt" \
  2>"$TMP/err" || rc=$?
check_eq "unwritable -o exits 1" 1 "$rc"
check "unwritable -o: one line 'trace-synth: FILE: ...'" \
  bash -c "[ \$(wc -l <'$TMP/err') -eq 1 ] &&
           grep -q '^trace-synth: $TMP/no/such/dir/t.mrt: .' '$TMP/err'"

# A file that exists but may not be written is left alone.
if [ "$(id -u)" -ne 0 ]; then
  echo keep >"$TMP/ro.mrt"; chmod 444 "$TMP/ro.mrt"
  rc=0; "$SYNTH" --pattern=random --accesses=10 -o "$TMP/ro.mrt" 2>/dev/null || rc=$?
  check "read-only -o: exit 1 and the file kept" \
    test "$rc" -eq 1 -a "$(cat "$TMP/ro.mrt")" = keep
fi

# A full disk: exit 1 naming the output, the device left alone.
if [ -w /dev/full ]; then
  rc=0
  "$SYNTH" --pattern=random --accesses=2000000 -o /dev/full 2>"$TMP/err" || rc=$?
  check_eq "full disk exits 1" 1 "$rc"
  check "full disk: one line 'trace-synth: /dev/full: ...'" \
    bash -c "[ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q '^trace-synth: /dev/full: .' '$TMP/err'"
  check "full disk: /dev/full is still a device" test -c /dev/full
fi

# A full disk part way: the half-written file is removed.
if command -v prlimit >/dev/null; then
  rc=0
  # SIGXFSZ ignored (kept across exec): the write fails with EFBIG instead.
  (trap '' XFSZ; prlimit --fsize=100000 "$SYNTH" --pattern=random \
     --accesses=2000000 -o "$TMP/half.mrt") 2>"$TMP/err" || rc=$?
  check_eq "file size limit hit: exit 1" 1 "$rc"
  check "file size limit hit: no half-written trace left" test ! -e "$TMP/half.mrt"
fi

# json_value KEY FILE: the number of KEY in a one-object JSON file.
json_value() { tr -d ' \n' <"$2" | grep -o "\"$1\":[0-9a-z]*" | head -n 1 | cut -d: -f2; }

# Each pattern through a pipe: trace-info reads it and finds the truth.
for pattern in sequential strided random chase mixed threads; do
  out=$TMP/$pattern.mrt
  "$SYNTH" --pattern=$pattern --accesses=20011 --seed=9 --chunk-bytes=8192 \
    --truth="$TMP/$pattern.truth" | cat >"$out"
  rc=${PIPESTATUS[0]}
  check_eq "$pattern: trace-synth in a pipeline exits 0" 0 "$rc"
  if ! "$INFO" --json "$out" >"$TMP/$pattern.json" 2>"$TMP/err"; then
    fail "$pattern: trace-info accepts the piped trace ($(head -n 1 "$TMP/err"))"
    continue
  fi
  ok "$pattern: trace-info accepts the piped trace"
  for key in instructions loads stores modifies allocs frees threads; do
    check_eq "$pattern: $key as generated" \
      "$(json_value $key "$TMP/$pattern.truth")" "$(json_value $key "$TMP/$pattern.json")"
  done
  check_eq "$pattern: not truncated" false "$(json_value truncated "$TMP/$pattern.json")"
done

# Straight into a reader through a pipe, no file between.
"$SYNTH" --pattern=mixed --accesses=20011 --seed=9 --chunk-bytes=8192 |
  "$INFO" --json - >"$TMP/piped.json" 2>"$TMP/err"
check_eq "trace-synth | trace-info -: exit 0" "0 0" "${PIPESTATUS[*]}"
check_eq "trace-synth | trace-info -: same instructions as from the file" \
  "$(json_value instructions "$TMP/mixed.json")" "$(json_value instructions "$TMP/piped.json")"

# A consumer that stops reading early ends trace-synth quietly.
"$SYNTH" --pattern=random --accesses=3000000 2>"$TMP/err" | head -c 100 >/dev/null
check_eq "reader gone: exit 0" 0 "${PIPESTATUS[0]}"
check_eq "reader gone: nothing on stderr" "" "$(cat "$TMP/err")"
# ... also when it leaves in the middle of a write (after 64 KiB of a chunk
# of about 1.5 MB): the pipe is full, the
# write blocks, and the last reader's exit cuts it short (the kernel then
# returns the bytes written and raises SIGPIPE all the same).
"$SYNTH" --pattern=random --accesses=3000000 2>"$TMP/err" | { head -c 65536 >/dev/null; sleep 0.5; }
check_eq "reader gone mid-write: exit 0" 0 "${PIPESTATUS[0]}"
check_eq "reader gone mid-write: nothing on stderr" "" "$(cat "$TMP/err")"

# A terminal on stdout gets no binary trace: a usage error.
if command -v script >/dev/null; then
  rc=0
  script -qec "'$SYNTH' --pattern=random --accesses=10" /dev/null >"$TMP/tty" 2>&1 || rc=$?
  check "stdout on a terminal: refused with a usage error" \
    bash -c "[ $rc -eq 2 ] && grep -q 'terminal' '$TMP/tty'"
fi

# Memory accesses are exact: loads + stores - modifies (a modify is in both).
t=$TMP/strided.truth
check_eq "strided: exactly the accesses asked for" 20011 \
  $(( $(json_value loads "$t") + $(json_value stores "$t") - $(json_value modifies "$t") ))

# Same options, same bytes; -o - is stdout.
"$SYNTH" --pattern=chase --accesses=5000 --seed=3 -o "$TMP/a.mrt"
"$SYNTH" --pattern=chase --accesses=5000 --seed=3 -o "$TMP/b.mrt"
"$SYNTH" --pattern=chase --accesses=5000 --seed=4 -o - >"$TMP/c.mrt"
check "same seed gives the same bytes" cmp -s "$TMP/a.mrt" "$TMP/b.mrt"
check "another seed gives other bytes" bash -c "! cmp -s '$TMP/a.mrt' '$TMP/c.mrt'"

# Small chunks give many chunks.
"$SYNTH" --pattern=random --accesses=100000 --chunk-bytes=4096 -o "$TMP/small.mrt"
"$INFO" --json "$TMP/small.mrt" >"$TMP/small.json" 2>/dev/null
chunks=$(json_value chunks "$TMP/small.json")
check "--chunk-bytes=4096 cuts the trace into many chunks (${chunks:-none})" \
  test "${chunks:-0}" -gt 10

echo "1..$_n"
