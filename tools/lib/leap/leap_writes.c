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

void leap_writes_sort(leap_writes *x)
{
    if (x->n > 1)
        qsort(x->w, x->n, sizeof *x->w, by_key);
}

/* The first of w[lo, hi) not before the key (hi when none). */
static uint32_t first_from(const leap_write *w, uint32_t lo, uint32_t hi,
                           int64_t object, int64_t offset, uint32_t size,
                           int64_t time)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&w[mid], object, offset, size, time) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of w[lo, hi) past the run of (object, offset, size). */
static uint32_t run_end(const leap_write *w, uint32_t lo, uint32_t hi,
                        int64_t object, int64_t offset, uint32_t size)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const leap_write *m = &w[mid];
        if (m->object == object && m->offset == offset && m->size == size)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t leap_writes_last(const leap_writes *x, int64_t object, int64_t offset,
                         int64_t t, uint32_t *insn)
{
    const leap_write *w = x->w;
    int64_t best = -1;
    /* The first run that may reach the byte starts widest - 1 before it. */
    uint32_t i = first_from(w, 0, x->n, object, offset - (int64_t)x->widest + 1, 0,
                            INT64_MIN);
    while (i < x->n && w[i].object == object && w[i].offset <= offset) {
        const leap_write *r = &w[i];
        /* The run of (object, offset, size): [i, end). */
        uint32_t end = run_end(w, i + 1, x->n, r->object, r->offset, r->size);
        if (r->offset + (int64_t)r->size - 1 >= offset) {
            /* The run's writes before t: [i, before). */
            uint32_t before = first_from(w, i, end, r->object, r->offset, r->size, t);
            if (before > i && w[before - 1].time > best) {
                best = w[before - 1].time;
                *insn = w[before - 1].insn;
            }
        }
        i = end;
    }
    return best;
}

void leap_writes_free(leap_writes *x)
{
    free(x->w);
    *x = (leap_writes){ 0 };
}
