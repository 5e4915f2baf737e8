/*
 * leap_mdf.c: the dependence post-processor on LMADs (see leap_mdf.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leap/leap_mdf.h"
#include "leap/leap_writes.h"
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

/* A store LMAD ready for solving: per level j, the extent of one copy of
 * the levels below it (relative to the copy's first point), in every
 * dimension. */
typedef struct shape {
    const lmad *m;
    int64_t size;               /* bytes of each write */
    int64_t lo[LMAD_MAX_OUTER + 1][LEAP_DIMS], hi[LMAD_MAX_OUTER + 1][LEAP_DIMS];
} shape;

static void shape_init(shape *sh, const lmad *m, uint32_t size)
{
    sh->m = m;
    sh->size = size ? size : 1;
    for (uint32_t j = 0; j <= m->nouter; j++)
        for (uint32_t d = 0; d < LEAP_DIMS; d++) {
            lmad_extent(m, d, j, &sh->lo[j][d], &sh->hi[j][d]);
            sh->lo[j][d] -= m->start[d];
            sh->hi[j][d] -= m->start[d];
        }
}

/* The copy of the innermost level that starts at base: the time of its
 * last point before t over the first byte of (object, offset), or -1. */
static int64_t last_in_row(const shape *sh, const int64_t *base, int64_t object,
                           int64_t offset, int64_t t)
{
    const lmad *s = sh->m;
    int64_t lo = 0, hi = (int64_t)s->count - 1;
    int64_t t0 = base[LEAP_TIME], dt = s->stride[LEAP_TIME];
    if (t0 >= t)
        return -1;
    if (dt > 0 && (t - 1 - t0) / dt < hi)   /* earlier than the load */
        hi = (t - 1 - t0) / dt;
    int64_t o0 = base[LEAP_OBJECT], dobj = s->stride[LEAP_OBJECT];
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
    int64_t f0 = base[LEAP_OFFSET], df = s->stride[LEAP_OFFSET], sz = sh->size;
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
    return lo <= hi ? t0 + hi * dt : -1;
}

/* Narrows [*lo, *hi] to the copies k whose values base + k * stride +
 * [rlo, rhi] meet [a, b]; 0 when none is left. */
static int narrow(int64_t base, int64_t stride, int64_t rlo, int64_t rhi,
                  int64_t a, int64_t b, int64_t *lo, int64_t *hi)
{
    if (stride == 0)
        return base + rlo <= b && base + rhi >= a;
    int64_t klo, khi;
    if (stride > 0) {
        khi = floor_div(b - base - rlo, stride);
        klo = ceil_div(a - base - rhi, stride);
    } else {
        klo = ceil_div(b - base - rlo, stride);
        khi = floor_div(a - base - rhi, stride);
    }
    if (klo > *lo)
        *lo = klo;
    if (khi < *hi)
        *hi = khi;
    return *lo <= *hi;
}

/* The copy of levels 0 .. j that starts at base: the time of its last
 * point before t over the first byte of (object, offset), or -1. The
 * copies of level j are tried latest first; the first one that covers the
 * byte has the answer (time grows along the stream). */
static int64_t last_in(const shape *sh, uint32_t j, const int64_t *base,
                       int64_t object, int64_t offset, int64_t t)
{
    if (j == 0)
        return last_in_row(sh, base, object, offset, t);
    const lmad_level *L = &sh->m->outer[j - 1];
    const int64_t *rlo = sh->lo[j], *rhi = sh->hi[j];
    if (base[LEAP_TIME] >= t)
        return -1;
    int64_t lo = 0, hi = (int64_t)L->count - 1;
    int64_t dt = L->stride[LEAP_TIME];      /* > 0 in a stream's LMAD */
    if (dt > 0 && (t - 1 - base[LEAP_TIME]) / dt < hi)
        hi = (t - 1 - base[LEAP_TIME]) / dt;
    if (!narrow(base[LEAP_OBJECT], L->stride[LEAP_OBJECT], rlo[LEAP_OBJECT],
                rhi[LEAP_OBJECT], object, object, &lo, &hi) ||
        !narrow(base[LEAP_OFFSET], L->stride[LEAP_OFFSET], rlo[LEAP_OFFSET],
                rhi[LEAP_OFFSET] + sh->size - 1, offset, offset, &lo, &hi))
        return -1;
    int still = L->stride[LEAP_OBJECT] == 0 && L->stride[LEAP_OFFSET] == 0;
    for (int64_t k = hi; k >= lo; k--) {
        int64_t b[LEAP_DIMS];
        for (uint32_t d = 0; d < LEAP_DIMS; d++)
            b[d] = (int64_t)((uint64_t)base[d] + (uint64_t)k * (uint64_t)L->stride[d]);
        int64_t w = last_in(sh, j - 1, b, object, offset, t);
        if (w >= 0)
            return w;
        /* Copies in the same place wholly before t all answer alike. */
        if (still && b[LEAP_TIME] + rhi[LEAP_TIME] < t)
            break;
    }
    return -1;
}

int64_t leap_last_write(const lmad *s, uint32_t size, int64_t object,
                        int64_t offset, int64_t t)
{
    shape sh;
    shape_init(&sh, s, size);
    return last_in(&sh, s->nouter, s->start, object, offset, t);
}

/* A store LMAD that may have written what a load LMAD reads, with its
 * box, which most points of the load fall outside of. */
typedef struct candidate {
    int64_t omin, omax, fmin, fmax, t0;
    int64_t tlast;              /* time of its last point: a store whose
                                 * writes all precede the best writer found
                                 * so far is not solved */
    uint32_t insn;
    uint32_t shape;             /* its shape: solver.shapes[shape] */
} candidate;

/* The bounding box of an LMAD, per dimension. */
static void lmad_range(const lmad *m, uint32_t d, int64_t *min, int64_t *max)
{
    lmad_extent(m, d, m->nouter + 1, min, max);
}

/* A summarised store stream of the group: its summary, the size of its
 * writes, and the times a point is tested against first (most points of
 * an irregular group are early, before most summaries begin). */
typedef struct over_ref {
    int64_t first, last;        /* times of its first and last summarised
                                 * points */
    const lmad_summary *o;
    uint32_t size;
} over_ref;

/* A store LMAD of the group with its bounding box, made once per group
 * so that finding a load LMAD's candidates is a scan of boxes. */
typedef struct store_box {
    const lmad *m;
    uint32_t insn, size;
    int64_t omin, omax;         /* objects */
    int64_t fmin, fmax;         /* bytes written: offsets to last + size - 1 */
    int64_t tlast;              /* time of its last point */
    int32_t shape;              /* its shape in solver.shapes, made when it
                                 * is first a candidate; -1 before */
} store_box;

/* Width classes of store boxes (bytes from the first written to the last):
 * a box narrower than class_limit[k] (and not of an earlier class) is in
 * class k. The boxes of a class are sorted by their first byte, so those
 * that may cover a byte start within [byte - the class's widest, byte]:
 * a binary search, then a short scan. A stack's many one-slot stores are
 * thus not scanned past for a box 4 KiB wide; boxes of no class (4 KiB or
 * more: whole arrays) are tried one by one. */
#define NCLASSES 2
static const int64_t class_limit[NCLASSES] = { 64, 4096 };

/* A class's part of an array: [begin, end), and the widest box in it. */
typedef struct span {
    uint32_t begin, end;
    int64_t widest;
} span;

static uint32_t width_class(int64_t fmin, int64_t fmax)
{
    uint32_t k = 0;
    while (k < NCLASSES && (uint64_t)(fmax - fmin) >= (uint64_t)class_limit[k])
        k++;
    return k;
}

/* Working state of one computation. */
typedef struct solver {
    const leap *l;
    leap_mdf *out;
    uint64_t budget;            /* load points solved per stream (0: all) */
    u64map pairs;               /* (store << 32 | load) -> conflicts */
    leap_writes writes;         /* the group's short store LMADs, point by
                                 * point (leap_writes.h) */
    store_box *boxes;           /* the group's longer store LMADs: by width
                                 * class, then by fmin (see box_class) */
    size_t cap_boxes;
    uint32_t nboxes;
    span box_class[NCLASSES];   /* the boxes of each class; after the last,
                                 * the wide ones */
    shape *shapes;              /* the group's candidate boxes' shapes, each
                                 * made once per group, not per load stream */
    size_t cap_shapes;
    uint32_t nshapes;
    candidate *cand;
    size_t cap_cand;
    uint32_t ncand;
    span cand_class[NCLASSES];  /* the candidates of each class, by fmin;
                                 * after the last, the wide ones */
    over_ref *over;             /* the group's summarised store streams,
                                 * by first time */
    size_t cap_over;
    uint32_t nover;
    uint32_t hit;               /* the one that last covered a point: the
                                 * next point's most likely, tried first */
    u64map tentative;           /* (store << 32 | load) -> conflicts of the
                                 * points that were not decided: a load
                                 * none of whose points is decided is
                                 * guessed from them (leap_mdf.h) */
    uint64_t *undecided;        /* per instruction: its points not decided */
} solver;

/* n more conflicts of (store, load) in map m. */
static int count_pair(u64map *m, uint32_t store, uint32_t load, uint64_t n)
{
    int added;
    void **slot = u64map_slot_of(m, (uint64_t)store << 32 | load, &added);
    if (!slot)
        return -1;
    *slot = (void *)((uintptr_t)*slot + n);
    return 0;
}

/* Boxes by width class, then by first byte. */
static int by_class_fmin(const void *a, const void *b)
{
    const store_box *x = a, *y = b;
    uint32_t cx = width_class(x->fmin, x->fmax), cy = width_class(y->fmin, y->fmax);
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return x->fmin < y->fmin ? -1 : x->fmin > y->fmin;
}

/* The group's store LMADs: the short ones as writes, the others as boxes. */
static int make_boxes(solver *s, const uint32_t *stores, uint32_t nstores)
{
    s->nboxes = s->nshapes = 0;
    leap_writes_clear(&s->writes);
    for (uint32_t i = 0; i < nstores; i++) {
        const leap_stream *st = leap_stream_get(s->l, stores[i]);
        uint32_t size = leap_insn_get(s->l, st->insn)->size;
        for (uint32_t j = 0; j < st->lmads.n; j++) {
            if (lmad_points(&st->lmads.lmads[j]) <= LEAP_WRITES_MAX_POINTS) {
                if (leap_writes_add(&s->writes, &st->lmads.lmads[j], size, st->insn) < 0)
                    return -1;
                continue;
            }
            if (ARRAY_FIT(s->boxes, s->cap_boxes, s->nboxes + 1) < 0)
                return -1;
            store_box *b = &s->boxes[s->nboxes++];
            b->m = &st->lmads.lmads[j];
            b->insn = st->insn;
            b->size = size;
            lmad_range(b->m, LEAP_OBJECT, &b->omin, &b->omax);
            lmad_range(b->m, LEAP_OFFSET, &b->fmin, &b->fmax);
            b->fmax += (int64_t)(size ? size : 1) - 1;
            b->tlast = lmad_last(b->m, LEAP_TIME);
            b->shape = -1;
        }
    }
    if (leap_writes_sort(&s->writes) < 0)
        return -1;
    if (s->nboxes > 1)
        qsort(s->boxes, s->nboxes, sizeof *s->boxes, by_class_fmin);
    uint32_t i = 0;
    for (uint32_t k = 0; k < NCLASSES; k++) {
        span *c = &s->box_class[k];
        c->begin = i;
        c->widest = 0;
        for (; i < s->nboxes && width_class(s->boxes[i].fmin, s->boxes[i].fmax) == k; i++)
            if (s->boxes[i].fmax - s->boxes[i].fmin > c->widest)
                c->widest = s->boxes[i].fmax - s->boxes[i].fmin;
        c->end = i;
    }
    return 0;
}

/* lo_out = the first of arr[begin, end) whose fmin is at least v (fmin
 * ascends there): a binary search over boxes or candidates alike. */
#define FIRST_FROM(arr, begin, end, v, lo_out)                              \
    do {                                                                    \
        uint32_t lo_ = (begin), hi_ = (end);                                \
        while (lo_ < hi_) {                                                 \
            uint32_t mid_ = lo_ + (hi_ - lo_) / 2;                          \
            if ((arr)[mid_].fmin < (v))                                     \
                lo_ = mid_ + 1;                                             \
            else                                                            \
                hi_ = mid_;                                                 \
        }                                                                   \
        (lo_out) = lo_;                                                     \
    } while (0)

/* Box b joins the candidates (its shape made when it is first one). */
static int add_candidate(solver *s, store_box *b)
{
    if (ARRAY_FIT(s->cand, s->cap_cand, s->ncand + 1) < 0)
        return -1;
    if (b->shape < 0) {
        if (ARRAY_FIT(s->shapes, s->cap_shapes, s->nshapes + 1) < 0)
            return -1;
        shape_init(&s->shapes[s->nshapes], b->m, b->size);
        b->shape = (int32_t)s->nshapes++;
    }
    candidate *cd = &s->cand[s->ncand++];
    cd->shape = (uint32_t)b->shape;
    cd->tlast = b->tlast;
    cd->insn = b->insn;
    cd->omin = b->omin;
    cd->omax = b->omax;
    cd->fmin = b->fmin;
    cd->fmax = b->fmax;
    cd->t0 = b->m->start[LEAP_TIME];
    return 0;
}

/* Candidates by the time of their last point, latest first. */
static int by_tlast_down(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->tlast != y->tlast)
        return x->tlast > y->tlast ? -1 : 1;
    return x->shape < y->shape ? -1 : x->shape > y->shape;
}

/* The store LMADs of the group that may feed load stream ls: boxes
 * overlapping the box of its LMADs, starting before its last point. Once
 * per load stream (its LMADs are often short and many). */
static int gather(solver *s, const lmad_stream *ls)
{
    int64_t omin = INT64_MAX, omax = INT64_MIN, fmin = INT64_MAX, fmax = INT64_MIN;
    int64_t last = INT64_MIN;
    for (uint32_t j = 0; j < ls->n; j++) {
        int64_t a, b;
        lmad_range(&ls->lmads[j], LEAP_OBJECT, &a, &b);
        omin = a < omin ? a : omin;
        omax = b > omax ? b : omax;
        lmad_range(&ls->lmads[j], LEAP_OFFSET, &a, &b);
        fmin = a < fmin ? a : fmin;
        fmax = b > fmax ? b : fmax;
        a = lmad_last(&ls->lmads[j], LEAP_TIME);
        last = a > last ? a : last;
    }
    s->ncand = 0;
    for (uint32_t k = 0; k <= NCLASSES; k++) {
        /* Class k's boxes that may reach [fmin, fmax] start within
         * [fmin - widest, fmax]; the wide ones (k = NCLASSES) all. */
        uint32_t i, end = k < NCLASSES ? s->box_class[k].end : s->nboxes;
        if (k < NCLASSES) {
            FIRST_FROM(s->boxes, s->box_class[k].begin, end,
                       fmin - s->box_class[k].widest, i);
            s->cand_class[k] = (span){ s->ncand, s->ncand, 0 };
        } else {
            i = s->box_class[NCLASSES - 1].end;
        }
        for (; i < end; i++) {
            store_box *b = &s->boxes[i];
            if (k < NCLASSES && b->fmin > fmax)
                break;
            if (b->omax < omin || omax < b->omin || b->fmax < fmin || fmax < b->fmin ||
                b->m->start[LEAP_TIME] >= last)
                continue;
            if (add_candidate(s, b) < 0)
                return -1;
            if (k < NCLASSES) {
                span *c = &s->cand_class[k];
                c->end = s->ncand;
                if (b->fmax - b->fmin > c->widest)
                    c->widest = b->fmax - b->fmin;
            }
        }
    }
    /* The wide ones latest first: a point stops at the first that ends
     * before the writer it has. */
    uint32_t wide = s->cand_class[NCLASSES - 1].end;
    if (s->ncand - wide > 1)
        qsort(s->cand + wide, s->ncand - wide, sizeof *s->cand, by_tlast_down);
    return 0;
}

/* Whether summary o (of size-byte stores) may hold a write of the first
 * byte of the point's (object, offset): within its box, on its grid. */
static int summary_covers(const lmad_summary *o, uint32_t size, const int64_t *p)
{
    int64_t obj = p[LEAP_OBJECT], off = p[LEAP_OFFSET], sz = size ? size : 1;
    if (obj < o->min[LEAP_OBJECT] || obj > o->max[LEAP_OBJECT] ||
        off < o->min[LEAP_OFFSET] || off > o->max[LEAP_OFFSET] + sz - 1)
        return 0;
    uint64_t go = o->gran[LEAP_OBJECT], gf = o->gran[LEAP_OFFSET];
    if (go && (obj - o->first[LEAP_OBJECT]) % (int64_t)go)
        return 0;
    if (gf) {       /* a write at first + k * gf in (off - sz, off] */
        int64_t d = off - o->first[LEAP_OFFSET];
        int64_t r = d % (int64_t)gf;
        if (r < 0)
            r += (int64_t)gf;
        if (r >= sz)
            return 0;
    } else if (off < o->first[LEAP_OFFSET] || off >= o->first[LEAP_OFFSET] + sz) {
        return 0;
    }
    return 1;
}

/* Whether summarised stream r may have written the point's first byte
 * after best, before the point. */
static inline int over_covers(const over_ref *r, const int64_t *p, int64_t best)
{
    return r->first < p[LEAP_TIME] && r->last > best && summary_covers(r->o, r->size, p);
}

/* By first time (then by summary, for a total order). */
static int by_first(const void *a, const void *b)
{
    const over_ref *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->o < y->o ? -1 : x->o > y->o;
}

/* One load point against the candidates: its last writer gets a conflict.
 * A point whose last writer the profile cannot tell (a summarised store
 * may have written its byte after the last write the LMADs show, before
 * the load) is left out of the sample. */
static int solve_point(solver *s, const int64_t *p, uint32_t load)
{
    uint32_t writer = 0;
    int64_t off = p[LEAP_OFFSET];
    /* The short LMADs' last write first: the boxes that end before it
     * are then not solved. */
    int64_t best = leap_writes_last(&s->writes, p[LEAP_OBJECT], off, p[LEAP_TIME], &writer);
    for (uint32_t k = 0; k <= NCLASSES; k++) {
        /* Class k's candidates that may cover the byte start within
         * [offset - widest, offset]; the wide ones (k = NCLASSES) all. */
        uint32_t i, end = k < NCLASSES ? s->cand_class[k].end : s->ncand;
        if (k < NCLASSES)
            FIRST_FROM(s->cand, s->cand_class[k].begin, end, off - s->cand_class[k].widest, i);
        else
            i = s->cand_class[NCLASSES - 1].end;
        for (; i < end; i++) {
            const candidate *c = &s->cand[i];
            if (k < NCLASSES ? c->fmin > off : c->tlast <= best)
                break;
            if (p[LEAP_OBJECT] < c->omin || p[LEAP_OBJECT] > c->omax ||
                off < c->fmin || off > c->fmax ||
                c->t0 >= p[LEAP_TIME] || c->tlast <= best)
                continue;
            const shape *sh = &s->shapes[c->shape];
            int64_t w = last_in(sh, sh->m->nouter, sh->m->start,
                                p[LEAP_OBJECT], off, p[LEAP_TIME]);
            if (w > best) {
                best = w;
                writer = c->insn;
            }
        }
    }
    int covered = s->hit < s->nover && over_covers(&s->over[s->hit], p, best);
    for (uint32_t i = 0; !covered && i < s->nover && s->over[i].first < p[LEAP_TIME]; i++)
        if (over_covers(&s->over[i], p, best))
            covered = 1, s->hit = i;
    if (covered) {
        /* Not decided. Its answer with the summaries left out is kept
         * apart: the load's guess, if no point of it is decided. */
        s->undecided[load]++;
        return best >= 0 ? count_pair(&s->tentative, writer, load, 1) : 0;
    }
    s->out->sampled[load]++;
    return best >= 0 ? count_pair(&s->pairs, writer, load, 1) : 0;
}

/* splitmix64: the deterministic random numbers of the stratified sample. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The load stream's captured points, all of them or, past the budget,
 * a stratified sample: the points cut into `budget` equal strata, one point
 * drawn at random from each. */
static int solve_stream(solver *s, const leap_stream *ld)
{
    const lmad_stream *ls = &ld->lmads;
    uint64_t total = 0;
    for (uint32_t j = 0; j < ls->n; j++)
        total += lmad_points(&ls->lmads[j]);
    uint64_t want = s->budget && total > s->budget ? s->budget : total;
    uint64_t state = (uint64_t)ld->insn << 32 | ld->group;
    uint64_t base = 0, in_lmad = 0;     /* points before LMAD j, points of j */
    uint32_t j = 0;
    if (want && gather(s, ls) < 0)
        return -1;
    for (uint64_t i = 0; i < want; i++) {
        uint64_t idx = i;
        if (want < total) {
            uint64_t lo = (uint64_t)((unsigned __int128)i * total / want);
            uint64_t hi = (uint64_t)((unsigned __int128)(i + 1) * total / want);
            idx = lo + next_random(&state) % (hi - lo);
        }
        if (i == 0)
            in_lmad = lmad_points(&ls->lmads[0]);
        while (idx >= base + in_lmad) {
            base += in_lmad;
            in_lmad = lmad_points(&ls->lmads[++j]);
        }
        int64_t p[LEAP_DIMS];
        lmad_point(&ls->lmads[j], LEAP_DIMS, idx - base, p);
        if (solve_point(s, p, ld->insn) < 0)
            return -1;
    }
    return 0;
}

/* Every load stream of one group against the group's store streams. */
static int solve_group(solver *s, const uint32_t *streams, uint32_t n)
{
    /* The group's store streams; those with a summary also by first
     * time. */
    uint32_t *stores = malloc((n ? n : 1) * sizeof *stores), nstores = 0;
    if (!stores)
        return -1;
    s->nover = s->hit = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const leap_stream *st = leap_stream_get(s->l, streams[i]);
        const leap_insn *in = leap_insn_get(s->l, st->insn);
        if (!(in->kind & MR_STORE))
            continue;
        stores[nstores++] = streams[i];
        if (!st->lmads.over.count)
            continue;
        if (ARRAY_FIT(s->over, s->cap_over, s->nover + 1) < 0)
            rc = -1;
        else
            s->over[s->nover++] = (over_ref){ st->lmads.over.first[LEAP_TIME],
                                              st->lmads.over.max[LEAP_TIME],
                                              &st->lmads.over, in->size };
    }
    if (s->nover > 1)
        qsort(s->over, s->nover, sizeof *s->over, by_first);
    if (rc == 0)
        rc = make_boxes(s, stores, nstores);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const leap_stream *ld = leap_stream_get(s->l, streams[i]);
        if (leap_insn_get(s->l, ld->insn)->kind & MR_LOAD)
            rc = solve_stream(s, ld);
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

/* Every group in turn. order: the streams by group. */
static int solve_groups(solver *s, const uint32_t *order, uint32_t n)
{
    const leap *l = s->l;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0;) {    /* one group at a time */
        uint32_t j = i, g = leap_stream_get(l, order[i])->group;
        while (j < n && leap_stream_get(l, order[j])->group == g)
            j++;
        rc = solve_group(s, order + i, j - i);
        i = j;
    }
    return rc;
}

/* Loads with captured points none of which was decided are guessed: their
 * points' answers with the summaries left out, kept apart while solving,
 * join the pairs. guess: per instruction, scratch. */
static int add_guesses(solver *s, uint8_t *guess)
{
    const leap *l = s->l;
    leap_mdf *out = s->out;
    for (uint32_t i = 0; i < leap_nstreams(l); i++) {
        const leap_stream *st = leap_stream_get(l, i);
        if ((leap_insn_get(l, st->insn)->kind & MR_LOAD) && st->lmads.n &&
            !out->sampled[st->insn]) {
            guess[st->insn] = 1;
            out->guessed[st->insn] = s->undecided[st->insn];
        }
    }
    for (size_t i = 0; i < s->tentative.cap; i++) {
        const u64map_slot *sl = &s->tentative.slots[i];
        if (sl->used && guess[(uint32_t)sl->key] &&
            count_pair(&s->pairs, (uint32_t)(sl->key >> 32), (uint32_t)sl->key,
                       (uint64_t)(uintptr_t)sl->value) < 0)
            return -1;
    }
    return 0;
}

int leap_mdf_compute(const leap *l, uint64_t budget, leap_mdf *out)
{
    memset(out, 0, sizeof *out);
    solver s = { .l = l, .out = out, .budget = budget };
    uint32_t n = leap_nstreams(l);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    out->ninsns = leap_ninsns(l);
    size_t ni = out->ninsns ? out->ninsns : 1;
    out->sampled = calloc(ni, sizeof *out->sampled);
    out->guessed = calloc(ni, sizeof *out->guessed);
    s.undecided = calloc(ni, sizeof *s.undecided);
    uint8_t *guess = calloc(ni, 1);
    int rc = order && out->sampled && out->guessed && s.undecided && guess ? 0 : -1;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        order[i] = i;
    if (rc == 0) {
        qsort_r(order, n, sizeof *order, by_group, (void *)l);
        rc = solve_groups(&s, order, n);
    }
    if (rc == 0)
        rc = add_guesses(&s, guess);
    if (rc == 0)
        rc = collect(&s);
    free(order);
    free(s.cand);
    free(s.shapes);
    free(s.boxes);
    leap_writes_free(&s.writes);
    free(s.over);
    free(s.undecided);
    free(guess);
    u64map_free(&s.pairs);
    u64map_free(&s.tentative);
    return rc;
}

double leap_mdf_frequency(const leap_mdf *m, const leap_dep *d)
{
    uint64_t n = m->sampled[d->load] ? m->sampled[d->load] : m->guessed[d->load];
    return n ? (double)d->conflicts / (double)n : 0;
}

void leap_mdf_free(leap_mdf *m)
{
    free(m->deps);
    free(m->sampled);
    free(m->guessed);
    memset(m, 0, sizeof *m);
}
