/*
 * plus.c: TWPP+ edges for slicing (see plus.h). Each load point's edges
 * are decoded once, when first asked, and sorted by (FC, BC); each
 * call's steps are indexed by (symbol, BC) once, when a store in it is
 * first asked for.
 */
#include "slice/plus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "slice/deps.h"
#include "twpp/edges.h"

/* One load point's edges, decoded. */
typedef struct point_edges {
    twpp_edge *v;
    size_t n;
    int state;                  /* 0 not read, 1 read, 2 corrupt */
} point_edges;

/* Instances of single-address stores, per address, in step order. */
typedef struct instances {
    uint64_t *v;                /* SLICE_KEY */
    size_t n, cap;
} instances;

struct slice_plus {
    twpp_file *f;
    uint32_t npoints;
    u64map point_of;            /* hash(fn, symbol, instr, kind) -> G + 1 (probed) */
    point_edges *edges;
    u64map call_of;             /* fn << 32 | FC -> call + 1 */
    u64map steps_of;            /* call << 32 | symbol -> uint32_t array: [n, steps...] */
    u64map indexed;             /* calls whose steps are in steps_of */
    uint8_t *single_store_sym;  /* symbols with a single-address store point */
    u64map by_addr;             /* single store address -> its instances (list), once built */
    int by_addr_built;
    char err[256];
};

static uint64_t point_hash(uint32_t fn, uint32_t sym, uint32_t instr, uint32_t kind)
{
    uint64_t v[4] = { fn, sym, instr, kind }, h = 1469598103934665603ull;
    for (int i = 0; i < 4; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

/* The access point (fn, sym, instr, kind), or -1. */
static int64_t find_point(const struct slice_plus *p, uint32_t fn, uint32_t sym, uint32_t instr, uint32_t kind)
{
    for (uint64_t h = point_hash(fn, sym, instr, kind);; h++) {
        uintptr_t g = (uintptr_t)u64map_get(&p->point_of, h);
        if (!g)
            return -1;
        const twpp_point *pt = twpp_file_point(p->f, (uint32_t)g - 1);
        if (pt->fn == fn && pt->symbol == sym && pt->instr == instr && pt->kind == kind)
            return (int64_t)g - 1;
    }
}

static int index_points(struct slice_plus *p, const slice_run *r)
{
    for (uint32_t g = 0; g < p->npoints; g++) {
        const twpp_point *pt = twpp_file_point(p->f, g);
        for (uint64_t h = point_hash(pt->fn, pt->symbol, pt->instr, pt->kind);; h++) {
            int added;
            void **slot = u64map_slot_of(&p->point_of, h, &added);
            if (!slot)
                return -1;
            if (added) {
                *slot = (void *)(uintptr_t)(g + 1);
                break;
            }
        }
        if (pt->single && pt->kind != MR_LOAD && pt->symbol < r->m->nsymbols)
            p->single_store_sym[pt->symbol] = 1;
    }
    for (uint32_t c = 0; c < r->ncalls; c++) {
        int added;
        void **slot = u64map_slot_of(&p->call_of, (uint64_t)r->call_fn[c] << 32 | r->call_fc[c], &added);
        if (!slot)
            return -1;
        *slot = (void *)(uintptr_t)(c + 1);
    }
    return 0;
}

struct slice_plus *slice_plus_open(slice_run *r, char *err, size_t errlen)
{
    struct slice_plus *p = calloc(1, sizeof *p);
    if (!p)
        return snprintf(err, errlen, "out of memory"), NULL;
    p->f = r->twpp;
    if (twpp_load_points(p->f, err, errlen) < 0) {
        free(p);
        return NULL;
    }
    p->npoints = twpp_point_count(p->f);
    if (!(p->edges = calloc((size_t)p->npoints + 1, sizeof *p->edges)) ||
        !(p->single_store_sym = calloc((size_t)r->m->nsymbols + 1, 1)) || index_points(p, r) < 0) {
        slice_plus_free(p);
        return snprintf(err, errlen, "out of memory"), NULL;
    }
    return p;
}

static void free_values(u64map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].used)
            free(m->slots[i].value);
    u64map_free(m);
}

void slice_plus_free(struct slice_plus *p)
{
    if (!p)
        return;
    for (uint32_t g = 0; p->edges && g < p->npoints; g++)
        free(p->edges[g].v);
    free(p->edges);
    free(p->single_store_sym);
    u64map_free(&p->point_of);
    u64map_free(&p->call_of);
    free_values(&p->steps_of);
    for (size_t i = 0; i < p->by_addr.cap; i++)
        if (p->by_addr.slots[i].used)
            free(((instances *)p->by_addr.slots[i].value)->v);
    free_values(&p->by_addr);
    u64map_free(&p->indexed);
    free(p);
}

const char *slice_plus_error(const slice_run *r)
{
    return r->plus && r->plus->err[0] ? r->plus->err : NULL;
}

static int by_instance(const void *a, const void *b)
{
    const twpp_instance *x = &((const twpp_edge *)a)->load, *y = &((const twpp_edge *)b)->load;
    if (x->fc != y->fc)
        return x->fc < y->fc ? -1 : 1;
    return (x->bc > y->bc) - (x->bc < y->bc);
}

static point_edges *edges_of(struct slice_plus *p, uint32_t g)
{
    point_edges *pe = &p->edges[g];
    if (pe->state)
        return pe->state == 1 ? pe : NULL;
    pe->state = 2;
    twpp_edge_iter *it = twpp_edges_open(p->f, g, p->err, sizeof p->err);
    size_t cap = 0;
    twpp_edge e;
    int rc = it ? 1 : -1;
    while (it && (rc = twpp_edges_next(it, &e)) > 0) {
        if (ARRAY_FIT(pe->v, cap, pe->n + 1) < 0) {
            rc = -1;
            break;
        }
        pe->v[pe->n++] = e;
    }
    twpp_edges_close(it);
    if (rc < 0) {
        if (!p->err[0])
            snprintf(p->err, sizeof p->err, "corrupt dependence grammars of load point A%u", g + 1);
        return NULL;
    }
    if (pe->n)
        qsort(pe->v, pe->n, sizeof *pe->v, by_instance);
    pe->state = 1;
    return pe;
}

/* Indexes call c's steps by (symbol, BC) with one walk back over it. */
static int index_call(struct slice_plus *p, const slice_run *r, uint32_t c)
{
    int added = u64set_add(&p->indexed, c);
    if (added <= 0)
        return added;
    for (uint32_t s = r->call_last[c]; s != SLICE_NONE; s = r->prev[s]) {
        int fresh;
        void **slot = u64map_slot_of(&p->steps_of, (uint64_t)c << 32 | r->sym[s], &fresh);
        uint32_t bc = r->step_bc[s];
        if (!slot)
            return -1;
        if (fresh && !(*slot = calloc((size_t)bc + 1, sizeof(uint32_t))))
            return -1;
        uint32_t *v = *slot;
        if (bc > v[0] && !fresh)
            return -1;              /* BCs go down walking back: the first seen is the largest */
        if (fresh)
            v[0] = bc;
        v[bc] = s;
    }
    return 0;
}

/* The step that is execution bc of symbol sym in call c, or SLICE_NONE. */
static uint32_t step_of(struct slice_plus *p, const slice_run *r, uint32_t c, uint32_t sym, uint32_t bc)
{
    if (index_call(p, r, c) < 0)
        return SLICE_NONE;
    const uint32_t *v = u64map_get(&p->steps_of, (uint64_t)c << 32 | sym);
    return v && bc >= 1 && bc <= v[0] ? v[bc] : SLICE_NONE;
}

/* One pass over the steps: every instance of a single-address store
 * point, under its address. 0, or -1 when out of memory. */
static int index_single_stores(struct slice_plus *p, const slice_run *r)
{
    p->by_addr_built = 1;
    for (uint64_t s = 0; s < r->nsteps; s++) {
        if (!p->single_store_sym[r->sym[s]])
            continue;
        uint32_t n, fn = r->call_fn[r->call[s]];
        slice_step_insns(r, s, &n);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t kind = MR_STORE; kind <= MR_MODIFY; kind++) {
                int64_t g = find_point(p, fn, r->sym[s], i, kind);
                const twpp_point *pt = g >= 0 ? twpp_file_point(p->f, (uint32_t)g) : NULL;
                if (!pt || !pt->single)
                    continue;
                int added;
                void **slot = u64map_slot_of(&p->by_addr, pt->addr, &added);
                if (!slot || (added && !(*slot = calloc(1, sizeof(instances)))))
                    return -1;
                instances *in = *slot;
                if (ARRAY_FIT(in->v, in->cap, in->n + 1) < 0)
                    return -1;
                in->v[in->n++] = SLICE_KEY(s, i);
            }
    }
    return 0;
}

/* The latest single-address store to addr before instance (s, i) in its
 * thread: 1 and *key, 0 when there is none, -1 when out of memory. */
static int recover(struct slice_plus *p, const slice_run *r, uint64_t s, uint32_t i, uint64_t addr,
                   uint64_t *key)
{
    if (!p->by_addr_built && index_single_stores(p, r) < 0)
        return -1;
    const instances *in = u64map_get(&p->by_addr, addr);
    uint64_t at = SLICE_KEY(s, i), lo = 0, hi = in ? in->n : 0;
    while (lo < hi) {               /* the first instance at or after (s, i) */
        uint64_t mid = (lo + hi) / 2;
        if (in->v[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || SLICE_KEY_STEP(in->v[lo - 1]) < r->thread_first[slice_step_thread(r, s)])
        return 0;
    *key = in->v[lo - 1];
    return 1;
}

int slice_plus_store(const slice_run *r, uint64_t a, uint64_t *key)
{
    struct slice_plus *p = r->plus;
    uint64_t s = r->acc_step[a];
    uint32_t c = r->call[s], fn = r->call_fn[c], instr = r->acc_instr[a];
    int64_t g = find_point(p, fn, r->sym[s], instr, r->acc_kind[a]);
    if (g < 0)
        return 0;                   /* not in the dictionary: a file from another run */
    point_edges *pe = edges_of(p, (uint32_t)g);
    if (!pe)
        return -1;
    twpp_edge probe = { .load = { (uint32_t)g, r->call_fc[c], r->step_bc[s] } };
    twpp_edge *e = pe->n ? bsearch(&probe, pe->v, pe->n, sizeof *pe->v, by_instance) : NULL;
    const twpp_point *pt = twpp_file_point(p->f, (uint32_t)g);
    if (!e)
        return pt->single ? recover(p, r, s, instr, pt->addr, key) : 0;
    if (e->store.point >= p->npoints) {
        snprintf(p->err, sizeof p->err, "corrupt edge of load point A%u", (uint32_t)g + 1);
        return -1;
    }
    const twpp_point *st = twpp_file_point(p->f, e->store.point);
    uintptr_t c1 = (uintptr_t)u64map_get(&p->call_of, (uint64_t)st->fn << 32 | e->store.fc);
    uint32_t s1 = c1 ? step_of(p, r, (uint32_t)c1 - 1, st->symbol, e->store.bc) : SLICE_NONE;
    if (s1 == SLICE_NONE) {
        snprintf(p->err, sizeof p->err, "edge of load point A%u names a store instance the run does not have",
                 (uint32_t)g + 1);
        return -1;
    }
    *key = SLICE_KEY(s1, st->instr);
    return 1;
}
