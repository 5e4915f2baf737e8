/*
 * leap_writes.c: a group's short store LMADs as sorted writes (see
 * leap_writes.h).
 */
#include <stdlib.h>

#include "leap/leap_writes.h"
#include "leap/leap.h"
#include "base/array.h"

void leap_writes_clear(leap_writes *x)
{
    x->n = 0;
    x->widest = 1;
}

int leap_writes_add(leap_writes *x, const lmad *m, uint32_t size, uint32_t insn)
{
    uint64_t n = lmad_points(m);
    if (ARRAY_FIT(x->w, x->cap, (size_t)x->n + n) < 0)
        return -1;
    if (size == 0)
        size = 1;
    if (size > x->widest)
        x->widest = size;
    for (uint64_t k = 0; k < n; k++) {
        int64_t p[LEAP_DIMS];
        lmad_point(m, LEAP_DIMS, k, p);
        x->w[x->n++] = (leap_write){ p[LEAP_OBJECT], p[LEAP_OFFSET], p[LEAP_TIME],
                                     size, insn };
    }
    return 0;
}

/* Order of (object, offset, size, time); a time is one access, so the
 * writer breaks no tie that matters, but makes the order total. */
static int key_cmp(const leap_write *a, int64_t object, int64_t offset,
                   uint32_t size, int64_t time)
{
    if (a->object != object)
        return a->object < object ? -1 : 1;
    if (a->offset != offset)
        return a->offset < offset ? -1 : 1;
    if (a->size != size)
        return a->size < size ? -1 : 1;
    return a->time < time ? -1 : a->time > time;
}

static int by_key(const void *pa, const void *pb)
{
    const leap_write *a = pa, *b = pb;
    int c = key_cmp(a, b->object, b->offset, b->size, b->time);
    return c ? c : (a->insn > b->insn) - (a->insn < b->insn);
}

int leap_writes_sort(leap_writes *x)
{
    if (x->n > 1)
        qsort(x->w, x->n, sizeof *x->w, by_key);
    if (ARRAY_FIT(x->time, x->cap_time, x->n) < 0 ||
        ARRAY_FIT(x->insn, x->cap_insn, x->n) < 0)
        return -1;
    x->nruns = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const leap_write *w = &x->w[i];
        x->time[i] = w->time;
        x->insn[i] = w->insn;
        leap_write_run *r = x->nruns ? &x->runs[x->nruns - 1] : NULL;
        if (r && r->object == w->object && r->offset == w->offset && r->size == w->size) {
            r->end = i + 1;
            continue;
        }
        if (ARRAY_FIT(x->runs, x->cap_runs, (size_t)x->nruns + 1) < 0)
            return -1;
        x->runs[x->nruns++] = (leap_write_run){ w->object, w->offset, w->size, i, i + 1 };
    }
    return 0;
}

/* The first run not before (object, offset). */
static uint32_t first_run(const leap_writes *x, int64_t object, int64_t offset)
{
    uint32_t lo = 0, hi = x->nruns;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const leap_write_run *r = &x->runs[mid];
        if (r->object < object || (r->object == object && r->offset < offset))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of time[lo, hi) at t or later (a run: in time order). */
static uint32_t before_time(const int64_t *time, uint32_t lo, uint32_t hi, int64_t t)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (time[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t leap_writes_last(const leap_writes *x, int64_t object, int64_t offset,
                         int64_t t, uint32_t *insn)
{
    int64_t best = -1;
    /* The first run that may reach the byte starts widest - 1 before it. */
    for (uint32_t i = first_run(x, object, offset - (int64_t)x->widest + 1);
         i < x->nruns && x->runs[i].object == object && x->runs[i].offset <= offset; i++) {
        const leap_write_run *r = &x->runs[i];
        if (r->offset + (int64_t)r->size - 1 < offset)
            continue;           /* ends before the byte */
        uint32_t b = before_time(x->time, r->begin, r->end, t);
        if (b > r->begin && x->time[b - 1] > best) {
            best = x->time[b - 1];
            *insn = x->insn[b - 1];
        }
    }
    return best;
}

void leap_writes_free(leap_writes *x)
{
    free(x->w);
    free(x->runs);
    free(x->time);
    free(x->insn);
    *x = (leap_writes){ 0 };
}
