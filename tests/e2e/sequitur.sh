#!/usr/bin/env bash
# trace-sequitur: grammars worked out by hand (in the original Sequitur's
# numbering), --stats, --expand giving the input back, empty input, and
# bad lines named by number.
source "$(dirname "$0")/lib.sh"
SEQ=$BIN/trace-sequitur

# chars STRING: one decimal character code per line (a=97, b=98, ...).
chars() { printf '%s' "$1" | od -An -v -tu1 | tr -s ' ' '\n' | sed '/^$/d'; }
# grammar STRING: the grammar of STRING's codes, lines joined by "; ".
grammar() { chars "$1" | "$SEQ" | paste -sd';' | sed 's/;/; /g'; }

check_eq "abcdbcabcdbc" "0 -> R1 R1; 1 -> 97 R2 100 R2; 2 -> 98 99" "$(grammar abcdbcabcdbc)"
check_eq "aaa (overlapping digrams stay)" "0 -> 97 97 97" "$(grammar aaa)"
check_eq "aaaa" "0 -> R1 R1; 1 -> 97 97" "$(grammar aaaa)"
check_eq "abbbabcbb" "0 -> R1 R2 R1 99 R2; 1 -> 97 98; 2 -> 98 98" "$(grammar abbbabcbb)"
check_eq "abcdbc (a rule used inside another)" "0 -> 97 R1 100 R1; 1 -> 98 99" "$(grammar abcdbc)"
check_eq "--stats abcdbcabcdbc" "rules 3 symbols 8" "$(chars abcdbcabcdbc | "$SEQ" --stats)"

# Large values and a file argument; --expand gives the input back.
seq 1 2000 | awk '{ printf "%d\n%s\n", ($1 % 7) * 1000000007, "9223372036854775807" }' >"$TMP/in"
"$SEQ" --expand "$TMP/in" >"$TMP/out"
check "--expand of a file gives the input back" cmp -s "$TMP/in" "$TMP/out"
stats=$("$SEQ" --stats <"$TMP/in")
check "--stats on a repetitive stream is small ($stats)" \
  test "$(awk '{print $4}' <<<"$stats")" -lt 200

check_eq "empty input: rule 0 empty" "0 ->" "$("$SEQ" </dev/null)"
check_eq "empty input: --stats" "rules 1 symbols 0" "$("$SEQ" --stats </dev/null)"
check_eq "empty input: --expand prints nothing" "" "$("$SEQ" --expand </dev/null)"

# bad INPUT "what" "expected stderr pattern": exit 1, one line naming the line.
bad() {
  local rc=0
  printf "$1" | "$SEQ" >"$TMP/out" 2>"$TMP/err" || rc=$?
  if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$3" "$TMP/err"; then
    ok "bad input: $2"
  else
    fail "bad input: $2 (exit $rc, stderr: $(cat "$TMP/err"))"
  fi
}
bad '1\n2\nx\n' "a word" "trace-sequitur: <stdin>: line 3: "
bad '1\n-2\n' "a negative number" "line 2: "
bad '1\n\n3\n' "an empty line" "line 2: "
bad '9223372036854775808\n' "2^63" "line 1: "
bad '1 2\n' "two numbers on a line" "line 1: "
rc=0; "$SEQ" "$TMP/missing" 2>"$TMP/err" || rc=$?
check "missing file: exit 1 naming it" grep -q "trace-sequitur: $TMP/missing: " "$TMP/err"
rc=0; "$SEQ" --bogus 2>/dev/null || rc=$?
check_eq "unknown option: exit 2" 2 "$rc"

echo "1..$_n"
