#!/usr/bin/env bash
# trace-info --json against the ground truth of synthetic traces: every key
# that trace-synth --truth writes must have the same value in trace-info's
# output, for every pattern, read from a file and from a pipe.
source "$(dirname "$0")/lib.sh"
# jqtest FILTER FILE...: succeeds when the filter is true (no output).
jqtest() { jq -e "$@" >/dev/null; }

for p in sequential strided random chase mixed threads; do
  t=$TMP/$p.trace
  "$BIN/trace-synth" --pattern=$p --accesses=30000 --chunk-bytes=16384 \
    --truth="$TMP/$p.truth" -o "$t"
  "$BIN/trace-info" --json "$t" >"$TMP/$p.json" 2>"$TMP/$p.err"
  check_eq "$p: exit status" 0 $?
  check_eq "$p: nothing on stderr" "" "$(cat "$TMP/$p.err")"
  check "$p: output is one JSON object" jqtest 'type == "object"' "$TMP/$p.json"
  # "key truth-value info-value" per key of the truth, in one jq run.
  while read -r k want got; do
    check_eq "$p: $k equals the truth" "$want" "$got"
  done < <(jq -r --slurpfile info "$TMP/$p.json" \
             'to_entries[] | "\(.key) \(.value|tojson) \($info[0][.key]|tojson)"' "$TMP/$p.truth")
  check_eq "$p: not truncated" false "$(jq .truncated "$TMP/$p.json")"
  check_eq "$p: end totals agree" true "$(jq .totals_match "$TMP/$p.json")"
  check_eq "$p: bytes is the file size" "$(stat -c %s "$t")" "$(jq .bytes "$TMP/$p.json")"
  check "$p: several chunks" [ "$(jq .chunks "$TMP/$p.json")" -gt 1 ]
  check_eq "$p: bytes per access" \
    "$(jq -r '.bytes / .accesses * 1000 | floor' "$TMP/$p.json")" \
    "$(jq -r '.bytes_per_access * 1000 | floor' "$TMP/$p.json")"
  check_eq "$p: loads = plain loads + modifies, stores likewise, accesses once each" \
    "$(jq '.accesses' "$TMP/$p.json")" \
    "$(jq '.loads + .stores - .modifies' "$TMP/$p.json")"
  # The same counts from a pipe (bytes: what was read, the whole stream).
  "$BIN/trace-info" --json - <"$t" | jq -S 'del(.trace)' >"$TMP/$p.pipe.json"
  check_eq "$p: same summary from a pipe" "$(jq -S 'del(.trace)' "$TMP/$p.json")" "$(cat "$TMP/$p.pipe.json")"
done

# The keys other commands' tests rely on are all there, with their types.
j=$TMP/threads.json
check "documented keys present" jqtest '
  (.instructions, .loads, .stores, .modifies, .allocs, .frees, .threads,
   .chunks, .bytes, .pid | type == "number") and
  (.truncated | type == "boolean") and (.command | type == "array") and
  (.end_reason == "exit") and (.exit_status == 0)' "$j"
check_eq "threads pattern: threads" 5 "$(jq .threads "$j")"
# Per-thread instruction counts: every thread that ran code, in tid order,
# adding up to the total.
check_eq "threads pattern: per-thread instructions add up to the total" \
  "$(jq .instructions "$j")" "$(jq '[.thread_instructions[].instructions] | add' "$j")"
check_eq "threads pattern: 5 threads ran code, in tid order" "1 2 3 4 5" \
  "$(jq -r '[.thread_instructions[].tid] | map(tostring) | join(" ")' "$j")"
"$BIN/trace-info" "$TMP/threads.trace" >"$TMP/threads.txt"
check_eq "text: one line per thread with its instructions and share" 5 \
  "$(grep -cE '^  thread [0-9]+: +[0-9]+ instructions \([0-9.]+%\)$' "$TMP/threads.txt")"

# Text form for people.
"$BIN/trace-info" "$TMP/mixed.trace" >"$TMP/mixed.txt"
check_eq "text: exit status" 0 $?
check "text: complete" grep -qx 'complete: *yes' "$TMP/mixed.txt"
check_eq "text: instructions" "$(jq .instructions "$TMP/mixed.json")" \
  "$(sed -n 's/^instructions: *//p' "$TMP/mixed.txt")"
check_eq "text: loads count modifies" "$(jq .loads "$TMP/mixed.json")" \
  "$(sed -n 's/^loads: *//p' "$TMP/mixed.txt")"
check "text: marks counted" [ "$(sed -n 's/^marks: *//p' "$TMP/mixed.txt")" -gt 0 ]
