#!/usr/bin/env bash
# --alloc-fn=NAME (Massif's convention): the frames of allocation wrappers
# right above malloc are left out of allocation stacks, so the stack names
# the real site; the sample allocates through xmalloc and through xzalloc
# (which calls xmalloc) from two sites. Without the option the wrappers
# stay; the depth counts the frames kept.
source "$(dirname "$0")/lib.sh"

prog=$SAMPLES/xmalloc
# stacks TRACE: the malloc stacks of the sample's two sites, one a line,
# up to main and without line numbers: "malloc <- f <- g <- main"
# (a dump line: TIME tTID stack ID depth=N FRAME <- FRAME ...)
stacks() {
  "$BIN/trace-dump" -q "$1" | awk '$3 == "stack" && $6 ~ /^malloc(:[0-9]+)?$/ && /site_/ {
      s = ""
      for (i = 6; i <= NF; i++) {
        f = $i; sub(/:[0-9]+$/, "", f); s = s (s ? " " : "") f
        if (f == "main") break
      }
      print s }' | sort
}

record "$TMP/plain.trace" "$prog" 10 >/dev/null
check_eq "without --alloc-fn the wrappers are in the stacks" \
"malloc <- xmalloc <- site_small <- main
malloc <- xmalloc <- xzalloc <- site_big <- main" \
  "$(stacks "$TMP/plain.trace")"

record "$TMP/fn.trace" --alloc-fn=xmalloc --alloc-fn=xzalloc "$prog" 10 >/dev/null
check_eq "--alloc-fn=xmalloc --alloc-fn=xzalloc: the stacks name the sites" \
"malloc <- site_big <- main
malloc <- site_small <- main" \
  "$(stacks "$TMP/fn.trace")"
check_eq "--alloc-fn: the same allocations" \
  "$("$BIN/trace-info" --json "$TMP/plain.trace" | jq .allocs)" \
  "$("$BIN/trace-info" --json "$TMP/fn.trace" | jq .allocs)"

# Only the wrappers right above malloc go: naming xzalloc alone leaves
# xmalloc (between malloc and xzalloc) and so xzalloc too.
record "$TMP/inner.trace" --alloc-fn=xzalloc "$prog" 10 >/dev/null
check "--alloc-fn=xzalloc alone: xmalloc, the innermost wrapper, stays" \
  grep -q "^malloc <- xmalloc <- xzalloc <- site_big" <(stacks "$TMP/inner.trace")

# --stack-depth counts the frames kept.
record "$TMP/d2.trace" --stack-depth=2 --alloc-fn=xmalloc --alloc-fn=xzalloc "$prog" 10 >/dev/null
check_eq "--stack-depth=2 with --alloc-fn: malloc and the site" \
"malloc <- site_big
malloc <- site_small" "$(stacks "$TMP/d2.trace")"

args=()
for i in $(seq 33); do args+=("--alloc-fn=f$i"); done
valgrind --tool=memrec -q --memrec-out-file="$TMP/many.trace" "${args[@]}" "$prog" 1 >/dev/null 2>"$TMP/many.err"
rc=$?
check "33 --alloc-fn options: an error naming the limit, non-zero exit" \
  bash -c "[ $rc -ne 0 ] && grep -q 'at most 32 --alloc-fn' '$TMP/many.err'"
echo "1..$_n"
