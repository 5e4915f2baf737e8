/*
 * distinct.h: a set of non-negative integers that counts its distinct
 * members: exactly, with a growing bitmap, while the members stay below
 * DISTINCT_EXACT; beyond, the bitmap is folded into a HyperLogLog sketch
 * (4096 registers, about 1.6% standard error), so that a huge array walked
 * at random costs neither 1/8 of its size in memory nor a cache miss per
 * access.
 *
 * A set whose first member is past what a free bitmap holds (an
 * instruction on one field at a large offset) starts sparse: a small hash
 * table of its members, exact, until DISTINCT_SPARSE_MAX members; then it
 * becomes a bitmap (or, past the budget, a sketch) like the others.
 *
 * Memory: a bitmap of up to DISTINCT_FREE_BYTES (the size of the sketch)
 * costs nothing more than the sketch would; a larger one draws its excess
 * from one budget shared by every set of the process (DISTINCT_BUDGET by
 * default, distinct_set_budget). When the budget cannot pay for a bitmap's
 * growth, that set becomes a sketch instead. So thousands of sets over one
 * large array (every instruction of a program walking the same 1 MiB
 * block) cost at most the budget plus 4 KiB each, not 128 KiB each; the
 * sets that grew first, and every small one, stay exact.
 *
 * A zeroed struct is an empty set. distinct_add is inline because it runs
 * several times per memory access in the profiles.
 */
#ifndef MEMREC_DISTINCT_H
#define MEMREC_DISTINCT_H

#include <stdint.h>

#define DISTINCT_EXACT (1u << 20)
#define DISTINCT_FREE_BYTES 4096u          /* = the sketch's registers */
#define DISTINCT_BUDGET (64ull << 20)       /* bitmap bytes beyond the free */
#define DISTINCT_SPARSE_MAX 256u            /* members of a sparse set (4 KiB) */

/* The fields distinct_add reads on its fast path come first, so that a
 * set embedded in a record takes one cache line of it. */
typedef struct distinct {
    uint64_t last;          /* the last member added, plus one (0: none):
                             * an instruction touching one field again and
                             * again costs neither a hash nor a bitmap miss */
    uint64_t *w;            /* bitmap words, NULL until the first member */
    uint64_t nwords;
    uint64_t count;         /* members, while exact */
    uint8_t *hll;           /* the sketch once past DISTINCT_EXACT, else NULL */
    uint64_t *sp;           /* sparse: members plus one (0: empty slot),
                             * open addressing, for a set whose first member
                             * is large (one field of a big block), NULL else */
    uint32_t spcap;         /* slots in sp, a power of two */
} distinct;

/* The case the inline path leaves: a member beyond the bitmap. */
int distinct_add_slow(distinct *b, uint64_t member);

#define DISTINCT_HLL_BITS 12    /* 4096 registers */

static inline uint64_t distinct_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* One member into the sketch: the register its hash picks keeps the
 * longest run of leading zeros seen (HyperLogLog, Flajolet et al. 2007).
 * Inline: a large array walked at random adds a member per access. */
static inline void distinct_hll_add(uint8_t *regs, uint64_t v)
{
    uint64_t h = distinct_mix64(v);
    uint32_t r = (uint32_t)(h >> (64 - DISTINCT_HLL_BITS));
    uint64_t rest = h << DISTINCT_HLL_BITS;
    uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1)
                        : (uint8_t)(64 - DISTINCT_HLL_BITS + 1);
    if (rank > regs[r])
        regs[r] = rank;
}

/* Adds member; 0, or -1 when out of memory. */
static inline int distinct_add(distinct *b, uint64_t member)
{
    if (b->last && b->last == member + 1)    /* 0: none, or UINT64_MAX + 1 */
        return 0;
    b->last = member + 1;
    uint64_t w = member >> 6;
    /* nwords is 0 once the set is a sketch; the bitmap may reach past
     * DISTINCT_EXACT (it grows by doubling), members there may not */
    if (w < b->nwords && member < DISTINCT_EXACT) {
        uint64_t m = 1ull << (member & 63);
        b->count += !(b->w[w] & m);
        b->w[w] |= m;
        return 0;
    }
    if (b->hll) {           /* past DISTINCT_EXACT: a big array's offsets */
        distinct_hll_add(b->hll, member);
        return 0;
    }
    return distinct_add_slow(b, member);
}

/* Distinct members: exact, or the sketch's estimate. */
uint64_t distinct_count(const distinct *b);

/* 1 while the count is exact. */
static inline int distinct_exact(const distinct *b) { return !b->hll; }

/* Frees the set's memory and empties it (its bitmap's excess returns to
 * the budget). */
void distinct_free(distinct *b);

/* Sets the process-wide budget for bitmap bytes beyond DISTINCT_FREE_BYTES
 * per set (what the bitmaps of live sets use already counts against it),
 * and reads what is left of it. For tests and for callers that know their
 * memory better. */
void distinct_set_budget(uint64_t bytes);
uint64_t distinct_budget_left(void);

#endif /* MEMREC_DISTINCT_H */
