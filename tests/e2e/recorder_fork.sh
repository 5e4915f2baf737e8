#!/usr/bin/env bash
# fork: a child's trace starts with what it inherited, each with the stack
# of its allocation: the live heap blocks, the reported mappings and its
# thread. The sample allocates 50 blocks of 64 bytes (and an array of
# their pointers) and maps 64 KiB, forks; the child reads, frees and
# unmaps them all.
source "$(dirname "$0")/lib.sh"

mkdir "$TMP/f"
out=$(record "$TMP/f/t.%p" "$SAMPLES/fork_heap" 50 2>/dev/null)
check_eq "the sample runs (child and parent)" "fork_heap: 50 blocks, child and parent sum 432" "$out"
traces=("$TMP"/f/t.*)
check_eq "two traces" 2 "${#traces[@]}"
# The child is the trace whose parent pid is the other's pid.
child=${traces[0]} parent=${traces[1]}
if [ "$("$BIN/trace-info" --json "$parent" | jq -r .ppid)" = "${child##*.}" ]; then
  child=${traces[1]} parent=${traces[0]}
fi
check_eq "the child's trace names the parent's pid" "${parent##*.}" \
  "$("$BIN/trace-info" --json "$child" | jq -r .ppid)"

# The heap records before the child's first block execution.
"$BIN/trace-dump" -q "$child" | awk '$3 == "exec" { exit } $3 ~ /^(malloc|mmap|switch)$/' > "$TMP/start"
"$BIN/trace-dump" -q "$parent" | awk '$3 ~ /^(malloc|mmap)$/ { print $3, $4, $5 }' | sort > "$TMP/parent"
check_eq "the child's trace starts with its thread" "switch" "$(head -1 "$TMP/start" | awk '{ print $3 }')"
check_eq "then the 50 inherited blocks of 64 bytes" 50 "$(grep -c ' malloc 0x[0-9a-f]* size=64 ' "$TMP/start")"
check_eq "and the inherited 64 KiB mapping" 1 "$(grep -c ' mmap 0x[0-9a-f]* size=65536 ' "$TMP/start")"
check "each at the address the parent allocated it" \
  bash -c "awk '\$3 ~ /^(malloc|mmap)\$/ { print \$3, \$4, \$5 }' '$TMP/start' | sort | comm -23 - '$TMP/parent' | grep -q . && exit 1 || exit 0"
check "each with the stack of its allocation (main, not the fork)" \
  bash -c "! grep ' size=64 ' '$TMP/start' | grep -qvE 'stack=#[0-9]* \(malloc(:[0-9]+)? <- main:'"

# The child frees and unmaps only inherited memory: all of it known.
"$BIN/trace-objects" -q "$child" > "$TMP/objects"
check "child: no free or unmap of an unknown block" bash -c "! grep -q 'frees of unknown blocks' '$TMP/objects'"
heap=$(sed -n 's/.*heap \([0-9.]*\)%.*/\1/p' "$TMP/objects" | head -1)
check "child: its reads of the blocks and the region are heap accesses (${heap:-?}%)" \
  awk "BEGIN { exit !(${heap:-0} > 10) }"
echo "1..$_n"
