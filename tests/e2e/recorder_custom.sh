#!/usr/bin/env bash
# Custom allocators: Valgrind's client requests (valgrind.h) recorded as
# heap operations with the request's call stack. The sample carves N
# 48-byte nodes out of one malloc'd arena through a mempool
# (CREATE_MEMPOOL, MEMPOOL_ALLOC, MEMPOOL_FREE of half, DESTROY_MEMPOOL
# frees the rest) and N 16-byte cells out of a static buffer
# (MALLOCLIKE_BLOCK, one RESIZEINPLACE_BLOCK, FREELIKE_BLOCK of all).
source "$(dirname "$0")/lib.sh"

n=100
out=$(record "$TMP/c.trace" "$SAMPLES/custom_pool" $n 2>"$TMP/err")
check_eq "the program runs; MEMPOOL_EXISTS answered yes" \
  "custom_pool: $n nodes, $n cells, pool known" "$out"
check "no complaint about unhandled client requests" bash -c "! grep -qi 'unhandled' '$TMP/err'"
"$BIN/trace-dump" -q "$TMP/c.trace" | awk '$3 ~ /^(malloc|free|realloc)$/' > "$TMP/heap"

# heap lines: TIME tTID OP ADDR [size=S] stack=#N (FRAMES)
count() { grep -cE "$1" "$TMP/heap"; }
check_eq "$n pool chunks of 48 bytes, allocated in pool_alloc" "$n" \
  "$(count ' malloc 0x[0-9a-f]+ size=48 stack=#[0-9]+ \(pool_alloc:')"
check_eq "$n cells of 16 bytes, allocated in bump_alloc" "$n" \
  "$(count ' malloc 0x[0-9a-f]+ size=16 stack=#[0-9]+ \(bump_alloc:')"
check_eq "$((n / 2)) chunks freed by MEMPOOL_FREE in pool_free" "$((n / 2))" \
  "$(count ' free 0x[0-9a-f]+ stack=#[0-9]+ \(pool_free:')"

# Every chunk and every cell is freed exactly once (DESTROY_MEMPOOL frees
# the chunks left); chunks lie inside the arena (the malloc of 48 N bytes),
# the first one at its start (so that address is freed once more, by
# free(arena)).
read -r arena_ok chunk_frees cell_frees < <(awk -v size=$((48 * n)) '
  function hex(s,   i, v) { v = 0; s = tolower(substr(s, 3))     # mawk has no strtonum
    for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return v }
  $3 == "malloc" && $5 == "size=" size { arena = hex($4); arena_at = $4 }
  $3 == "malloc" && $5 == "size=48" { a = hex($4); chunk[$4] = 1
                                      if (a < arena || a + 48 > arena + size) bad++ }
  $3 == "malloc" && $5 == "size=16" { cell[$4] = 1 }
  $3 == "free" && ($4 in chunk) { cf[$4]++ }
  $3 == "free" && ($4 in cell) { ff[$4]++ }
  END { c = 0; for (k in chunk) if (cf[k] == 1 + (k == arena_at)) c++   # and free(arena)
        f = 0; for (k in cell) if (ff[k] == 1) f++
        print (arena && !bad) ? "yes" : "no", c, f }' "$TMP/heap")
check_eq "every pool chunk lies inside the arena" yes "$arena_ok"
check_eq "every chunk freed once (MEMPOOL_FREE, DESTROY_MEMPOOL)" "$n" "$chunk_frees"
check_eq "every cell freed once (FREELIKE_BLOCK)" "$n" "$cell_frees"
first_cell=$(awk '$3 == "malloc" && $5 == "size=16" { print $4; exit }' "$TMP/heap")
check_eq "RESIZEINPLACE_BLOCK: a realloc of the first cell, in place, to 32 bytes" \
  "realloc $first_cell size=32" "$(awk '$3 == "realloc" { print $3, $4, $5 }' "$TMP/heap")"
check "the trace's totals match its events" \
  bash -c "'$BIN/trace-info' --json '$TMP/c.trace' | jq -e '.totals_match == true' >/dev/null"
echo "1..$_n"
