/* objprof.c: aggregating the object-relative stream. See objprof.h. */
#include "objects/objprof.h"

#include <stdlib.h>
#include <string.h>

/* Per static memory instruction: its lookup cache and what it touched. */
typedef struct insn_state {
    obj_cache cache;
    obj_igstats *groups;    /* most recently used first */
} insn_state;

/* The profile being built: the map, the instructions and their state,
 * per-thread counters and the totals. */
struct objprof {
    objprof_options o;
    objmap *map;
    insn_table *insns;
    insn_state *is;
    uint32_t nis;
    obj_tstats *threads;
    uint32_t nthreads;
    uint32_t *scratch;      /* insn_table_exec's slots for partial executions */
    uint32_t nscratch;
    uint64_t accesses, loads, stores;
};

uint64_t obj_stats_offsets(const obj_stats *s)
{
    return (uint64_t)__builtin_popcountll(s->inline_bits) +
           (s->offsets ? distinct_count(s->offsets) : 0);
}

/* ---- per-group, per-thread, per-instruction state ------------------------ */

obj_gstats *objprof_group_stats(const objprof *p, const obj_group *g)
{
    (void)p;
    obj_group *mg = (obj_group *)g;
    if (!mg->user)
        mg->user = calloc(1, sizeof(obj_gstats));
    return mg->user;
}

/* The counters of thread tid, made room for; NULL when out of memory. */
static obj_tstats *thread_grow(objprof *p, uint32_t tid)
{
    uint32_t n = p->nthreads ? p->nthreads : 16;
    while (n <= tid)
        n *= 2;
    obj_tstats *t = realloc(p->threads, n * sizeof *t);
    if (!t)
        return NULL;
    memset(t + p->nthreads, 0, (n - p->nthreads) * sizeof *t);
    p->threads = t;
    p->nthreads = n;
    return &p->threads[tid];
}

/* Called per block execution: the common case inline. */
static inline obj_tstats *thread(objprof *p, uint32_t tid)
{
    return tid < p->nthreads ? &p->threads[tid] : thread_grow(p, tid);
}

static int insns_fit(objprof *p)
{
    uint32_t need = insn_table_count(p->insns);
    if (need <= p->nis)
        return 0;
    uint32_t n = p->nis ? p->nis : 1024;
    while (n < need)
        n *= 2;
    insn_state *is = realloc(p->is, n * sizeof *is);
    if (!is)
        return -1;
    memset(is + p->nis, 0, (n - p->nis) * sizeof *is);
    p->is = is;
    p->nis = n;
    return 0;
}

/* The (instruction, group) record, moved to the front of its list. */
static obj_igstats *insn_group(insn_state *s, obj_group *g)
{
    obj_igstats **pp = &s->groups, *ig;
    for (; (ig = *pp); pp = &ig->next)
        if (ig->group == g) {
            *pp = ig->next;
            break;
        }
    if (!ig && !(ig = calloc(1, sizeof *ig)))
        return NULL;
    ig->group = g;
    ig->next = s->groups;
    s->groups = ig;
    return ig;
}

/* ---- one access ------------------------------------------------------------ */

static int note_heat(obj_gstats *gs, uint64_t off, int load, int store)
{
    uint64_t b = off < OBJ_EXACT_OFFSETS
                     ? off
                     : OBJ_EXACT_OFFSETS + (off - OBJ_EXACT_OFFSETS) / OBJ_LINE;
    if (b >= gs->nheat) {
        uint64_t n = gs->nheat ? gs->nheat : 16;
        while (n <= b)
            n *= 2;
        obj_heat *h = realloc(gs->heat, n * sizeof *h);
        if (!h)
            return -1;
        memset(h + gs->nheat, 0, (n - gs->nheat) * sizeof *h);
        gs->heat = h;
        gs->nheat = n;
    }
    gs->heat[b].loads += load;
    gs->heat[b].stores += store;
    return 0;
}

/* Hash-threshold sampling: access number n of a group is kept while
 * mix(n) is a multiple of stride; when the buffer fills, the stride doubles
 * and the samples that no longer qualify go. The kept set is always
 * "every access whose hash qualifies", so it spreads evenly over the run,
 * and unlike every-k-th sampling it does not alias with loops that
 * alternate instructions with a power-of-two period. */
static uint64_t mix(uint64_t n)
{
    n *= 0x9e3779b97f4a7c15ull;
    n ^= n >> 31;
    n *= 0xbf58476d1ce4e5b9ull;
    return n ^ (n >> 29);
}

static int note_sample(obj_gstats *gs, uint32_t cap, const obj_sample *s)
{
    if (!gs->stride)
        gs->stride = 1;
    if (mix(s->n) & (gs->stride - 1))
        return 0;
    while (gs->nsamples == cap) {
        gs->stride *= 2;
        uint32_t k = 0;
        for (uint32_t i = 0; i < gs->nsamples; i++)
            if (!(mix(gs->samples[i].n) & (gs->stride - 1)))
                gs->samples[k++] = gs->samples[i];
        gs->nsamples = k;
        if (mix(s->n) & (gs->stride - 1))
            return 0;
    }
    if (gs->nsamples == gs->capsamples) {
        uint32_t n = gs->capsamples ? 2 * gs->capsamples : 64;
        if (n > cap)
            n = cap;
        obj_sample *v = realloc(gs->samples, n * sizeof *v);
        if (!v)
            return -1;
        gs->samples = v;
        gs->capsamples = n;
    }
    gs->samples[gs->nsamples++] = *s;
    return 0;
}

static int note_object(obj_object *o, uint64_t off, uint32_t size, int load,
                       int store, uint64_t time)
{
    obj_stats *st = obj_user(o);
    if (!st->accesses++)
        st->first = time;
    st->last = time;
    st->loads += load;
    st->stores += store;
    st->bytes += size;
    if (o->size <= 64 && off < 64)
        st->inline_bits |= 1ull << off;
    else if (!(off < 64 && (st->inline_bits >> off) & 1)) {
        /* Separate, so that the many small objects carry 8 bytes, not 32. */
        if (!st->offsets && !(st->offsets = calloc(1, sizeof *st->offsets)))
            return -1;
        return distinct_add(st->offsets, off);
    }
    return 0;
}

static int note_insn_group(insn_state *s, obj_object *o, uint64_t off,
                           uint32_t size, uint64_t time)
{
    obj_igstats *ig = s->groups;
    if (!ig || ig->group != o->group)
        if (!(ig = insn_group(s, o->group)))
            return -1;
    if (!ig->accesses)
        ig->first = time;
    ig->last = time;
    ig->accesses++;
    ig->bytes += size;
    if (o->group->kind > OBJ_STATIC)
        return 0;
    if (distinct_add(&ig->objects, o->serial) < 0 ||
        distinct_add(&ig->offsets, off) < 0)
        return -1;
    return 0;
}

static int on_access(objprof *p, const mr_event *ev, const mr_access *a,
                     uint32_t slot, obj_tstats *t)
{
    insn_state *s = &p->is[slot];
    obj_object *o = objmap_find(p->map, &s->cache, ev->tid, a->addr);
    obj_group *g = o->group;
    uint64_t off = a->addr - o->addr;
    uint64_t time = ev->time + a->instr;
    int load = a->kind != MR_STORE, store = a->kind != MR_LOAD;
    obj_gstats *gs = g->user ? g->user : objprof_group_stats(p, g);
    if (!gs)
        return -1;
    p->accesses++;
    p->loads += load;
    p->stores += store;
    gs->accesses++;
    gs->loads += load;
    gs->stores += store;
    gs->bytes += a->size;
    t->loads += load;
    t->stores += store;
    t->bytes += a->size;
    t->by_kind[g->kind]++;
    if (!t->seen)
        t->first = time;
    t->seen = 1;
    t->last = time;
    if (note_insn_group(s, o, off, a->size, time) < 0)
        return -1;
    if (g->kind <= OBJ_STATIC) {
        if (note_object(o, off, a->size, load, store, time) < 0 ||
            note_heat(gs, off, load, store) < 0)
            return -1;
    }
    /* note_sample's own first test, here so that most accesses skip the
     * call and the sample's construction (a stride of 0 counts as 1). */
    if (p->o.samples && !(mix(gs->accesses) & (gs->stride ? gs->stride - 1 : 0))) {
        obj_sample smp = { gs->accesses, time, o->serial, off, slot, ev->tid, a->kind };
        if (note_sample(gs, p->o.samples, &smp) < 0)
            return -1;
    }
    return 0;
}

static int on_exec(objprof *p, const mr_event *ev)
{
    uint32_t n = ev->u.exec.naccesses;
    if (!n)
        return 0;
    const mr_block_def *def = ev->u.exec.def;
    if (def->naccesses > p->nscratch) {
        uint32_t *s = realloc(p->scratch, def->naccesses * sizeof *s);
        if (!s)
            return -1;
        p->scratch = s;
        p->nscratch = def->naccesses;
    }
    const uint32_t *slots = insn_table_exec(p->insns, ev, p->scratch);
    obj_tstats *t = thread(p, ev->tid);
    if (!slots || !t || insns_fit(p) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (on_access(p, ev, &ev->u.exec.accesses[i], slots[i], t) < 0)
            return -1;
    return 0;
}

static int on_thread(objprof *p, const mr_event *ev)
{
    if (ev->u.thread.op != MR_THREAD_CREATE)
        return 0;
    obj_tstats *t = thread(p, ev->u.thread.tid);
    if (!t)
        return -1;
    t->parent = ev->u.thread.parent;
    return 0;
}

/* Does this heap operation make a new object (objmap.h)? A mapping is
 * one; a free, an munmap and a realloc (the same object) are not. */
static int makes_object(uint8_t op)
{
    switch (op) {
    case MR_MALLOC: case MR_CALLOC: case MR_MEMALIGN: case MR_NEW:
    case MR_NEW_ARRAY: case MR_MMAP:
        return 1;
    default:
        return 0;
    }
}

int objprof_event(objprof *p, const mr_event *ev)
{
    if (objmap_event(p->map, ev) < 0)
        return -1;
    switch (ev->kind) {
    case MR_EV_EXEC:
        return on_exec(p, ev);
    case MR_EV_THREAD:
        return on_thread(p, ev);
    case MR_EV_HEAP:
        if (makes_object(ev->u.heap.h.op)) {
            obj_tstats *t = thread(p, ev->tid);
            if (!t)
                return -1;
            t->allocs++;
        }
        return 0;
    default:
        return 0;
    }
}

/* objmap's end callback: report the object, then free its bitmap. */
static void object_ended(void *ctx, obj_object *o)
{
    objprof *p = ctx;
    obj_stats *st = obj_user(o);
    if (p->o.on_object)
        p->o.on_object(p->o.ctx, o, st);
    if (st->offsets) {
        distinct_free(st->offsets);
        free(st->offsets);
        st->offsets = NULL;
    }
}

objprof *objprof_new(const objprof_options *opts)
{
    objprof *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (opts)
        p->o = *opts;
    objmap_options mo = { .group_depth = p->o.group_depth,
                          .user_size = sizeof(obj_stats),
                          .reader = p->o.reader,
                          .on_end = object_ended, .ctx = p };
    p->map = objmap_new(&mo);
    p->insns = insn_table_new();
    if (!p->map || !p->insns) {
        objprof_free(p);
        return NULL;
    }
    return p;
}

void objprof_finish(objprof *p) { objmap_finish(p->map); }

void objprof_free(objprof *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->nis; i++) {
        obj_igstats *ig = p->is[i].groups;
        while (ig) {
            obj_igstats *next = ig->next;
            distinct_free(&ig->objects);
            distinct_free(&ig->offsets);
            free(ig);
            ig = next;
        }
    }
    free(p->is);
    if (p->map) {
        for (uint32_t i = 0; i < objmap_ngroups(p->map); i++) {
            obj_group *g = objmap_group(p->map, i);
            obj_gstats *gs = g->user;
            if (gs) {
                free(gs->heat);
                free(gs->samples);
                free(gs);
            }
        }
        objmap_free(p->map);
    }
    insn_table_free(p->insns);
    free(p->threads);
    free(p->scratch);
    free(p);
}

objmap *objprof_map(objprof *p) { return p->map; }
insn_table *objprof_insns(objprof *p) { return p->insns; }

const obj_igstats *objprof_insn_groups(const objprof *p, uint32_t slot)
{
    return slot < p->nis ? p->is[slot].groups : NULL;
}

uint32_t objprof_max_tid(const objprof *p)
{
    return p->nthreads ? p->nthreads - 1 : 0;
}

const obj_tstats *objprof_thread(const objprof *p, uint32_t tid)
{
    return tid < p->nthreads ? &p->threads[tid] : NULL;
}

void objprof_totals(const objprof *p, uint64_t *accesses, uint64_t *loads,
                    uint64_t *stores)
{
    *accesses = p->accesses;
    *loads = p->loads;
    *stores = p->stores;
}
