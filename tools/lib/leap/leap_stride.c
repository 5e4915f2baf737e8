/*
 * leap_stride.c: strides from LMADs (see leap_stride.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leap/leap_stride.h"
#include "base/array.h"

/* An LMAD of the instruction with its group, for the merge by time. */
typedef struct piece {
    const lmad *m;
    uint32_t group;
} piece;

/* A stride and the steps that had it. */
typedef struct tally {
    int64_t stride;
    uint64_t steps;
} tally;

static int by_time(const void *a, const void *b)
{
    int64_t x = ((const piece *)a)->m->start[LEAP_TIME];
    int64_t y = ((const piece *)b)->m->start[LEAP_TIME];
    return x < y ? -1 : x > y;
}

static int by_stride(const void *a, const void *b)
{
    int64_t x = ((const tally *)a)->stride, y = ((const tally *)b)->stride;
    return x < y ? -1 : x > y;
}

/* Scratch shared by the instructions. */
typedef struct scratch {
    piece *pieces;
    size_t cap_pieces;
    tally *tallies;
    size_t cap_tallies;
} scratch;

static int add_tally(scratch *s, uint32_t *n, int64_t stride, uint64_t steps)
{
    if (ARRAY_FIT(s->tallies, s->cap_tallies, *n + 1) < 0)
        return -1;
    s->tallies[(*n)++] = (tally){ stride, steps };
    return 0;
}

/* The steps inside one LMAD: count - 1 of its innermost stride in each
 * copy, and per outer level the step from the last point of a copy to the
 * first of the next (the level's stride less the copy's span), once per
 * pair of neighbouring copies. A step to another object has no stride. */
static int lmad_steps(scratch *s, uint32_t *nt, const lmad *m, leap_stride *r)
{
    uint64_t points = lmad_points(m), copies = points / m->count;
    r->steps += points - 1;
    if (m->count > 1 && m->stride[LEAP_OBJECT] == 0 &&
        add_tally(s, nt, m->stride[LEAP_OFFSET], copies * (m->count - 1)) < 0)
        return -1;
    int64_t span[LEAP_DIMS];     /* first to last point of a copy below level j */
    for (uint32_t d = 0; d < LEAP_DIMS; d++)
        span[d] = (int64_t)((m->count - 1) * (uint64_t)m->stride[d]);
    for (uint32_t j = 0; j < m->nouter; j++) {
        const lmad_level *L = &m->outer[j];
        copies /= L->count;             /* copies of level j's whole */
        if (L->stride[LEAP_OBJECT] == span[LEAP_OBJECT] &&
            add_tally(s, nt, L->stride[LEAP_OFFSET] - span[LEAP_OFFSET],
                      copies * (L->count - 1)) < 0)
            return -1;
        for (uint32_t d = 0; d < LEAP_DIMS; d++)
            span[d] += (int64_t)((L->count - 1) * (uint64_t)L->stride[d]);
    }
    return 0;
}

static int one_insn(const leap *l, uint32_t insn, scratch *s, leap_stride *r)
{
    const leap_insn *in = leap_insn_get(l, insn);
    uint32_t np = 0, nt = 0;
    memset(r, 0, sizeof *r);
    r->insn = insn;
    for (uint32_t k = in->first; k != LEAP_NONE; k = leap_stream_get(l, k)->next) {
        const leap_stream *st = leap_stream_get(l, k);
        for (uint32_t i = 0; i < st->lmads.n; i++) {
            if (ARRAY_FIT(s->pieces, s->cap_pieces, np + 1) < 0)
                return -1;
            s->pieces[np++] = (piece){ &st->lmads.lmads[i], st->group };
        }
    }
    /* In time order: one stream's LMADs already are (most instructions
     * have one stream), so the sort is only for those that are not. */
    uint32_t sorted = 1;
    while (sorted < np && by_time(&s->pieces[sorted - 1], &s->pieces[sorted]) <= 0)
        sorted++;
    if (sorted < np)
        qsort(s->pieces, np, sizeof *s->pieces, by_time);
    for (uint32_t i = 0; i < np; i++) {
        const lmad *m = s->pieces[i].m;
        if (lmad_steps(s, &nt, m, r) < 0)
            return -1;
        if (i == 0)
            continue;
        const piece *p = &s->pieces[i - 1];       /* the step between LMADs */
        r->steps++;
        if (p->group == s->pieces[i].group &&
            lmad_last(p->m, LEAP_OBJECT) == m->start[LEAP_OBJECT] &&
            add_tally(s, &nt, m->start[LEAP_OFFSET] - lmad_last(p->m, LEAP_OFFSET), 1) < 0)
            return -1;
    }
    if (nt > 1)
        qsort(s->tallies, nt, sizeof *s->tallies, by_stride);
    for (uint32_t i = 0; i < nt;) {     /* the most frequent stride */
        uint64_t sum = 0;
        uint32_t j = i;
        for (; j < nt && s->tallies[j].stride == s->tallies[i].stride; j++)
            sum += s->tallies[j].steps;
        if (sum > r->hits) {
            r->hits = sum;
            r->stride = s->tallies[i].stride;
        }
        i = j;
    }
    r->share = r->steps ? (double)r->hits / (double)r->steps : 0;
    r->strongly = r->share >= LEAP_STRIDE_SHARE && r->stride != 0 &&
                  in->executions >= LEAP_STRIDE_MIN;
    return 0;
}

int leap_strides(const leap *l, leap_stride **out, uint32_t *n)
{
    scratch s = { 0 };
    uint32_t ninsns = leap_ninsns(l), k = 0;
    leap_stride *r = malloc((ninsns ? ninsns : 1) * sizeof *r);
    int rc = r ? 0 : -1;
    for (uint32_t i = 0; i < ninsns && rc == 0; i++)
        if (leap_insn_get(l, i)->executions)
            rc = one_insn(l, i, &s, &r[k++]);
    free(s.pieces);
    free(s.tallies);
    if (rc) {
        free(r);
        return -1;
    }
    *out = r;
    *n = k;
    return 0;
}
