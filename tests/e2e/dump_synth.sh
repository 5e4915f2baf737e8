#!/usr/bin/env bash
# trace-dump on synthetic traces: the Lackey form has one "I" line per
# instruction and one L/S/M line per access (as trace-info counts them),
# filters partition the output, the text form has one exec line per block
# execution, and a closed stdout ends the dump quietly.
source "$(dirname "$0")/lib.sh"

t=$TMP/threads.trace
"$BIN/trace-synth" --pattern=threads --accesses=20000 --chunk-bytes=16384 -o "$t"
"$BIN/trace-info" --json "$t" >"$TMP/info.json"
j() { jq "$1" "$TMP/info.json"; }

"$BIN/trace-dump" --format=lackey "$t" >"$TMP/lackey" 2>"$TMP/err"
check_eq "lackey: exit status" 0 $?
check_eq "lackey: nothing on stderr" "" "$(cat "$TMP/err")"
check_eq "lackey: one I line per instruction" "$(j .instructions)" "$(grep -c '^I  ' "$TMP/lackey")"
check_eq "lackey: L lines are plain loads" "$(j '.loads - .modifies')" "$(grep -c '^ L ' "$TMP/lackey")"
check_eq "lackey: S lines are plain stores" "$(j '.stores - .modifies')" "$(grep -c '^ S ' "$TMP/lackey")"
check_eq "lackey: M lines are modifies" "$(j .modifies)" "$(grep -c '^ M ' "$TMP/lackey")"
check_eq "lackey: every line has Lackey's shape" 0 \
  "$(grep -cvE '^(I  | L | S | M )[0-9a-f]{8,16},[0-9]+$' "$TMP/lackey")"

# Threads partition the instructions.
sum=0
for tid in $(seq 1 5); do
  n=$("$BIN/trace-dump" --format=lackey --thread=$tid "$t" | grep -c '^I  ')
  sum=$((sum + n))
done
check_eq "lackey: threads 1-5 together are everything" "$(j .instructions)" "$sum"
check_eq "lackey: an unknown thread prints nothing" 0 \
  "$("$BIN/trace-dump" --format=lackey --thread=999 "$t" | wc -l)"

# A time window holds exactly TO-FROM instructions, cut inside blocks.
n=$("$BIN/trace-dump" --format=lackey --from=1001 --to=3004 "$t" | grep -c '^I  ')
check_eq "lackey: window of 2003 instructions" 2003 "$n"
check_eq "lackey: window is the same lines as the full dump's" \
  "$(grep '^I  ' "$TMP/lackey" | sed -n '1002,3004p' | md5sum)" \
  "$("$BIN/trace-dump" --format=lackey --from=1001 --to=3004 "$t" | grep '^I  ' | md5sum)"

# Functions partition the instructions (the synthetic trace has a symbol for
# every instruction).
"$BIN/trace-dump" "$t" >"$TMP/text" 2>"$TMP/err"
check_eq "text: exit status" 0 $?
check_eq "text: nothing on stderr" "" "$(cat "$TMP/err")"
mapfile -t funcs < <(sed -n 's/^[0-9]* t[0-9]* symbol 0x[0-9a-f]* function="\([^"]*\)".*/\1/p' "$TMP/text" | sort -u)
check "text: symbols listed" [ ${#funcs[@]} -gt 1 ]
sum=0
for f in "${funcs[@]}"; do
  n=$("$BIN/trace-dump" --format=lackey --function="$f" "$t" | grep -c '^I  ')
  sum=$((sum + n))
done
check_eq "lackey: functions together are everything" "$(j .instructions)" "$sum"

# Text form: one exec line per block execution, one access line per access.
check_eq "text: exec lines" "$(j .blocks)" "$(grep -cE '^[0-9]+ t[0-9]+ exec ' "$TMP/text")"
check_eq "text: access lines" "$(j .accesses)" "$(grep -cE '^  [LSM] 0x' "$TMP/text")"
check_eq "text: call lines" "$(j .calls)" "$(grep -cE '^[0-9]+ t[0-9]+ call ' "$TMP/text")"
check_eq "text: malloc lines" "$(j .allocs)" "$(grep -cE '^[0-9]+ t[0-9]+ malloc ' "$TMP/text")"
check_eq "text: ends with the end record" "end exit status=0" \
  "$(tail -n 1 "$TMP/text" | sed 's/^[0-9]* t[0-9]* //; s/ instructions=.*//')"
check "text: exec lines symbolised" grep -qE '^[0-9]+ t[0-9]+ exec 0x[0-9a-f]+ [A-Za-z_][A-Za-z_0-9]*:[0-9]+ ' "$TMP/text"
n=$("$BIN/trace-dump" --thread=2 "$t" | grep -cvE '^([0-9]+ t2 |  )')
check_eq "text: --thread=2 prints only thread 2" 0 "$n"
n=$("$BIN/trace-dump" --from=500 --to=900 "$t" | awk '/^[0-9]/ && ($1 < 500 || $1 >= 900)' | wc -l)
check_eq "text: --from/--to keep the window" 0 "$n"
n=$("$BIN/trace-dump" --function="${funcs[0]}" "$t" | grep -cvE '^([0-9]+ t[0-9]+ (exec|call|return) |  )')
check_eq "text: --function prints only executions, calls and returns" 0 "$n"

# From a pipe, the same.
check_eq "lackey from a pipe" "$(md5sum <"$TMP/lackey")" \
  "$(cat "$t" | "$BIN/trace-dump" --format=lackey | md5sum)"

# A reader that goes away: quiet, status 0 or killed by SIGPIPE (141).
"$BIN/trace-dump" --format=lackey "$t" 2>"$TMP/err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
check "closed stdout: status 0 or SIGPIPE (got $rc)" [ "$rc" -eq 0 -o "$rc" -eq 141 ]
check_eq "closed stdout: nothing on stderr" "" "$(cat "$TMP/err")"
# Same with SIGPIPE ignored (as under some shells and runners): write fails
# with EPIPE instead, still quiet and status 0.
(trap '' PIPE; "$BIN/trace-dump" "$t" 2>"$TMP/err" | head -n 1 >/dev/null; exit ${PIPESTATUS[0]})
check_eq "closed stdout, SIGPIPE ignored: status 0" 0 $?
check_eq "closed stdout, SIGPIPE ignored: nothing on stderr" "" "$(cat "$TMP/err")"

# --from on an indexed file starts at the right chunk (binary search over
# the index) instead of reading from the start: the output must be the
# same as reading the whole stream from a pipe, for windows anywhere,
# including ones that start inside a block or a chunk.
total=$(j .instructions)
for w in "--from=1" "--from=$((total / 3)) --to=$((total / 3 + 700))" \
         "--from=$((total / 2 + 1)) --to=$((total / 2 + 2))" "--from=$((total - 5))" \
         "--from=$((total / 4)) --to=$((total / 4 + 3000)) --thread=3" "--from=$((total + 10))"; do
  for f in text lackey; do
    check_eq "window $w, $f: file (seek) and pipe agree" \
      "$(cat "$t" | "$BIN/trace-dump" --format=$f $w | md5sum)" \
      "$("$BIN/trace-dump" --format=$f $w "$t" | md5sum)"
  done
done
check_eq "window at the very end: 5 instructions" 5 \
  "$("$BIN/trace-dump" --format=lackey --from=$((total - 5)) "$t" | grep -c '^I  ')"
