/*
 * lmad.c: the greedy LMAD compressor with its cap and overflow summary
 * (see lmad.h).
 */
#include <stdlib.h>
#include <string.h>

#include "algo/lmad.h"
#include "base/array.h"

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

/* 1 when p continues l (see lmad.h); fixes the stride of a single point. */
static int extends(lmad *l, uint32_t ndims, const int64_t *p)
{
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

int lmad_add(lmad_stream *s, const int64_t *point)
{
    if (s->over.count) {                /* past the cap: summary only */
        summarise(&s->over, s->ndims, point);
        return 0;
    }
    if (s->n && extends(&s->lmads[s->n - 1], s->ndims, point)) {
        s->lmads[s->n - 1].count++;
        return 0;
    }
    if (s->n == s->max) {
        summarise(&s->over, s->ndims, point);
        return 0;
    }
    if (ARRAY_FIT(s->lmads, s->cap, s->n + 1) < 0) {
        summarise(&s->over, s->ndims, point);
        return -1;
    }
    lmad *l = &s->lmads[s->n++];
    memset(l, 0, sizeof *l);
    memcpy(l->start, point, s->ndims * sizeof *point);
    l->count = 1;
    return 0;
}

int lmad_add_run(lmad_stream *s, const int64_t *point, const int64_t *step,
                 uint64_t n)
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

uint64_t lmad_captured(const lmad_stream *s)
{
    uint64_t c = 0;
    for (uint32_t i = 0; i < s->n; i++)
        c += s->lmads[i].count;
    return c;
}

uint64_t lmad_total(const lmad_stream *s)
{
    return lmad_captured(s) + s->over.count;
}
