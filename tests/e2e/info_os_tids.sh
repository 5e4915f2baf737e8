#!/usr/bin/env bash
# OS thread ids (format/SPEC.md section 5, THREAD): a recording of the
# threaded sample prodcons names each thread's gettid(), the main thread's
# being the process id; trace-info (text and JSON), trace-dump and the
# threads table of the profile database show them. A trace recorded before
# memrec wrote them says nothing (no os_tid keys, NULL in the table).
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
command -v valgrind >/dev/null || skip "valgrind not installed"
[ -x "$VALGRIND_LIB/memrec-amd64-linux" ] || skip "the memrec tool is not built"
[ -x "$SAMPLES/prodcons" ] || skip "samples/prodcons not built"
command -v jq >/dev/null || skip "jq not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"

t=$TMP/pc.mrt
record "$t" "$SAMPLES/prodcons" 200 >/dev/null
check_eq "prodcons recorded" 0 $?
"$BIN/trace-info" --json "$t" > "$TMP/info.json"
pid=$(jq .pid "$TMP/info.json")
check "the trace has a process id" test "$pid" -gt 0
check_eq "trace-info --json: thread 1's os_tid is the process id" "$pid" \
  "$(jq '.thread_instructions[] | select(.tid == 1) | .os_tid' "$TMP/info.json")"
check_eq "trace-info --json: each of the 3 threads has one OS thread id" "1 1 1" \
  "$(jq -r '[.thread_instructions[].os_tids] | map(tostring) | join(" ")' "$TMP/info.json")"
check_eq "trace-info --json: the other two are other OS threads, distinct" 2 \
  "$(jq "[.thread_instructions[] | select(.tid != 1) | .os_tid | select(. != $pid)] | unique | length" \
      "$TMP/info.json")"
check_eq "trace-info --json: the OS ids leave the totals alone (3 threads, totals match)" "3 true" \
  "$(jq -r '"\(.threads) \(.totals_match)"' "$TMP/info.json")"
"$BIN/trace-info" "$t" > "$TMP/info.txt"
check_eq "trace-info: thread 1's line ends with the process id" "os tid $pid" \
  "$(grep -E '^  thread 1:' "$TMP/info.txt" | grep -oE 'os tid [0-9]+$')"
os2=$(jq '.thread_instructions[] | select(.tid == 2) | .os_tid' "$TMP/info.json")
check_eq "trace-info: thread 2's line has the same id as the JSON" "os tid $os2" \
  "$(grep -E '^  thread 2:' "$TMP/info.txt" | grep -oE 'os tid [0-9]+$')"

"$BIN/trace-dump" "$t" > "$TMP/dump.txt"
check_eq "trace-dump: one thread-os line per thread" 3 "$(grep -c ' thread-os ' "$TMP/dump.txt")"
check_eq "trace-dump: thread 1 is the process" 1 \
  "$(grep -c " thread-os tid=1 os_tid=$pid\$" "$TMP/dump.txt")"
check "trace-dump: a thread's os line comes before its first switch" \
  test "$(grep -n ' thread-os tid=2 ' "$TMP/dump.txt" | cut -d: -f1)" -lt \
       "$(grep -n ' switch tid=2$' "$TMP/dump.txt" | head -n 1 | cut -d: -f1)"

"$BIN/trace-objects" -q --db "$TMP/p.db" "$t"
check_eq "trace-objects --db: exit 0" 0 $?
check_eq "threads table: os_tid of thread 1 is the process id" "$pid" \
  "$(sqlite3 "$TMP/p.db" 'SELECT os_tid FROM threads WHERE tid = 1')"
check_eq "threads table: the same ids as trace-info, every thread" \
  "$(jq -r '.thread_instructions[] | "\(.tid)|\(.os_tid)"' "$TMP/info.json")" \
  "$(sqlite3 "$TMP/p.db" 'SELECT tid, os_tid FROM threads ORDER BY tid')"

# A recording from before the THREAD definitions: nothing is made up.
old=$ROOT/tests/data/prodcons.mrt
check_eq "old trace: no os_tid in trace-info --json" 0 \
  "$("$BIN/trace-info" --json "$old" | jq '[.thread_instructions[] | select(has("os_tid"))] | length')"
check_eq "old trace: no 'os tid' in trace-info" 0 "$("$BIN/trace-info" "$old" | grep -c 'os tid')"
"$BIN/trace-objects" -q --db "$TMP/old.db" "$old"
check_eq "old trace: threads.os_tid is NULL" "3|0" \
  "$(sqlite3 "$TMP/old.db" 'SELECT count(*), count(os_tid) FROM threads')"
echo "1..$_n"
