/*
 * leap_mdf.c: the dependence post-processor on LMADs (see leap_mdf.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leap/leap_mdf.h"
#include "base/array.h"
#include "base/u64map.h"
#include "memrec_trace.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

int64_t leap_last_write(const lmad *s, uint32_t size, int64_t object,
                        int64_t offset, int64_t t)
{
    int64_t lo = 0, hi = (int64_t)s->count - 1;
    int64_t t0 = s->start[LEAP_TIME], dt = s->stride[LEAP_TIME];
    if (t0 >= t)
        return -1;
    if (dt > 0 && (t - 1 - t0) / dt < hi)   /* earlier than the load */
        hi = (t - 1 - t0) / dt;
    int64_t o0 = s->start[LEAP_OBJECT], dobj = s->stride[LEAP_OBJECT];
    if (dobj == 0) {
        if (object != o0)
            return -1;
    } else {                                /* the object fixes k */
        int64_t diff = object - o0;
        if (diff % dobj)
            return -1;
        int64_t k = diff / dobj;
        if (k < lo || k > hi)
            return -1;
        lo = hi = k;
    }
    /* start + k * stride <= offset < start + k * stride + size */
    int64_t f0 = s->start[LEAP_OFFSET], df = s->stride[LEAP_OFFSET];
    int64_t sz = (int64_t)(size ? size : 1);
    if (df == 0) {
        if (offset < f0 || offset >= f0 + sz)
            return -1;
    } else if (df > 0) {
        int64_t klo = ceil_div(offset - sz + 1 - f0, df);
        int64_t khi = floor_div(offset - f0, df);
        if (klo > lo)
            lo = klo;
        if (khi < hi)
            hi = khi;
    } else {
        int64_t e = -df;
        int64_t klo = ceil_div(f0 - offset, e);
        int64_t khi = floor_div(f0 - offset + sz - 1, e);
        if (klo > lo)
            lo = klo;
        if (khi < hi)
            hi = khi;
    }
    return lo <= hi ? hi : -1;
}

/* A store LMAD that may have written what a load LMAD reads. */
typedef struct candidate {
    const lmad *m;
    uint32_t insn, size;
} candidate;

/* The bounding box of an LMAD, per dimension. */
static void lmad_range(const lmad *m, uint32_t d, int64_t *min, int64_t *max)
{
    int64_t a = m->start[d], b = lmad_at(m, d, m->count - 1);
    *min = a < b ? a : b;
    *max = a < b ? b : a;
}

/* Whether store LMAD s (size bytes) can cover a byte that load LMAD l
 * reads before l's last element. */
static int may_feed(const lmad *s, uint32_t size, const lmad *l)
{
    int64_t smin, smax, lmin, lmax;
    lmad_range(s, LEAP_OBJECT, &smin, &smax);
    lmad_range(l, LEAP_OBJECT, &lmin, &lmax);
    if (smax < lmin || lmax < smin)
        return 0;
    lmad_range(s, LEAP_OFFSET, &smin, &smax);
    lmad_range(l, LEAP_OFFSET, &lmin, &lmax);
    if (smax + (int64_t)size - 1 < lmin || lmax < smin)
        return 0;
    return s->start[LEAP_TIME] < lmad_at(l, LEAP_TIME, l->count - 1);
}

/* Whether the summary of a store stream (size bytes) may cover bytes that
 * load stream l reads. */
static int summary_may_feed(const lmad_summary *o, uint32_t size,
                            const lmad_stream *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        int64_t omin, omax, fmin, fmax;
        lmad_range(&l->lmads[i], LEAP_OBJECT, &omin, &omax);
        lmad_range(&l->lmads[i], LEAP_OFFSET, &fmin, &fmax);
        if (o->max[LEAP_OBJECT] >= omin && o->min[LEAP_OBJECT] <= omax &&
            o->max[LEAP_OFFSET] + (int64_t)size - 1 >= fmin &&
            o->min[LEAP_OFFSET] <= fmax)
            return 1;
    }
    return 0;
}

/* Working state of one computation. */
typedef struct solver {
    const leap *l;
    leap_mdf *out;
    u64map pairs;               /* (store << 32 | load) -> conflicts */
    candidate *cand;
    size_t cap_cand;
} solver;

static int count_conflict(solver *s, uint32_t store, uint32_t load)
{
    int added;
    void **slot = u64map_slot_of(&s->pairs, (uint64_t)store << 32 | load, &added);
    if (!slot)
        return -1;
    *slot = (void *)((uintptr_t)*slot + 1);
    return 0;
}

/* One load LMAD against the candidate stores, its elements before cutoff. */
static int solve_lmad(solver *s, const lmad *m, uint32_t load, int64_t cutoff,
                      const uint32_t *stores, uint32_t nstores)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < nstores; i++) {
        const leap_stream *st = leap_stream_get(s->l, stores[i]);
        uint32_t size = leap_insn_get(s->l, st->insn)->size;
        for (uint32_t j = 0; j < st->lmads.n; j++) {
            const lmad *c = &st->lmads.lmads[j];
            if (!may_feed(c, size, m))
                continue;
            if (ARRAY_FIT(s->cand, s->cap_cand, n + 1) < 0)
                return -1;
            s->cand[n++] = (candidate){ c, st->insn, size };
        }
    }
    for (uint64_t k = 0; k < m->count; k++) {
        int64_t obj = lmad_at(m, LEAP_OBJECT, k), off = lmad_at(m, LEAP_OFFSET, k);
        int64_t t = lmad_at(m, LEAP_TIME, k), best = -1;
        if (t >= cutoff)
            break;
        s->out->sampled[load]++;
        uint32_t writer = 0;
        for (uint32_t i = 0; i < n; i++) {
            const candidate *c = &s->cand[i];
            int64_t w = leap_last_write(c->m, c->size, obj, off, t);
            if (w < 0)
                continue;
            int64_t wt = lmad_at(c->m, LEAP_TIME, (uint64_t)w);
            if (wt > best) {
                best = wt;
                writer = c->insn;
            }
        }
        if (best >= 0 && count_conflict(s, writer, load) < 0)
            return -1;
    }
    return 0;
}

/* Every load stream of one group against the group's store streams. */
static int solve_group(solver *s, const uint32_t *streams, uint32_t n)
{
    uint32_t *stores = malloc((n ? n : 1) * sizeof *stores), nstores = 0;
    if (!stores)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const leap_stream *st = leap_stream_get(s->l, streams[i]);
        if (leap_insn_get(s->l, st->insn)->kind & MR_STORE)
            stores[nstores++] = streams[i];
    }
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const leap_stream *ld = leap_stream_get(s->l, streams[i]);
        if (!(leap_insn_get(s->l, ld->insn)->kind & MR_LOAD))
            continue;
        int64_t cutoff = INT64_MAX;
        for (uint32_t j = 0; j < nstores; j++) {
            const leap_stream *st = leap_stream_get(s->l, stores[j]);
            const lmad_summary *o = &st->lmads.over;
            if (o->count && o->first[LEAP_TIME] < cutoff &&
                summary_may_feed(o, leap_insn_get(s->l, st->insn)->size, &ld->lmads))
                cutoff = o->first[LEAP_TIME];
        }
        for (uint32_t j = 0; j < ld->lmads.n && rc == 0; j++)
            rc = solve_lmad(s, &ld->lmads.lmads[j], ld->insn, cutoff, stores, nstores);
    }
    free(stores);
    return rc;
}

/* qsort_r order of stream numbers by group (ctx: the profile). */
static int by_group(const void *a, const void *b, void *ctx)
{
    const leap *l = ctx;
    uint32_t x = leap_stream_get(l, *(const uint32_t *)a)->group;
    uint32_t y = leap_stream_get(l, *(const uint32_t *)b)->group;
    return x < y ? -1 : x > y;
}

static int by_load_store(const void *a, const void *b)
{
    const leap_dep *x = a, *y = b;
    if (x->load != y->load)
        return x->load < y->load ? -1 : 1;
    return x->store < y->store ? -1 : x->store > y->store;
}

/* The pair map into the sorted array of the result. */
static int collect(solver *s)
{
    leap_mdf *out = s->out;
    for (size_t i = 0; i < s->pairs.cap; i++) {
        const u64map_slot *sl = &s->pairs.slots[i];
        if (!sl->used)
            continue;
        if (ARRAY_FIT(out->deps, out->cap, (size_t)out->n + 1) < 0)
            return -1;
        out->deps[out->n++] = (leap_dep){ (uint32_t)(sl->key >> 32),
                                          (uint32_t)sl->key,
                                          (uint64_t)(uintptr_t)sl->value };
    }
    if (out->n > 1)
        qsort(out->deps, out->n, sizeof *out->deps, by_load_store);
    return 0;
}

int leap_mdf_compute(const leap *l, leap_mdf *out)
{
    memset(out, 0, sizeof *out);
    solver s = { .l = l, .out = out };
    uint32_t n = leap_nstreams(l);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    out->ninsns = leap_ninsns(l);
    out->sampled = calloc(out->ninsns ? out->ninsns : 1, sizeof *out->sampled);
    int rc = order && out->sampled ? 0 : -1;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        order[i] = i;
    if (rc == 0)
        qsort_r(order, n, sizeof *order, by_group, (void *)l);
    for (uint32_t i = 0; i < n && rc == 0;) {    /* one group at a time */
        uint32_t j = i, g = leap_stream_get(l, order[i])->group;
        while (j < n && leap_stream_get(l, order[j])->group == g)
            j++;
        rc = solve_group(&s, order + i, j - i);
        i = j;
    }
    if (rc == 0)
        rc = collect(&s);
    free(order);
    free(s.cand);
    u64map_free(&s.pairs);
    return rc;
}

void leap_mdf_free(leap_mdf *m)
{
    free(m->deps);
    free(m->sampled);
    memset(m, 0, sizeof *m);
}
