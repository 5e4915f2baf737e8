/* distinct.c: counting distinct integers, exact then HyperLogLog. */
#include "base/distinct.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HLL_BITS DISTINCT_HLL_BITS
#define HLL_REGS (1u << HLL_BITS)

/* Bitmap bytes past DISTINCT_FREE_BYTES that live sets hold, and the most
 * they may hold. Process-wide: the tools are single-threaded, and the
 * bound that matters is the process's memory, not one set's. */
static uint64_t budget_used, budget_limit = DISTINCT_BUDGET;

/* What a bitmap of nwords words costs the budget. */
static uint64_t excess(uint64_t nwords)
{
    uint64_t bytes = nwords * sizeof(uint64_t);
    return bytes > DISTINCT_FREE_BYTES ? bytes - DISTINCT_FREE_BYTES : 0;
}

void distinct_set_budget(uint64_t bytes) { budget_limit = bytes; }

uint64_t distinct_budget_left(void)
{
    return budget_used < budget_limit ? budget_limit - budget_used : 0;
}

/* Switches a set to the sketch, folding in the members so far. */
static int to_hll(distinct *b)
{
    if (!(b->hll = calloc(HLL_REGS, 1)))
        return -1;
    for (uint32_t i = 0; i < b->spcap; i++)
        if (b->sp[i])
            distinct_hll_add(b->hll, b->sp[i] - 1);
    free(b->sp);
    b->sp = NULL;
    b->spcap = 0;
    for (uint64_t w = 0; w < b->nwords; w++)
        for (uint64_t x = b->w[w]; x; x &= x - 1)
            distinct_hll_add(b->hll, w * 64 + (uint64_t)__builtin_ctzll(x));
    budget_used -= excess(b->nwords);
    free(b->w);
    b->w = NULL;
    b->nwords = 0;
    return 0;
}

static int add_dense(distinct *b, uint64_t bit);

/* The slot of member in a sparse table: its own, or the empty one where it
 * goes. */
static uint32_t sparse_slot(const uint64_t *sp, uint32_t cap, uint64_t member)
{
    uint32_t i = (uint32_t)(distinct_mix64(member) & (cap - 1));
    while (sp[i] && sp[i] != member + 1)
        i = (i + 1) & (cap - 1);
    return i;
}

/* A sparse set that outgrew its table: its members into a bitmap (or a
 * sketch, as the budget decides). */
static int to_dense(distinct *b)
{
    uint64_t *sp = b->sp;
    uint32_t cap = b->spcap;
    b->sp = NULL;
    b->spcap = 0;
    b->count = 0;
    int rc = 0;
    for (uint32_t i = 0; i < cap && rc == 0; i++)
        if (sp[i])
            rc = add_dense(b, sp[i] - 1);
    free(sp);
    return rc;
}

static int sparse_add(distinct *b, uint64_t bit)
{
    if (b->sp && b->sp[sparse_slot(b->sp, b->spcap, bit)])
        return 0;                               /* there already */
    if (2 * (b->count + 1) > b->spcap) {        /* keep it half empty */
        uint32_t cap = b->spcap ? 2 * b->spcap : 16;
        if (cap > 2 * DISTINCT_SPARSE_MAX)
            return to_dense(b) < 0 ? -1 : add_dense(b, bit);
        uint64_t *sp = calloc(cap, sizeof *sp);
        if (!sp)
            return -1;
        for (uint32_t i = 0; i < b->spcap; i++)
            if (b->sp[i])
                sp[sparse_slot(sp, cap, b->sp[i] - 1)] = b->sp[i];
        free(b->sp);
        b->sp = sp;
        b->spcap = cap;
    }
    b->sp[sparse_slot(b->sp, b->spcap, bit)] = bit + 1;
    b->count++;
    return 0;
}

int distinct_add_slow(distinct *b, uint64_t bit)
{
    /* a sparse set stays so while small; an empty one starts so when its
     * first member would need more than the free bitmap */
    if (!b->hll && bit < DISTINCT_EXACT &&
        (b->sp || (!b->nwords && bit >= 8 * DISTINCT_FREE_BYTES)))
        return sparse_add(b, bit);
    return add_dense(b, bit);
}

/* The bitmap, or the sketch past the exact range or the budget. */
static int add_dense(distinct *b, uint64_t bit)
{
    if (b->hll) {
        distinct_hll_add(b->hll, bit);
        return 0;
    }
    /* past the exact range, or a growth the budget cannot pay: a sketch */
    uint64_t w = bit >> 6, n = b->nwords ? b->nwords : 1, more = 0;
    if (bit < DISTINCT_EXACT) {
        while (n <= w)
            n *= 2;
        more = excess(n) - excess(b->nwords);
    }
    if (bit >= DISTINCT_EXACT || more > distinct_budget_left()) {
        if (to_hll(b) < 0) {
            b->last = 0;        /* not added after all */
            return -1;
        }
        distinct_hll_add(b->hll, bit);
        return 0;
    }
    if (w >= b->nwords) {
        uint64_t *nw = realloc(b->w, n * sizeof *nw);
        if (!nw) {
            b->last = 0;
            return -1;
        }
        memset(nw + b->nwords, 0, (n - b->nwords) * sizeof *nw);
        b->w = nw;
        b->nwords = n;
        budget_used += more;
    }
    uint64_t m = 1ull << (bit & 63);
    if (!(b->w[w] & m)) {
        b->w[w] |= m;
        b->count++;
    }
    return 0;
}

uint64_t distinct_count(const distinct *b)
{
    if (!b->hll)
        return b->count;
    /* The raw estimate with the usual small-range correction (linear
     * counting while registers are still empty). */
    double sum = 0, m = HLL_REGS;
    uint32_t zeros = 0;
    for (uint32_t i = 0; i < HLL_REGS; i++) {
        sum += 1.0 / (double)(1ull << b->hll[i]);
        zeros += !b->hll[i];
    }
    double alpha = 0.7213 / (1 + 1.079 / m);
    double e = alpha * m * m / sum;
    if (e <= 2.5 * m && zeros)
        e = m * log(m / zeros);
    return (uint64_t)(e + 0.5);
}

void distinct_free(distinct *b)
{
    budget_used -= excess(b->nwords);
    free(b->sp);
    free(b->w);
    free(b->hll);
    memset(b, 0, sizeof *b);
}
