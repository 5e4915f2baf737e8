/*
 * lmad.c: the greedy LMAD compressor with its cap and overflow summary
 * (see lmad.h).
 */
#include <stdlib.h>
#include <string.h>

#include "algo/lmad.h"
#include "base/array.h"

/* The hot paths below take ndims as an argument and are always inlined;
 * each entry point calls them once with the constant LMAD_HOT_DIMS and once
 * with the stream's ndims, so that the compiler unrolls their loops for
 * LEAP's three dimensions (object, offset, time): adding a point was some
 * 50 instructions of loop control, finishing an LMAD some 150. */
#define LMAD_HOT_DIMS 3
#define HOT static inline __attribute__((always_inline))
#define BY_DIMS(s, call) ((s)->ndims == LMAD_HOT_DIMS ? call(LMAD_HOT_DIMS) : call((s)->ndims))

void lmad_stream_init(lmad_stream *s, uint32_t ndims, uint32_t max)
{
    memset(s, 0, sizeof *s);
    s->ndims = ndims < 1 ? 1 : ndims > LMAD_MAX_DIMS ? LMAD_MAX_DIMS : ndims;
    s->max = max ? max : LMAD_DEFAULT_MAX;
}

void lmad_stream_free(lmad_stream *s)
{
    free(s->lmads);
    s->lmads = NULL;
    s->cap = 0;
    s->n = 0;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The point joins the summary of what is past the cap. */
static void summarise(lmad_summary *o, uint32_t ndims, const int64_t *p)
{
    for (uint32_t d = 0; d < ndims; d++) {
        if (o->count == 0) {
            o->first[d] = o->min[d] = o->max[d] = p[d];
            o->gran[d] = 0;
            continue;
        }
        if (p[d] < o->min[d])
            o->min[d] = p[d];
        if (p[d] > o->max[d])
            o->max[d] = p[d];
        if (o->gran[d] == 1)            /* cannot get smaller */
            continue;
        uint64_t dist = p[d] >= o->first[d]
                            ? (uint64_t)p[d] - (uint64_t)o->first[d]
                            : (uint64_t)o->first[d] - (uint64_t)p[d];
        /* Nothing to do when the granularity divides the distance (the
         * common case: a mask for a power of two, else one division);
         * Euclid's loop only when it shrinks. */
        uint64_t g = o->gran[d];
        int divides = g && ((g & (g - 1)) == 0 ? (dist & (g - 1)) == 0 : dist % g == 0);
        if (!divides)
            o->gran[d] = gcd_u64(g, dist);
    }
    o->count++;
}

/* The n points p + k * step join the summary: the ends bound them, and
 * their distances from the first summarised point have the gcd of the
 * first one's distance and the step. */
static void summarise_run(lmad_summary *o, uint32_t ndims, const int64_t *p,
                          const int64_t *step, uint64_t n)
{
    int64_t last[LMAD_MAX_DIMS] = { 0 };
    for (uint32_t d = 0; d < ndims; d++)
        last[d] = (int64_t)((uint64_t)p[d] + (n - 1) * (uint64_t)step[d]);
    summarise(o, ndims, p);
    if (n == 1)
        return;
    summarise(o, ndims, last);
    for (uint32_t d = 0; d < ndims; d++) {
        uint64_t st = step[d] < 0 ? -(uint64_t)step[d] : (uint64_t)step[d];
        o->gran[d] = gcd_u64(o->gran[d], st);
    }
    o->count += n - 2;
}

/* 1 when p continues l (see lmad.h); fixes the stride of a single point.
 * A folded LMAD is never continued: its shape is fixed. */
HOT int extends(lmad *l, uint32_t ndims, const int64_t *p)
{
    if (l->nouter)
        return 0;
    if (l->count == 1) {
        for (uint32_t d = 0; d < ndims; d++)
            l->stride[d] = (int64_t)((uint64_t)p[d] - (uint64_t)l->start[d]);
        return 1;
    }
    for (uint32_t d = 0; d < ndims; d++)
        if (lmad_at(l, d, l->count) != p[d])
            return 0;
    return 1;
}

/* 1 when a and b have the same innermost level and the same first nouter
 * outer levels. */
HOT int same_shape(const lmad *a, const lmad *b, uint32_t ndims, uint32_t nouter)
{
    if (a->count != b->count)
        return 0;
    for (uint32_t d = 0; d < ndims; d++)
        if (a->stride[d] != b->stride[d])
            return 0;
    for (uint32_t j = 0; j < nouter; j++) {
        if (a->outer[j].count != b->outer[j].count)
            return 0;
        for (uint32_t d = 0; d < ndims; d++)
            if (a->outer[j].stride[d] != b->outer[j].stride[d])
                return 0;
    }
    return 1;
}

/* Folds the finished LMAD b into a, the one before it, when b repeats a's
 * shape (see lmad.h): 1 when folded. */
HOT int fold(lmad *a, const lmad *b, uint32_t ndims)
{
    if (b->count < 2 || !same_shape(a, b, ndims, b->nouter))
        return 0;
    if (a->nouter == b->nouter + 1) {       /* b is the top level's next copy */
        lmad_level *top = &a->outer[b->nouter];
        for (uint32_t d = 0; d < ndims; d++)
            if ((int64_t)((uint64_t)a->start[d] + top->count * (uint64_t)top->stride[d]) !=
                b->start[d])
                return 0;
        top->count++;
        return 1;
    }
    if (a->nouter != b->nouter || a->nouter == LMAD_MAX_OUTER)
        return 0;
    lmad_level *top = &a->outer[a->nouter++];   /* a new level: a, b */
    for (uint32_t d = 0; d < ndims; d++)
        top->stride[d] = (int64_t)((uint64_t)b->start[d] - (uint64_t)a->start[d]);
    top->count = 2;
    return 1;
}

/* The last LMAD is finished: fold it, and what it completes, backwards. */
HOT void fold_tail(lmad_stream *s, uint32_t ndims)
{
    while (s->n >= 2 && fold(&s->lmads[s->n - 2], &s->lmads[s->n - 1], ndims))
        s->n--;
}

void lmad_finish(lmad_stream *s)
{
#define FINISH(nd) fold_tail(s, nd)
    BY_DIMS(s, FINISH);
#undef FINISH
}

/* lmad_add when the point does not continue the last LMAD: a new one, or
 * the summary. */
HOT int add_new_dims(lmad_stream *s, const int64_t *point, uint32_t ndims)
{
    if (s->over.count) {                /* past the cap: summary only */
        summarise(&s->over, s->ndims, point);
        return 0;
    }
    fold_tail(s, ndims);
    if (s->n == s->max) {
        summarise(&s->over, s->ndims, point);
        return 0;
    }
    /* Most streams keep one or two LMADs (200 bytes each): ARRAY_FIT's
     * first 16 were 3 KiB zeroed per stream, a sixth of trace-leap's
     * instructions on ld.so's thousands of streams. */
    if (s->n + 1 > s->cap &&
        array_grow(&s->lmads, &s->cap, s->n + 1, sizeof *s->lmads, 2) < 0) {
        summarise(&s->over, s->ndims, point);
        return -1;
    }
    lmad *l = &s->lmads[s->n++];
    /* Only what a one-point LMAD uses (the slot may hold a folded one). */
    memcpy(l->start, point, ndims * sizeof *point);
    memset(l->stride, 0, ndims * sizeof *l->stride);
    l->count = 1;
    l->nouter = 0;
    return 0;
}

/* Apart from lmad_add, so that its common case saves few registers. */
static __attribute__((noinline)) int add_new(lmad_stream *s, const int64_t *point)
{
#define ADD_NEW(nd) add_new_dims(s, point, nd)
    return BY_DIMS(s, ADD_NEW);
#undef ADD_NEW
}

int lmad_add(lmad_stream *s, const int64_t *point)
{
#define EXTENDS(nd) extends(&s->lmads[s->n - 1], nd, point)
    if (!s->over.count && s->n && BY_DIMS(s, EXTENDS)) {
        s->lmads[s->n - 1].count++;
        return 0;
    }
#undef EXTENDS
    return add_new(s, point);
}

/* 1 when the run point + k * step continues l exactly: l unfolded, of two
 * points or more, with the run's stride, and point its next one. */
HOT int run_continues(const lmad *l, uint32_t ndims, const int64_t *point,
                      const int64_t *step)
{
    if (l->nouter || l->count < 2)
        return 0;
    for (uint32_t d = 0; d < ndims; d++)
        if (l->stride[d] != step[d] || lmad_at(l, d, l->count) != point[d])
            return 0;
    return 1;
}

/* lmad_add_run when the run does not continue the last LMAD as it is:
 * point by point until the rest continues an LMAD. Apart, so that the
 * common case saves few registers. */
static __attribute__((noinline)) int add_run_slow(lmad_stream *s, const int64_t *point,
                                                  const int64_t *step, uint64_t n)
{
    int64_t q[LMAD_MAX_DIMS];
    for (uint64_t k = 0; k < n; k++) {
        for (uint32_t d = 0; d < s->ndims; d++)
            q[d] = (int64_t)((uint64_t)point[d] + k * (uint64_t)step[d]);
        if (s->over.count) {            /* the rest goes to the summary */
            summarise_run(&s->over, s->ndims, q, step, n - k);
            return 0;
        }
        int rc = lmad_add(s, q);
        if (rc < 0 || s->over.count)
            continue;                   /* q was summarised: so is the rest */
        lmad *l = &s->lmads[s->n - 1];  /* q is its last point */
        uint64_t rest = n - k - 1;
        int same = 1;
        for (uint32_t d = 0; d < s->ndims; d++)
            same &= l->stride[d] == step[d];
        if (rest && (l->count == 1 || same)) {  /* the rest continues l */
            for (uint32_t d = 0; d < s->ndims; d++)
                l->stride[d] = step[d];
            l->count += rest;
            return 0;
        }
    }
    return 0;
}

int lmad_add_run(lmad_stream *s, const int64_t *point, const int64_t *step,
                 uint64_t n)
{
    /* The common case first (a loop's run after its first iterations came
     * one by one): the whole run extends the last LMAD. */
#define CONTINUES(nd) run_continues(&s->lmads[s->n - 1], nd, point, step)
    if (n && !s->over.count && s->n && BY_DIMS(s, CONTINUES)) {
        s->lmads[s->n - 1].count += n;
        return 0;
    }
#undef CONTINUES
    return add_run_slow(s, point, step, n);
}

uint64_t lmad_points(const lmad *l)
{
    uint64_t n = l->count;
    for (uint32_t j = 0; j < l->nouter; j++)
        n *= l->outer[j].count;
    return n;
}

void lmad_point(const lmad *l, uint32_t ndims, uint64_t idx, int64_t *p)
{
    uint64_t k = idx % l->count;
    idx /= l->count;
    for (uint32_t d = 0; d < ndims; d++)
        p[d] = lmad_at(l, d, k);
    for (uint32_t j = 0; j < l->nouter; j++) {
        k = idx % l->outer[j].count;
        idx /= l->outer[j].count;
        for (uint32_t d = 0; d < ndims; d++)
            p[d] = (int64_t)((uint64_t)p[d] + k * (uint64_t)l->outer[j].stride[d]);
    }
}

void lmad_extent(const lmad *l, uint32_t d, uint32_t levels, int64_t *min,
                 int64_t *max)
{
    int64_t lo = l->start[d], hi = l->start[d];
    for (uint32_t j = 0; j < levels && j <= l->nouter; j++) {
        int64_t stride = j ? l->outer[j - 1].stride[d] : l->stride[d];
        uint64_t count = j ? l->outer[j - 1].count : l->count;
        int64_t span = (int64_t)((count - 1) * (uint64_t)stride);
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    *min = lo;
    *max = hi;
}

int64_t lmad_last(const lmad *l, uint32_t d)
{
    int64_t v = lmad_at(l, d, l->count - 1);
    for (uint32_t j = 0; j < l->nouter; j++)
        v = (int64_t)((uint64_t)v + (l->outer[j].count - 1) * (uint64_t)l->outer[j].stride[d]);
    return v;
}

/* How many of count copies, the first at base and each stride further (a
 * growing dimension), start before v. */
static uint64_t started_before(int64_t base, int64_t stride, uint64_t count, int64_t v)
{
    if (base >= v)
        return 0;
    if (stride <= 0)
        return count;
    uint64_t k = (uint64_t)(v - base - 1) / (uint64_t)stride + 1;
    return k < count ? k : count;
}

uint64_t lmad_points_before(const lmad *l, uint32_t d, int64_t v)
{
    uint64_t before = 0, inner = lmad_points(l);
    int64_t base = l->start[d];
    for (uint32_t j = l->nouter; j > 0; j--) {  /* outermost first */
        const lmad_level *L = &l->outer[j - 1];
        inner /= L->count;
        uint64_t k = started_before(base, L->stride[d], L->count, v);
        if (k == 0)
            return before;
        /* Copies 0 .. k-2 lie wholly before copy k-1, which starts
         * before v: only the last one is cut. */
        before += (k - 1) * inner;
        base = (int64_t)((uint64_t)base + (k - 1) * (uint64_t)L->stride[d]);
    }
    return before + started_before(base, l->stride[d], l->count, v);
}

uint64_t lmad_captured(const lmad_stream *s)
{
    uint64_t c = 0;
    for (uint32_t i = 0; i < s->n; i++)
        c += lmad_points(&s->lmads[i]);
    return c;
}

uint64_t lmad_total(const lmad_stream *s)
{
    return lmad_captured(s) + s->over.count;
}
