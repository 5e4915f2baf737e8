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
        uint64_t dist = p[d] >= o->first[d]
                            ? (uint64_t)p[d] - (uint64_t)o->first[d]
                            : (uint64_t)o->first[d] - (uint64_t)p[d];
        o->gran[d] = gcd_u64(o->gran[d], dist);
    }
    o->count++;
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
