/*
 * stride.c: exact per-instruction stride histograms (see stride.h).
 */
#include <stdlib.h>
#include <string.h>

#include "deps/stride.h"
#include "base/array.h"

/* A stride and the steps that had it. */
typedef struct tally {
    int64_t stride;
    uint64_t steps;
} tally;

/* A stride of the bounded table: its steps counted since it entered the
 * table (exact from there on), and the table's `dropped` when it entered
 * (the most steps it may have had before: see stride_reduce). */
typedef struct counter {
    int64_t stride;
    uint64_t hits;
    uint64_t base;
} counter;

#define CACHE_TALLIES 4         /* strides an instruction keeps at hand */
#define FIRST_COUNTERS 16       /* a table's first size */
/* STRIDE_KEPT (stride.h) strides survive a reduction; the table holds
 * twice that, so that a reduction frees at least half of it. */
#define MAX_COUNTERS (2 * STRIDE_KEPT)
_Static_assert((MAX_COUNTERS & (MAX_COUNTERS - 1)) == 0 && MAX_COUNTERS < 32768,
               "the table doubles up to MAX_COUNTERS; its index holds uint16_t");

/* Per instruction: where it was last, and its histogram. The current run
 * of equal strides is counted here; when the stride changes the run goes
 * to a few tallies at hand (most recent first: a regular instruction has
 * few strides and stops there), and what falls out of them to a hash
 * table of at most MAX_COUNTERS strides, bounded by Misra and Gries'
 * "frequent items" reduction (stride_reduce), so that an irregular
 * instruction (millions of distinct strides) costs a probe into a table
 * that stays in cache, and at most some 14 KiB. */
typedef struct insn_state {
    uint64_t accesses;
    uint32_t group;
    uint64_t object, offset;
    int64_t run_stride;
    uint64_t run;               /* steps of run_stride not yet tallied */
    tally near[CACHE_TALLIES];  /* most recently used first */
    uint32_t nnear;
    counter *tab;               /* the table's strides, dense */
    uint16_t *index;            /* 2 x cap slots: entry + 1, 0 empty */
    uint32_t ntab, cap;
    uint64_t dropped;           /* steps the reductions took from each
                                 * kept count: the error bound */
} insn_state;

struct stride_prof {
    insn_state *insns;
    size_t cap;
    uint32_t n;
};

stride_prof *stride_new(void) { return calloc(1, sizeof(stride_prof)); }

void stride_free(stride_prof *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        free(s->insns[i].tab);
        free(s->insns[i].index);
    }
    free(s->insns);
    free(s);
}

/* The index slot where stride is, or the empty one where it would go. */
static uint32_t slot_of(const insn_state *st, int64_t stride)
{
    uint32_t mask = 2 * st->cap - 1;
    uint64_t h = (uint64_t)stride * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 40) & mask;
    while (st->index[i] && st->tab[st->index[i] - 1].stride != stride)
        i = (i + 1) & mask;
    return i;
}

/* Makes the index again from tab[0..ntab). */
static void reindex(insn_state *st)
{
    memset(st->index, 0, 2 * st->cap * sizeof *st->index);
    for (uint32_t j = 0; j < st->ntab; j++)
        st->index[slot_of(st, st->tab[j].stride)] = (uint16_t)(j + 1);
}

/* Doubles the table (the first time: makes it). -1 when out of memory. */
static int grow(insn_state *st)
{
    uint32_t cap = st->cap ? 2 * st->cap : FIRST_COUNTERS;
    counter *t = realloc(st->tab, cap * sizeof *t);
    if (!t)
        return -1;
    st->tab = t;
    uint16_t *x = realloc(st->index, 2 * cap * sizeof *x);
    if (!x)
        return -1;
    st->index = x;
    st->cap = cap;
    reindex(st);
    return 0;
}

/* The k-th largest (from 0) of v[0..n): Hoare's selection with a
 * three-way partition (an irregular instruction's counts are mostly equal,
 * all 1). v is reordered. */
static uint64_t kth_largest(uint64_t *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        uint64_t pivot = v[lo + (hi - lo) / 2], t;
        int lt = lo, i = lo, gt = hi;       /* > pivot | == pivot | < pivot */
        while (i <= gt) {
            if (v[i] > pivot) {
                t = v[lt]; v[lt++] = v[i]; v[i++] = t;
            } else if (v[i] < pivot) {
                t = v[gt]; v[gt--] = v[i]; v[i] = t;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt - 1;
        else if (k > gt)
            lo = gt + 1;
        else
            return pivot;
    }
    return v[k];
}

/* The full table keeps its STRIDE_KEPT largest counts: Misra and Gries'
 * reduction, batched. Each stride's Misra-Gries count is hits + base -
 * dropped (what it gained since it entered, less what reductions took
 * since); d, the (STRIDE_KEPT + 1)-th largest of them, is taken from every
 * count (dropped += d) and the strides left with nothing leave. Each
 * reduction takes d from at least STRIDE_KEPT + 1 strides' worth of
 * steps, so `dropped` never exceeds steps / (STRIDE_KEPT + 1): a stride
 * with more steps than that is always in the table, and its `hits`,
 * counted since it last entered, miss at most `dropped` of its steps
 * (none when it entered before the first reduction and stayed). */
static void stride_reduce(insn_state *st)
{
    uint64_t v[MAX_COUNTERS] = { 0 };  /* (only ntab used; zeroed for gcc) */
    for (uint32_t j = 0; j < st->ntab; j++)
        v[j] = st->tab[j].hits + st->tab[j].base - st->dropped;
    st->dropped += kth_largest(v, (int)st->ntab, STRIDE_KEPT);
    uint32_t k = 0;
    for (uint32_t j = 0; j < st->ntab; j++)
        if (st->tab[j].hits + st->tab[j].base > st->dropped)
            st->tab[k++] = st->tab[j];
    st->ntab = k;
    reindex(st);
}

/* t's steps into the table. -1 when out of memory. */
static int to_table(insn_state *st, tally t)
{
    if (st->cap) {
        uint32_t i = slot_of(st, t.stride);
        if (st->index[i]) {
            st->tab[st->index[i] - 1].hits += t.steps;
            return 0;
        }
    }
    if (st->ntab == st->cap) {
        if (st->cap < MAX_COUNTERS) {
            if (grow(st) < 0)
                return -1;
        } else {
            stride_reduce(st);
        }
    }
    st->tab[st->ntab] = (counter){ t.stride, t.steps, st->dropped };
    st->index[slot_of(st, t.stride)] = (uint16_t)++st->ntab;
    return 0;
}

/* The run of equal strides goes to the tallies at hand. */
static int flush(insn_state *st)
{
    if (!st->run)
        return 0;
    tally t = { st->run_stride, st->run };
    st->run = 0;
    uint32_t i = 0;
    while (i < st->nnear && st->near[i].stride != t.stride)
        i++;
    if (i < st->nnear)
        t.steps += st->near[i].steps;       /* found: to the front */
    else if (st->nnear < CACHE_TALLIES)
        i = st->nnear++;                    /* a free place */
    else if (to_table(st, st->near[--i]) < 0) /* the least recent leaves */
        return -1;
    memmove(&st->near[1], &st->near[0], i * sizeof *st->near);
    st->near[0] = t;
    return 0;
}

int stride_access(stride_prof *s, uint32_t insn, uint32_t group,
                  uint64_t object, uint64_t offset)
{
    if (insn >= s->n) {
        if (ARRAY_FIT(s->insns, s->cap, (size_t)insn + 1) < 0)
            return -1;
        s->n = insn + 1;
    }
    insn_state *st = &s->insns[insn];
    if (st->accesses++ && st->group == group && st->object == object) {
        int64_t d = (int64_t)(offset - st->offset);
        if (d != st->run_stride && flush(st) < 0)
            return -1;
        st->run_stride = d;
        st->run++;
    }
    st->group = group;
    st->object = object;
    st->offset = offset;
    return 0;
}

int stride_results(stride_prof *s, stride_info **out, uint32_t *n)
{
    stride_info *r = malloc((s->n ? s->n : 1) * sizeof *r);
    if (!r)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        insn_state *st = &s->insns[i];
        if (!st->accesses)
            continue;
        if (flush(st) < 0) {
            free(r);
            return -1;
        }
        stride_info *x = &r[k++];
        memset(x, 0, sizeof *x);
        x->insn = i;
        x->steps = st->accesses - 1;
        for (uint32_t j = 0; j < st->nnear; j++)    /* everything to the table */
            if (to_table(st, st->near[j]) < 0) {
                free(r);
                return -1;
            }
        st->nnear = 0;
        for (uint32_t j = 0; j < st->ntab; j++)     /* ties: the smallest stride */
            if (st->tab[j].hits > x->hits ||
                (st->tab[j].hits == x->hits && st->tab[j].stride < x->stride)) {
                x->hits = st->tab[j].hits;
                x->stride = st->tab[j].stride;
            }
        x->error = st->dropped;
        x->share = x->steps ? (double)x->hits / (double)x->steps : 0;
        x->strongly = x->share >= STRIDE_SHARE && x->stride != 0 &&
                      st->accesses >= STRIDE_MIN;
    }
    *out = r;
    *n = k;
    return 0;
}
