/*
 * sequitur.c: the online Sequitur builder (see sequitur.h).
 *
 * The grammar is a set of circular doubly linked lists, one per rule, each
 * with a guard node; nodes live in one pool and are named by 32-bit index,
 * so appending a symbol allocates nothing once the pool has grown. The
 * digram table maps a pair of adjacent symbol values to the node that
 * starts its one occurrence; it is open addressing with linear probing and
 * deletion by backward shift (no tombstones), doubled when 3/4 full, so
 * probes stay short however long the input runs.
 *
 * The steps (check, substitute, expand, join) follow the original C++
 * implementation one for one, including its bookkeeping for runs of equal
 * symbols in join(), so that the grammars are the same. Three shortcuts
 * do the net effect of several of those steps at once where that effect
 * is known (extend_rule: a repeat growing a rule; reuse_at_end: a whole
 * rule reused at a rule's end; substitute's quiet case: no equal
 * neighbours, so no run to repair); test_sequitur checks them against the
 * plain steps (sq_plain_internal).
 */
#include "algo/sequitur.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "algo/sq_internal.h"
#include "base/array.h"

/* Node 0 is never used: index 0 means "no node", as a null link does in
 * the original (a fresh node is linked to nothing). */
#define NIL 0u

/* Node value tags (low two bits): terminals are value<<1 (low bit 0); a
 * rule reference is rule<<2|1; a rule's guard is rule<<2|3; a freed node
 * holds FREED_VAL, which equals no live symbol. */
#define TAG_RULE 1u
#define TAG_GUARD 3u
#define FREED_VAL UINT64_MAX

static inline uint64_t rule_val(uint32_t r) { return (uint64_t)r << 2 | TAG_RULE; }
static inline int is_rule_ref(uint64_t v) { return (v & 3) == TAG_RULE; }
static inline uint32_t ref_rule(uint64_t v) { return (uint32_t)(v >> 2); }

static inline int is_guard(const sequitur *b, uint32_t n)
{
    return (b->nodes[n].val & 3) == TAG_GUARD;
}

static inline uint32_t next_of(const sequitur *b, uint32_t n) { return b->nodes[n].next; }
static inline uint32_t prev_of(const sequitur *b, uint32_t n) { return b->nodes[n].prev; }
static inline uint64_t val_of(const sequitur *b, uint32_t n) { return b->nodes[n].val; }

/* ---- node pool and rule table --------------------------------------------- */

/* Arrays of at least BIG_BYTES (a large grammar's node pool and digram
 * table) get mappings of their own, 2 MiB-aligned and advised for 2 MiB
 * pages: a large grammar's probes land on random pages, and with 4 KiB
 * pages nearly every one also misses the TLB (a page walk, nested in a
 * virtual machine). Smaller arrays stay on the heap, where a 2 MiB page
 * would cost a small grammar more memory than it uses. */
#define HUGE_BYTES ((size_t)2 << 20)
#define BIG_BYTES ((size_t)4 << 20)

/* bytes (a multiple of HUGE_BYTES) of zeroed memory at a 2 MiB boundary;
 * NULL when out of memory. Mapped with one spare 2 MiB, then trimmed. */
static void *big_map(size_t bytes)
{
    char *p = mmap(NULL, bytes + HUGE_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)p + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    munmap(a + bytes, (size_t)(p + HUGE_BYTES - a));
#ifdef MADV_HUGEPAGE
    (void)madvise(a, bytes, MADV_HUGEPAGE);     /* advice: failure is harmless */
#endif
    return a;
}

/* Frees an array of bytes from big_map or the heap (by its size). */
static void big_free(void *p, size_t bytes)
{
    if (bytes >= BIG_BYTES)
        munmap(p, bytes);
    else
        free(p);
}

/* Enlarges an array of old bytes to bytes, keeping its contents: on the
 * heap while small (realloc: the new part is undefined), then in a
 * big_map mapping (the new part is zero) into which a big array's pages
 * move (mremap: no copy, and its 2 MiB pages stay whole). NULL when out
 * of memory, p unchanged. */
static void *big_grow(void *p, size_t old, size_t bytes)
{
    if (bytes < BIG_BYTES)
        return realloc(p, bytes);
    void *n = big_map(bytes);
    if (!n || old == 0)
        return n;
    if (old < BIG_BYTES) {
        memcpy(n, p, old);
        free(p);
    } else if (mremap(p, old, old, MREMAP_MAYMOVE | MREMAP_FIXED, n) == MAP_FAILED) {
        munmap(n, bytes);
        return NULL;
    }
    return n;
}

/* Doubles the node pool. Unlike ARRAY_FIT it does not zero the new half:
 * every node is written when handed out, and a large pool's untouched tail
 * stays out of the resident set, so a pool costs the nodes used, not twice
 * that. */
static int pool_grow(sequitur *b)
{
    size_t cap = b->node_cap ? b->node_cap * 2 : 1024;
    if (cap > (size_t)UINT32_MAX + 1)
        cap = (size_t)UINT32_MAX + 1;
    size_t words = cap / 64, old_words = b->node_cap / 64;
    uint64_t *bits = realloc(b->recorded, words * sizeof *bits);
    if (!bits)
        return -1;
    memset(bits + old_words, 0, (words - old_words) * sizeof *bits);
    b->recorded = bits;
    sq_node *n = big_grow(b->nodes, b->node_cap * sizeof *n, cap * sizeof *n);
    if (!n)
        return -1;
    b->nodes = n;
    b->node_cap = cap;
    return 0;
}

/* A node from the free list or the end of the pool; NIL when out of memory
 * (or past 2^32 nodes). Links start as NIL, like a fresh C++ symbol. */
static inline __attribute__((always_inline)) uint32_t node_new(sequitur *b, uint64_t val)
{
    uint32_t n = b->node_free;
    if (n != NIL) {
        b->node_free = b->nodes[n].next;
    } else {
        if (b->node_top == UINT32_MAX || (b->node_top >= b->node_cap && pool_grow(b) < 0))
            return NIL;
        n = b->node_top++;
    }
    b->nodes[n] = (sq_node){ .val = val, .next = NIL, .prev = NIL };
    b->symbols++;
    return n;
}

static inline __attribute__((always_inline)) void node_release(sequitur *b, uint32_t n)
{
    b->nodes[n].val = FREED_VAL;
    b->nodes[n].next = b->node_free;
    b->nodes[n].prev = NIL;
    b->node_free = n;
    b->symbols--;
}

/* A new empty rule: its guard points to itself. UINT32_MAX when out of
 * memory. */
static uint32_t rule_new(sequitur *b)
{
    uint32_t r = b->rule_free;
    if (r != UINT32_MAX) {
        b->rule_free = b->rules[r].guard;
    } else {
        if (ARRAY_FIT(b->rules, b->rule_cap, b->rule_top + 1) < 0)
            return UINT32_MAX;
        r = b->rule_top++;
    }
    uint32_t g = node_new(b, (uint64_t)r << 2 | TAG_GUARD);
    if (g == NIL) {
        b->rules[r].guard = b->rule_free;
        b->rule_free = r;
        return UINT32_MAX;
    }
    b->symbols--;               /* a guard is not a grammar symbol */
    b->nodes[g].next = b->nodes[g].prev = g;
    b->rules[r] = (sq_rule){ .guard = g, .uses = 0 };
    b->live_rules++;
    return r;
}

static void rule_release(sequitur *b, uint32_t r)
{
    b->symbols++;               /* node_release counts it down again */
    node_release(b, b->rules[r].guard);
    b->rules[r].guard = b->rule_free;
    b->rules[r].uses = UINT32_MAX;      /* marks the slot free for sq_check */
    b->rule_free = r;
    b->live_rules--;
}

/* ---- the digram table ----------------------------------------------------- */

/* Whether some table slot names node n (sq_internal.h: recorded). Kept
 * exact, so that forgetting the digram at a node the table does not name
 * costs no probe: a third of the table's probes on a large grammar. */
static inline int is_recorded(const sequitur *b, uint32_t n)
{
    return (int)(b->recorded[n >> 6] >> (n & 63) & 1);
}

static inline void set_recorded(sequitur *b, uint32_t n)
{
    b->recorded[n >> 6] |= UINT64_C(1) << (n & 63);
}

static inline void clear_recorded(sequitur *b, uint32_t n)
{
    b->recorded[n >> 6] &= ~(UINT64_C(1) << (n & 63));
}

static inline uint64_t digram_hash(uint64_t one, uint64_t two)
{
    /* Both halves multiplied, then folded: the slot index takes low bits,
     * which must depend on every bit of both values (terminals all end
     * in a 0 bit). */
    uint64_t h = (one + (two << 32 | two >> 32)) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 32;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    return h ^ (h >> 29);
}

/* The slot holding digram (one, two), or the empty slot where it would go. */
static inline __attribute__((always_inline)) size_t table_find(const sequitur *b, uint64_t one, uint64_t two, uint32_t h)
{
    size_t i = h & b->table_mask;
    for (;;) {
        const sq_slot *s = &b->table[i];
        if (s->node == NIL)
            return i;
        if (s->hash == h) {
            const sq_node *m = &b->nodes[s->node];
            if (m->val == one && b->nodes[m->next].val == two)
                return i;
        }
        i = (i + 1) & b->table_mask;
    }
}

/* Tables of fewer slots (2 MiB) stay in the cache: a small grammar's
 * builder is bound by instructions, not by misses. */
#define CACHED_TABLE_SLOTS ((size_t)1 << 18)

/* A large table is doubled when three quarters full: it then stays between
 * 3/8 and 3/4 full, where linear probes are still short (they mostly stay in
 * the slot's cache line, and the stored hashes spare reading nodes), at 2/3
 * of the memory a half-full limit takes. A cached table is doubled when
 * half full: the shorter probe runs and backward shifts save its builder
 * 7-11% of its instructions (gzip's instruction and group streams) for at
 * most 1 MiB more table. */

/* The entries at which a table of slots slots is full, kept in
 * table_limit: the test before every probe is then one comparison. */
static size_t table_limit_for(size_t slots)
{
    return slots < CACHED_TABLE_SLOTS ? slots / 2 : slots / 4 * 3;
}

static inline int table_full(const sequitur *b)
{
    return b->table_used >= b->table_limit;
}

/* The table has just doubled in place: its first old slots hold the
 * entries as placed for old slots, the rest are empty. Each entry is taken
 * out and placed again for the new size (its stored hash gives its home),
 * going through the old slots in probe order from just after an empty
 * one, so that every probe run is done front to back: an entry placed
 * again lands at or before its old slot, or in the new half, and its probe
 * path holds only entries already placed again. The one exception, an
 * entry whose path wraps from the table's end into old slots not yet
 * gone through, lands in such a slot and is placed again when the walk
 * reaches it. */
static void table_rehash_doubled(sequitur *b, size_t old)
{
    sq_slot *t = b->table;
    size_t mask = b->table_mask, start = 0;
    while (t[start].node != NIL)
        start++;                /* there is one: the table is at most 3/4 full */
    for (size_t k = 1; k <= old; k++) {
        size_t i = (start + k) & (old - 1);
        sq_slot s = t[i];
        if (s.node == NIL)
            continue;
        t[i].node = NIL;
        size_t j = s.hash & mask;
        while (t[j].node != NIL)
            j = (j + 1) & mask;
        t[j] = s;
    }
}

/* Doubles the table in place: a big table's pages move (big_grow) and
 * only the new half is fresh memory, which the kernel must clear (a new
 * table each time cleared twice the final size over a run: 5% of
 * trace-whomp's time on a gzip recording), and the old and new tables are
 * never both resident. */
static int table_grow(sequitur *b)
{
    size_t old = b->table_mask + 1, cap = old * 2;
    sq_slot *t = big_grow(b->table, old * sizeof *t, cap * sizeof *t);
    if (!t)
        return -1;
    if (cap * sizeof *t < BIG_BYTES)
        memset(t + old, 0, old * sizeof *t);    /* realloc left it undefined */
    b->table = t;
    b->table_mask = cap - 1;
    b->table_limit = table_limit_for(cap);
    table_rehash_doubled(b, old);
    return 0;
}

/* Empties slot i and shifts later entries of its probe run back into the
 * hole, so that lookups never need tombstones. */
static void table_delete_slot(sequitur *b, size_t i)
{
    size_t mask = b->table_mask, j = i;
    clear_recorded(b, b->table[i].node);
    for (;;) {
        j = (j + 1) & mask;
        if (b->table[j].node == NIL)
            break;
        size_t home = b->table[j].hash & mask;
        /* Entry j may move to i when its home is not in (i, j], i.e. when
         * it sits at least as far from its home as from the hole (distances
         * taken around the table, so no case for wrapping). */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            b->table[i] = b->table[j];
            i = j;
        }
    }
    b->table[i].node = NIL;
    b->table_used--;
}

/* The node recorded for the digram starting at n, or NIL. */
static uint32_t digram_lookup(const sequitur *b, uint32_t n)
{
    uint64_t one = val_of(b, n), two = val_of(b, next_of(b, n));
    size_t i = table_find(b, one, two, (uint32_t)digram_hash(one, two));
    return b->table[i].node;
}

/* Records n as the occurrence of the digram starting at n, replacing any
 * other (the original's "*find_digram(n) = n"). */
static inline __attribute__((always_inline)) void digram_set(sequitur *b, uint32_t n)
{
    if (b->failed)
        return;
    if (table_full(b) && table_grow(b) < 0) {
        b->failed = 1;
        return;
    }
    uint64_t one = val_of(b, n), two = val_of(b, next_of(b, n));
    uint32_t h = (uint32_t)digram_hash(one, two);
    size_t i = table_find(b, one, two, h);
    if (b->table[i].node == NIL)
        b->table_used++;
    else
        clear_recorded(b, b->table[i].node);
    b->table[i] = (sq_slot){ .node = n, .hash = h };
    set_recorded(b, n);
}

/* The original's delete_digram(): forgets the digram starting at n if the
 * table records it at n. */
static inline __attribute__((always_inline)) void digram_forget(sequitur *b, uint32_t n)
{
    if (!is_recorded(b, n))
        return;                 /* no slot names n: nothing to forget */
    uint32_t nx = next_of(b, n);
    if (is_guard(b, n) || is_guard(b, nx))
        return;
    uint64_t one = val_of(b, n), two = val_of(b, nx);
    uint32_t h = (uint32_t)digram_hash(one, two);
    /* table_find, then "if its slot names n": a slot that names n holds
     * n's own digram, so it needs no comparison of values */
    for (size_t i = h & b->table_mask;; i = (i + 1) & b->table_mask) {
        const sq_slot *s = &b->table[i];
        if (s->node == NIL)
            return;
        if (s->hash != h)
            continue;
        if (s->node == n) {
            table_delete_slot(b, i);
            return;
        }
        const sq_node *m = &b->nodes[s->node];
        if (m->val == one && b->nodes[m->next].val == two)
            return;             /* the digram is recorded at another node */
    }
}

/* ---- the grammar operations ----------------------------------------------- */

/* Links left to right, first forgetting the digram left started. When a
 * run of three equal symbols is broken, the table only knew one of its two
 * overlapping digrams; the other is recorded again so that it is not lost
 * (the original's comment: "e.g. abbbabcbb"). */
static inline __attribute__((always_inline)) void join(sequitur *b, uint32_t left, uint32_t right)
{
    if (next_of(b, left) != NIL) {
        digram_forget(b, left);
        uint32_t rp = prev_of(b, right), rn = next_of(b, right);
        if (rp != NIL && rn != NIL && val_of(b, right) == val_of(b, rp) &&
            val_of(b, right) == val_of(b, rn))
            digram_set(b, right);
        uint32_t lp = prev_of(b, left), ln = next_of(b, left);
        if (lp != NIL && ln != NIL && val_of(b, left) == val_of(b, ln) &&
            val_of(b, left) == val_of(b, lp))
            digram_set(b, lp);
    }
    b->nodes[left].next = right;
    b->nodes[right].prev = left;
}

static inline __attribute__((always_inline)) void insert_after(sequitur *b, uint32_t at, uint32_t n)
{
    join(b, n, next_of(b, at));
    join(b, at, n);
}

/* The original's ~symbols(): unlinks n, forgets its digram and its use of
 * a rule. */
static inline __attribute__((always_inline)) void delete_symbol(sequitur *b, uint32_t n)
{
    join(b, prev_of(b, n), next_of(b, n));
    digram_forget(b, n);
    if (is_rule_ref(val_of(b, n)))
        b->rules[ref_rule(val_of(b, n))].uses--;
    node_release(b, n);
}

/* A new node referring to rule r, counted as a use. */
static inline __attribute__((always_inline)) uint32_t ref_new(sequitur *b, uint32_t r)
{
    uint32_t n = node_new(b, rule_val(r));
    if (n != NIL)
        b->rules[r].uses++;
    return n;
}

/* A copy of node n's symbol (a terminal, or another use of its rule). */
static inline __attribute__((always_inline)) uint32_t copy_new(sequitur *b, uint32_t n)
{
    uint64_t v = val_of(b, n);
    return is_rule_ref(v) ? ref_new(b, ref_rule(v)) : node_new(b, v);
}

static int check(sequitur *b, uint32_t s);

/* A cached table's slots are not fetched ahead: that saves no miss, and
 * computing the hashes to do it cost a small grammar's builder a tenth of
 * its instructions. (A new terminal's slot
 * is not fetched ahead at all: holding 8 symbols back to fetch the slot
 * of each one's likely digram measured the same CPU time as not fetching
 * it, on gzip's offset and RASG streams, for 12 more instructions per
 * symbol: the misses that count are in substitute's chains.) */
static inline int table_cached(const sequitur *b)
{
    return b->table_mask < CACHED_TABLE_SLOTS - 1;
}

/* Fetches the table slot of digram (one, two) into the cache. */
static inline void prefetch_digram(const sequitur *b, uint64_t one, uint64_t two)
{
    __builtin_prefetch(&b->table[digram_hash(one, two) & b->table_mask]);
}

/* substitute(s, r) forgets the digrams that start at s's neighbour q, at s
 * and at s's successor t, then checks the two that the reference to r
 * makes, (q, r) and (r, u): five table slots whose addresses are known
 * before it starts. Fetched together, their cache misses overlap instead of
 * coming one after another (on a large grammar most of substitute's time).
 * Its callers call this first, as early as they know r. */
static void prefetch_substitute(const sequitur *b, uint32_t s, uint32_t r)
{
    if (table_cached(b))
        return;
    uint32_t q = prev_of(b, s), t = next_of(b, s), u = next_of(b, t);
    uint64_t vs = val_of(b, s), vt = val_of(b, t), vr = rule_val(r);
    if (!is_guard(b, q)) {
        uint64_t vq = val_of(b, q);
        if (is_recorded(b, q))
            prefetch_digram(b, vq, vs);
        prefetch_digram(b, vq, vr);
    }
    if (is_recorded(b, s))
        prefetch_digram(b, vs, vt);
    if (!is_guard(b, u)) {
        uint64_t vu = val_of(b, u);
        if (is_recorded(b, t))
            prefetch_digram(b, vt, vu);
        prefetch_digram(b, vr, vu);
    }
}

/* Unlinks s and t = next(s) from between q and u and forgets their
 * digrams: the two delete_symbol of substitute when no run of three equal
 * symbols can form or break at their joins (the caller checked), so that
 * none of join's repairs applies. The table sees what delete_symbol does:
 * (q, s), (s, t), then (t, u); the forgets of q's later digrams that
 * delete_symbol and insert_after also make find nothing, as the first
 * one cleared q's recorded bit (a slot naming q holds q's own digram). */
static inline __attribute__((always_inline)) void unlink_pair(sequitur *b, uint32_t q, uint32_t s,
                                                              uint32_t t, uint32_t u)
{
    digram_forget(b, q);
    digram_forget(b, s);
    if (is_rule_ref(val_of(b, s)))
        b->rules[ref_rule(val_of(b, s))].uses--;
    node_release(b, s);
    digram_forget(b, t);
    if (is_rule_ref(val_of(b, t)))
        b->rules[ref_rule(val_of(b, t))].uses--;
    node_release(b, t);
    b->nodes[q].next = u;
    b->nodes[u].prev = q;
}

/* Replaces the digram starting at s by a reference to rule r. */
static void substitute(sequitur *b, uint32_t s, uint32_t r)
{
    uint32_t q = prev_of(b, s), t = next_of(b, s), u = next_of(b, t);
    uint64_t vq = val_of(b, q), vt = val_of(b, t), vu = val_of(b, u);
    /* join's repairs need two equal neighbours among q, s, t, u: without
     * them the whole of it is forgetting three digrams and linking */
    int quiet = !b->plain && vt != vu && vq != val_of(b, s) && vq != vt && vq != vu;
    if (quiet) {
        unlink_pair(b, q, s, t, u);
    } else {
        delete_symbol(b, next_of(b, q));
        delete_symbol(b, next_of(b, q));
    }
    uint32_t n = ref_new(b, r);
    if (n == NIL) {
        b->failed = 1;
        return;
    }
    if (quiet) {
        /* insert_after's joins: q's digram is forgotten already, and a
         * repair would need vq == vu */
        b->nodes[n].prev = q;
        b->nodes[n].next = u;
        b->nodes[q].next = n;
        b->nodes[u].prev = n;
    } else {
        insert_after(b, q, n);
    }
    if (!check(b, q))
        check(b, next_of(b, q));
}

/* The reference s is the last use of its rule: the rule's body takes its
 * place and the rule goes. Every step is the original's, in its order
 * (deleting the rule's guard, deleting s, the two joins), with s read as
 * the value 0 once deleted, as the original's zeroed symbol reads. */
static inline __attribute__((always_inline)) void expand(sequitur *b, uint32_t s)
{
    uint32_t left = prev_of(b, s), right = next_of(b, s);
    uint32_t r = ref_rule(val_of(b, s)), g = b->rules[r].guard;
    uint32_t f = next_of(b, g), l = prev_of(b, g);
    digram_forget(b, s);
    join(b, l, f);              /* the guard's destructor closes the body */
    rule_release(b, r);
    b->nodes[s].val = 0;        /* the original sets s = 0 before deleting */
    join(b, left, right);
    join(b, left, f);
    join(b, l, right);
    node_release(b, s);
    if (!is_guard(b, right))
        digram_set(b, l);
}

/* If rule r's first symbol refers to a rule now used once, inlines it. */
static inline __attribute__((always_inline)) void enforce_utility(sequitur *b, uint32_t r)
{
    if (b->rules[r].uses == UINT32_MAX)
        return;                 /* r itself went while we worked */
    uint32_t first = next_of(b, b->rules[r].guard);
    uint64_t v = val_of(b, first);
    if (is_rule_ref(v) && b->rules[ref_rule(v)].uses == 1)
        expand(b, first);
}

/* Makes a new rule of the digram starting at s, whose other occurrence
 * starts at x, and substitutes both. */
static void make_rule(sequitur *b, uint32_t s, uint32_t x)
{
    uint32_t r = rule_new(b);
    if (r != UINT32_MAX) {
        /* both substitutions' slots at once: the second's misses then
         * overlap the first's instead of following them */
        prefetch_substitute(b, x, r);
        prefetch_substitute(b, s, r);
    }
    uint32_t g = r == UINT32_MAX ? NIL : b->rules[r].guard;
    uint32_t one = g == NIL ? NIL : copy_new(b, s);
    uint32_t two = one == NIL ? NIL : copy_new(b, next_of(b, s));
    if (two == NIL) {
        b->failed = 1;
        return;
    }
    insert_after(b, prev_of(b, g), one);
    insert_after(b, prev_of(b, g), two);
    substitute(b, x, r);
    digram_set(b, next_of(b, g));
    substitute(b, s, r);
    enforce_utility(b, r);
}

/* The digram (S, c) starting at s, whose other occurrence starts at x, with
 * S a rule used exactly there: make_rule would make T -> S c, substitute
 * both, and find S used once, in T, so inline it: T -> (S's body) c. That is
 * S's body grown by c at both places, which is what a long repeat of an
 * existing rule does at nearly every symbol. Done here in place: c moves
 * from s's side to S's end, c at x goes, S keeps its number. The grammar is
 * the one make_rule builds (S stands for T; rule numbers and node indexes
 * are the builder's own), and so is the table: the digrams make_rule's
 * steps record are (q, T), (T, d) and (T, d') at the nodes before and
 * after the two references, and (S's last symbol, c) at that symbol, after
 * forgetting (S, c), (c, d), (c, d') and the references' left digrams.
 * Those steps also repair runs of three equal symbols wherever their joins
 * meet equal neighbours, and check (q, T) and (T, d) against (q', T) and
 * (T, d'): whenever any such coincidence could arise (equal values among
 * q, q', c, d, d', S's first and last symbols; the two occurrences
 * adjacent; a neighbour's digram not recorded at it), this returns 0 and
 * make_rule does it all. test_sequitur compares both paths on random and
 * repetitive streams. 1 when done. */
static int extend_rule(sequitur *b, uint32_t s, uint32_t x)
{
    uint64_t vs = val_of(b, s);
    if (b->plain || !is_rule_ref(vs) || b->rules[ref_rule(vs)].uses != 2)
        return 0;
    uint32_t n = next_of(b, s), n2 = next_of(b, x);        /* the two c */
    uint32_t d = next_of(b, n2), d2 = next_of(b, n);       /* after them */
    uint32_t q = prev_of(b, x), q2 = prev_of(b, s);        /* before S */
    if (d == s || d2 == x)
        return 0;               /* the occurrences touch */
    uint64_t c = val_of(b, n), vd = val_of(b, d), vd2 = val_of(b, d2);
    uint64_t vq = val_of(b, q), vq2 = val_of(b, q2);
    if (vd == c || vd2 == c || vq == c || vq2 == c || vq == vd || vq2 == vd2 ||
        vq == vq2 || vd == vd2)
        return 0;
    if (!(is_guard(b, q) || is_recorded(b, q)) || !(is_guard(b, q2) || is_recorded(b, q2)))
        return 0;
    uint32_t g = b->rules[ref_rule(vs)].guard, l = prev_of(b, g);
    if (val_of(b, next_of(b, g)) == val_of(b, l))
        return 0;
    digram_forget(b, x);        /* (S, c) */
    digram_forget(b, n2);       /* (c, d) */
    digram_forget(b, n);        /* (c, d') */
    b->nodes[x].next = d;       /* c at x goes */
    b->nodes[d].prev = x;
    if (is_rule_ref(c))
        b->rules[ref_rule(c)].uses--;
    node_release(b, n2);
    b->nodes[s].next = d2;      /* c at s moves to S's end */
    b->nodes[d2].prev = s;
    b->nodes[l].next = n;
    b->nodes[n].prev = l;
    b->nodes[n].next = g;
    b->nodes[g].prev = n;
    if (!is_guard(b, d))
        digram_set(b, x);       /* (S, d) */
    if (!is_guard(b, d2))
        digram_set(b, s);       /* (S, d') */
    digram_set(b, l);           /* (S's old last symbol, c) */
    b->shortcuts++;
    return 1;
}

/* The digram (s, t) starting at s is the whole body of rule r, found
 * recorded at r's body, and t is the last symbol of its rule: substitute
 * and enforce_utility in one step, when the original's steps reduce to
 * that. The case is the commonest step of all (a repeat at rule 0's end
 * grows by one whole rule: 99% of the gzip group stream's symbols, 62% of
 * the instruction stream's, and every level of a run's binary-counter
 * cascade). With no two equal values among q = prev(s), s, t and u (the
 * guard after t), none of join's run repairs applies (substitute's quiet
 * case); s and t are not recorded (their digrams are (s, t), recorded at
 * r's body, and (t, guard)), so of the three forgets only q's probes the
 * table; and the second check, of (r, guard), does nothing. The reference
 * to r takes node s over (the original frees s and t and allocates one;
 * which node holds it changes no later step: sq_check's slot invariant).
 * 0 when the case does not apply and substitute must run. */
static int reuse_at_end(sequitur *b, uint32_t s, uint32_t r)
{
    uint32_t q = prev_of(b, s), t = next_of(b, s), u = next_of(b, t);
    if (b->plain || !is_guard(b, u) || is_recorded(b, s) || is_recorded(b, t))
        return 0;
    uint64_t vq = val_of(b, q), vs = val_of(b, s), vt = val_of(b, t);
    if (vq == vs || vq == vt || vq == val_of(b, u))
        return 0;
    digram_forget(b, q);        /* (q, s) */
    if (is_rule_ref(vs))
        b->rules[ref_rule(vs)].uses--;
    if (is_rule_ref(vt))
        b->rules[ref_rule(vt)].uses--;
    node_release(b, t);         /* s stays, as the reference */
    b->nodes[s].val = rule_val(r);
    b->rules[r].uses++;
    b->nodes[s].next = u;
    b->nodes[u].prev = s;
    check(b, q);                /* (q, r); (r, guard) is no digram */
    enforce_utility(b, r);
    b->shortcuts++;
    b->reuses++;
    return 1;
}

/* Enforces digram uniqueness on the digram starting at s; 1 when the
 * grammar changed. */
static int check(sequitur *b, uint32_t s)
{
    uint32_t n = next_of(b, s);
    if (b->failed || is_guard(b, s) || is_guard(b, n))
        return 0;
    if (table_full(b) && table_grow(b) < 0) {
        b->failed = 1;
        return 0;
    }
    /* One probe both finds the digram and, when absent, records it. */
    uint64_t one = val_of(b, s), two = val_of(b, n);
    uint32_t h = (uint32_t)digram_hash(one, two);
    size_t slot = table_find(b, one, two, h);
    uint32_t x = b->table[slot].node;
    if (x == NIL) {
        b->table[slot] = (sq_slot){ .node = s, .hash = h };
        set_recorded(b, s);
        b->table_used++;
        return 0;
    }
    if (next_of(b, x) == s || n == x)
        return 0;               /* overlapping occurrences: "aaa" */
    uint32_t xp = prev_of(b, x);
    if (is_guard(b, xp) && is_guard(b, next_of(b, next_of(b, x)))) {
        uint32_t r = ref_rule(val_of(b, xp));
        prefetch_substitute(b, s, r);
        if (reuse_at_end(b, s, r))
            return 1;
        substitute(b, s, r);    /* the digram is a whole rule: reuse it */
        enforce_utility(b, r);
        return 1;
    }
    if (!extend_rule(b, s, x))
        make_rule(b, s, x);
    return 1;
}

/* ---- public API ------------------------------------------------------------ */

sequitur *sq_new(void)
{
    sequitur *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->node_top = 1;            /* node 0 is NIL */
    b->rule_free = UINT32_MAX;
    b->table_mask = 1024 - 1;
    b->table_limit = table_limit_for(b->table_mask + 1);
    b->table = calloc(b->table_mask + 1, sizeof *b->table);
    if (!b->table || rule_new(b) != 0) {
        sq_free(b);
        return NULL;
    }
    return b;
}

void sq_free(sequitur *b)
{
    if (!b)
        return;
    big_free(b->nodes, b->node_cap * sizeof *b->nodes);
    free(b->recorded);
    free(b->rules);
    big_free(b->table, (b->table_mask + 1) * sizeof *b->table);
    free(b);
}

/* Works one terminal (a tagged value) into the grammar: links it after
 * rule 0's last symbol and checks the digram it ends. The original's
 * insert_after() there does nothing but link: the new node has no digram
 * yet, and the last symbol's digram runs into the guard, so neither join
 * has a digram to forget nor a run of three to repair. */
static int work_in(sequitur *b, uint64_t val)
{
    uint32_t g = b->rules[0].guard;
    uint32_t n = node_new(b, val);
    if (n == NIL) {
        b->failed = 1;
        return -1;
    }
    uint32_t last = prev_of(b, g);
    b->nodes[n].prev = last;
    b->nodes[n].next = g;
    b->nodes[last].next = n;
    b->nodes[g].prev = n;
    check(b, last);
    return b->failed ? -1 : 0;
}

int sq_append(sequitur *b, uint64_t symbol)
{
    if (symbol >= SQ_TERMINAL_LIMIT) {
        errno = EINVAL;
        return -1;
    }
    if (b->failed) {
        errno = ENOMEM;
        return -1;
    }
    b->input_length++;
    if (work_in(b, symbol << 1) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void sq_plain_internal(sequitur *b) { b->plain = 1; }

sq_grammar *sq_finish_free(sequitur *b)
{
    if (!b)
        return NULL;
    sq_grammar *g = NULL;
    if (!b->failed) {
        /* the table and its bits serve appends only, and none follow */
        big_free(b->table, (b->table_mask + 1) * sizeof *b->table);
        b->table = NULL;
        b->table_mask = 0;
        free(b->recorded);
        b->recorded = NULL;
        g = sq_finish(b);
    }
    sq_free(b);
    return g;
}

/* The table after every terminal changed: each recorded node is recorded
 * again under its digram's new hash (the table holds as many entries, on
 * the same nodes, so the recorded bits stay). -1 when out of memory. */
static int table_rebuild(sequitur *b)
{
    uint32_t *named = malloc((b->table_used + 1) * sizeof *named);
    if (!named)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i <= b->table_mask; i++)
        if (b->table[i].node != NIL)
            named[k++] = b->table[i].node;
    memset(b->table, 0, (b->table_mask + 1) * sizeof *b->table);
    b->table_used = 0;
    for (size_t j = 0; j < k; j++)
        digram_set(b, named[j]);
    free(named);
    return 0;
}

int sq_relabel(sequitur *b, sq_relabel_fn fn, void *ctx)
{
    if (b->failed) {
        errno = ENOMEM;
        return -1;
    }
    /* every new label first, so that a refused one changes nothing */
    for (uint32_t n = 1; n < b->node_top; n++)
        if ((b->nodes[n].val & 1) == 0 && fn(ctx, b->nodes[n].val >> 1) >= SQ_TERMINAL_LIMIT) {
            errno = EINVAL;
            return -1;
        }
    if (fn(ctx, 0) != 0) {
        errno = EINVAL;
        return -1;
    }
    /* terminals end in a 0 bit; guards, rule references and freed nodes
     * (FREED_VAL) in a 1 */
    for (uint32_t n = 1; n < b->node_top; n++)
        if ((b->nodes[n].val & 1) == 0)
            b->nodes[n].val = fn(ctx, b->nodes[n].val >> 1) << 1;
    if (table_rebuild(b) < 0) {
        b->failed = 1;
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

uint64_t sq_input_length(const sequitur *b) { return b->input_length; }

void sq_builder_stats(sequitur *b, sq_stats *s)
{
    s->rules = b->live_rules;
    s->symbols = b->symbols;
    s->table_bytes = (uint64_t)(b->table_mask + 1) * sizeof *b->table;
    /* nodes past node_top were never touched: not resident (pool_grow) */
    s->bytes = (uint64_t)b->node_top * sizeof *b->nodes +
               (uint64_t)b->rule_cap * sizeof *b->rules + s->table_bytes;
}

/* ---- invariant check (tests) ---------------------------------------------- */

#define FAIL(...) do { snprintf(why, whylen, __VA_ARGS__); return -1; } while (0)

/* Links, guards and use counts of every live rule; counts uses into uses. */
static int check_links(const sequitur *b, uint32_t *uses, char *why, size_t whylen)
{
    uint64_t seen = 0;
    for (uint32_t r = 0; r < b->rule_top; r++) {
        if (b->rules[r].uses == UINT32_MAX)
            continue;
        uint32_t g = b->rules[r].guard, len = 0;
        if (val_of(b, g) != ((uint64_t)r << 2 | TAG_GUARD))
            FAIL("rule %u: guard node %u does not name it", r, g);
        for (uint32_t n = next_of(b, g); n != g; n = next_of(b, n), len++) {
            if (n == NIL || n >= b->node_top || next_of(b, n) == NIL)
                FAIL("rule %u: broken link at node %u", r, n);
            if (prev_of(b, next_of(b, n)) != n)
                FAIL("rule %u: prev link of node %u", r, next_of(b, n));
            uint64_t v = val_of(b, n);
            if (v == FREED_VAL || (v & 3) == TAG_GUARD)
                FAIL("rule %u: freed node or guard %u in body", r, n);
            if (is_rule_ref(v)) {
                if (ref_rule(v) >= b->rule_top || b->rules[ref_rule(v)].uses == UINT32_MAX)
                    FAIL("rule %u: reference to dead rule %u", r, ref_rule(v));
                uses[ref_rule(v)]++;
            }
        }
        if (r != 0 && len < 2)
            FAIL("rule %u: body of %u symbols", r, len);
        seen += len;
    }
    if (seen != b->symbols)
        FAIL("%llu symbols linked, %llu counted", (unsigned long long)seen,
             (unsigned long long)b->symbols);
    return 0;
}

/* Every digram of the grammar occurs once (overlaps aside) and the table
 * records each at an occurrence. */
static int check_digrams(const sequitur *b, char *why, size_t whylen)
{
    for (uint32_t r = 0; r < b->rule_top; r++) {
        if (b->rules[r].uses == UINT32_MAX)
            continue;
        uint32_t g = b->rules[r].guard;
        for (uint32_t n = next_of(b, g); next_of(b, n) != g && n != g; n = next_of(b, n)) {
            uint32_t x = digram_lookup(b, n);
            if (x == NIL)
                FAIL("rule %u: digram at node %u missing from the table", r, n);
            if (x != n && next_of(b, x) != n && next_of(b, n) != x)
                FAIL("rule %u: digram at node %u also occurs at node %u", r, n, x);
        }
    }
    for (size_t i = 0; i <= b->table_mask; i++) {
        uint32_t n = b->table[i].node;
        if (n != NIL && (val_of(b, n) == FREED_VAL || is_guard(b, n) ||
                         is_guard(b, next_of(b, n))))
            FAIL("table slot %zu records a dead digram at node %u", i, n);
        if (n != NIL && !is_recorded(b, n))
            FAIL("table slot %zu names node %u, whose recorded bit is clear", i, n);
        /* a slot holds its node's present digram, never a stale one: so a
         * node's recorded bit says that its own digram is recorded at it
         * (extend_rule relies on that), and which nodes the pool hands out
         * cannot change what a later lookup finds */
        if (n != NIL && b->table[i].hash !=
            (uint32_t)digram_hash(val_of(b, n), val_of(b, next_of(b, n))))
            FAIL("table slot %zu names node %u under another digram's hash", i, n);
    }
    /* as many bits as used slots: no node named twice, no stale bit */
    size_t bits = 0;
    for (size_t w = 0; w < b->node_cap / 64; w++)
        bits += (size_t)__builtin_popcountll(b->recorded[w]);
    if (bits != b->table_used)
        FAIL("%zu recorded bits for %zu table entries", bits, b->table_used);
    return 0;
}

int sq_check(sequitur *b, char *why, size_t whylen)
{
    if (b->failed)
        FAIL("out of memory");
    uint32_t *uses = calloc(b->rule_top + 1, sizeof *uses);
    if (!uses)
        FAIL("out of memory");
    int rc = check_links(b, uses, why, whylen);
    for (uint32_t r = 1; rc == 0 && r < b->rule_top; r++) {
        if (b->rules[r].uses == UINT32_MAX)
            continue;
        if (uses[r] != b->rules[r].uses) {
            snprintf(why, whylen, "rule %u: %u uses counted, %u found", r,
                     b->rules[r].uses, uses[r]);
            rc = -1;
        } else if (uses[r] < 2) {
            snprintf(why, whylen, "rule %u used %u times", r, uses[r]);
            rc = -1;
        }
    }
    free(uses);
    return rc == 0 ? check_digrams(b, why, whylen) : rc;
}
