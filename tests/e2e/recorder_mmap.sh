#!/usr/bin/env bash
# The program's anonymous mappings in the trace and the object profile:
#   - samples/mmap_arena maps 65536 bytes in arena_map(), makes N stores
#     and N loads in them and unmaps them: one mmap and one munmap of that
#     size, the mmap's stack naming arena_map, and exactly 2N accesses
#     translated to that object;
#   - a program written here grows a mapping with mremap: the old range's
#     munmap and the new range's mmap;
#   - what is not the program's own anonymous memory is not reported:
#     Valgrind's and memrec's mappings (linked_list's only mappings are
#     ld.so's __minimal_malloc's), thread stacks (prodcons), ld.so's .bss
#     fills of the modules it loads (libc's);
#   - linked_list's unknown accesses, mostly ld.so's allocations before
#     (13% of N=300), drop below 6%.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
for c in trace-dump trace-objects trace-objrel trace-info; do
  [ -x "$BIN/$c" ] || skip "$BIN/$c not built"
done
[ -x "$SAMPLES/mmap_arena" ] || skip "$SAMPLES/mmap_arena not built"
command -v valgrind >/dev/null || skip "valgrind not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"
q() { sqlite3 "$db" "$1"; }
# maps TRACE: the trace's mmap and munmap lines
maps() { "$BIN/trace-dump" -q "$1" | grep -E '^[0-9]+ t[0-9]+ (mmap|munmap) '; }
# frames N < LINE: the functions of the first N frames of a heap line's stack
frames() { sed 's/.*stack=#[0-9]* (//; s/ <- /\n/g' | head -n "$1" | sed 's/:[0-9]*$//' | paste -sd' '; }
# frame1 < LINE: the caller of mmap
frame1() { frames 2 | cut -d' ' -f2; }

# ---- mmap_arena: one mapping, its accesses -------------------------------------
N=1000
t=$TMP/arena.trace db=$TMP/arena.db
out=$(record "$t" "$SAMPLES/mmap_arena" $N)
check_eq "mmap_arena $N recorded, its output the sum of 3i" "0 $((3 * N * (N - 1) / 2))" "$? $out"
maps "$t" > "$TMP/maps"
mine=$(grep -E ' mmap .* size=65536 .*<- arena_map:' "$TMP/maps")
check_eq "one mmap of 65536 bytes whose stack names arena_map" 1 "$(grep -c . <<<"$mine")"
read -r mtime _ _ maddr _ <<<"$mine"
check "... called from main" grep -q ' arena_map:[0-9]* <- main:' <<<"$mine"
unmap=$(grep -E " munmap $maddr " "$TMP/maps")
check_eq "one munmap of that address, with its size, from main" \
  "1 size=65536 munmap main" \
  "$(grep -c . <<<"$unmap") $(awk '{ print $5 }' <<<"$unmap") $(frames 2 <<<"$unmap")"
read -r utime _ <<<"$unmap"
check "the munmap comes after the mmap" [ "${utime:-0}" -gt "${mtime:-0}" ]
check_eq "mappings count in no total: allocations are still the one stdout buffer" 1 \
  "$("$BIN/trace-info" --json "$t" | jq -r .allocs)"

"$BIN/trace-objects" -q --db "$db" "$t" 2>"$TMP/err"
check_eq "trace-objects --db: exit status, nothing on stderr" "0 " "$? $(cat "$TMP/err")"
line=$(grep -n 'void \*p = mmap' "$ROOT/samples/mmap_arena.c" | cut -d: -f1)
check_eq "the mapping is a heap object of group arena_map@mmap_arena.c:$line, 65536 bytes, at the mmap's address, from the mmap to the munmap" \
  "heap|65536|$((maddr))|$mtime|$utime" \
  "$(q "SELECT o.kind, o.size, o.address, o.alloc_time, o.free_time FROM objects o
        JOIN alloc_sites s ON s.id = o.site WHERE s.name = 'arena_map@mmap_arena.c:$line'")"
check_eq "its accesses: exactly $N stores and $N loads at $N offsets" "$((2 * N))|$N|$N|$N" \
  "$(q "SELECT o.accesses, o.loads, o.stores, o.offsets FROM objects o
        JOIN alloc_sites s ON s.id = o.site WHERE s.name = 'arena_map@mmap_arena.c:$line'")"
"$BIN/trace-objrel" -q --no-header --group="arena_map@mmap_arena.c:$line" "$t" > "$TMP/objrel"
check_eq "trace-objrel: the same $((2 * N)) accesses, all in arena_use at offsets 0..$((8 * N - 8))" \
  "$((2 * N)) 1 arena_use 0 $((8 * N - 8))" \
  "$(awk -F'\t' '{ n++; sub(/:.*/, "", $3); if (!($3 in f)) nf++; f[$3]; fn = $3
                   if (n == 1 || $9 < lo) lo = $9; if ($9 > hi) hi = $9 }
                 END { print n, nf, fn, lo, hi }' "$TMP/objrel")"
check_eq "the thread's allocations: the stdout buffer and each mapping (the munmap is none)" \
  "$(( $(grep -c ' mmap ' "$TMP/maps") + 1 ))" "$(q "SELECT allocs FROM threads WHERE tid = 1")"

# ---- mremap ------------------------------------------------------------------
if command -v cc >/dev/null; then
  cat > "$TMP/remap.c" <<'EOF'
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
int main(void)
{
    char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    memset(p, 1, 65536);
    char *q = mremap(p, 65536, 1 << 20, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        return 1;
    memset(q + 65536, 2, (1 << 20) - 65536);
    return munmap(q, 1 << 20);
}
EOF
  cc -O1 -o "$TMP/remap" "$TMP/remap.c"
  record "$TMP/remap.trace" "$TMP/remap"
  check_eq "remap recorded" 0 $?
  maps "$TMP/remap.trace" | grep -v __minimal_malloc | awk '{ print $3, $4, $5 }' > "$TMP/rmaps"
  read -r a b <<<"$(awk '$1 == "mmap" { print $2 }' "$TMP/rmaps" | tr '\n' ' ')"
  check_eq "mremap: mmap 65536, munmap of it, mmap of 1 MiB at mremap's result, munmap of that" \
    "mmap $a size=65536|munmap $a size=65536|mmap $b size=1048576|munmap $b size=1048576" \
    "$(paste -sd'|' "$TMP/rmaps")"
fi

# ---- what is not reported ----------------------------------------------------
N=300
t=$TMP/list.trace db=$TMP/list.db
record "$t" "$SAMPLES/linked_list" $N 1 >/dev/null
maps "$t" > "$TMP/maps"
check_eq "linked_list: every mapping is ld.so's __minimal_malloc's (no Valgrind or preload mapping)" \
  "__minimal_malloc" "$(grep ' mmap ' "$TMP/maps" | while read -r l; do frame1 <<<"$l"; done | sort -u)"
check "linked_list: at least two, the link maps and the TLS block" bash -c \
  "[ \$(grep -c ' mmap ' '$TMP/maps') -ge 2 ] && grep -q ' mmap .*<- _dl_allocate_tls_storage:' '$TMP/maps'"
# libc's .bss: its RW segment from the last file page on, which ld.so
# fills with an anonymous MAP_FIXED mapping
LIBC=$(ldd "$SAMPLES/linked_list" | awk '$1 ~ /^libc\.so/ { print $3 }')
if [ -r "$LIBC" ] && command -v readelf >/dev/null; then
  lb=$("$BIN/trace-dump" -q "$t" | awk '$3 == "module" && $5 ~ /\/libc\.so\.6"$/ { sub(/.*bias=/, ""); print; exit }')
  read -r va fs ms <<<"$(readelf -lW "$LIBC" | awk '$1 == "LOAD" && $7 == "RW" { print $3, $5, $6 }')"
  lo=$(( (lb + va + fs + 4095) / 4096 * 4096 )) hi=$(( lb + va + ms ))
  check "libc's .bss reaches past its last file page (ld.so maps it anonymous)" [ "$hi" -gt "$lo" ]
  n=0
  while read -r _ _ op a sz _; do
    [ "$op" = mmap ] && [ $((a)) -lt "$hi" ] && [ $((a + ${sz#size=})) -gt "$lo" ] && n=$((n + 1))
  done < "$TMP/maps"
  check_eq "no mapping reported over libc's .bss" 0 "$n"
fi
# glibc's malloc runs in the client: its chunk headers and free lists (in
# the break, which is no object) are unknown memory, about 10% of this
# malloc-heavy sample's accesses; the rest must stay below 6%.
read -r unknown total <<<"$("$BIN/trace-objects" -q --translate-only "$t" |
          sed -n 's/^accesses \([0-9]*\):.* unknown \([0-9]*\)$/\2 \1/p')"
allocator=$("$BIN/trace-objrel" -q --no-header --group=unknown "$t" |
  awk -F'\t' '$3 ~ /^(malloc|free|calloc|realloc|_int_[a-z_]*|malloc_[a-z_]*|unlink_chunk[a-z0-9_.]*|tcache_[a-z0-9_.]*|sysmalloc)(:|$)/' | wc -l)
others=$(( 100 * (${unknown:-0} - allocator) / ${total:-1} ))
check "linked_list $N: unknown accesses outside the allocator below 6% ($others%; 13% without mappings; the allocator's $allocator of $unknown)" \
  [ -n "${unknown:-}" -a "$others" -lt 6 -a "$allocator" -gt 0 ]

if [ -x "$SAMPLES/prodcons" ]; then
  record "$TMP/pc.trace" "$SAMPLES/prodcons" 100 >/dev/null
  check_eq "prodcons: thread stacks are no mappings (only ld.so's are)" "__minimal_malloc" \
    "$(maps "$TMP/pc.trace" | while read -r l; do frame1 <<<"$l"; done | sort -u)"
  "$BIN/trace-objects" -q --db "$TMP/pc.db" "$TMP/pc.trace"
  check_eq "prodcons: both threads' accesses to their stacks are 'stack'" 2 \
    "$(sqlite3 "$TMP/pc.db" "SELECT count(*) FROM threads WHERE tid > 1 AND stack > 0")"
fi
echo "1..$_n"
