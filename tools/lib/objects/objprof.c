/* objprof.c: aggregating the object-relative stream. See objprof.h. */
#include "objects/objprof.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "objects/objrel.h"

/* Per static memory instruction: what it touched. */
typedef struct insn_state {
    obj_igstats *groups;    /* most recently used first */
} insn_state;

/* The profile being built: the map, the instructions and their state,
 * per-thread counters and the totals. */
struct objprof {
    objprof_options o;
    objrel *rel;            /* the object-relative stream (insn_state each) */
    obj_tstats *threads;
    size_t nthreads;
    uint64_t instructions;  /* executed: the end of the last execution, or
                             * the end record's total */
    /* While one thread alone has made accesses (most programs), its
     * loads, stores, bytes and accesses by kind are not counted access by
     * access: they are the (instruction, group) counts' sums, made when
     * read (settle_sole). The first access of a second thread settles them
     * for good and the count goes access by access from then on. */
    int any;                /* a thread has made an access */
    int multi;              /* a second thread has */
    uint32_t sole;          /* the first thread that made one */
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
    if (!mg->user && (mg->user = aligned_alloc(_Alignof(obj_gstats), sizeof(obj_gstats))))
        memset(mg->user, 0, sizeof(obj_gstats));
    return mg->user;
}

/* The counters of thread tid, made room for; NULL when out of memory. */
static obj_tstats *thread_grow(objprof *p, uint32_t tid)
{
    if (ARRAY_FIT(p->threads, p->nthreads, (size_t)tid + 1) < 0)
        return NULL;
    return &p->threads[tid];
}

/* Called per block execution: the common case inline. */
static inline obj_tstats *thread(objprof *p, uint32_t tid)
{
    return tid < p->nthreads ? &p->threads[tid] : thread_grow(p, tid);
}

/* The (instruction, group) record, moved to the front of its list (the
 * access path has found that it is not there already). */
static __attribute__((noinline)) obj_igstats *insn_group(objprof *p, insn_state *s,
                                                          obj_group *g)
{
    obj_igstats **pp = &s->groups, *ig;
    for (; (ig = *pp); pp = &ig->next)
        if (ig->group == g) {
            *pp = ig->next;
            break;
        }
    if (!ig) {
        if (!(ig = aligned_alloc(_Alignof(obj_igstats), sizeof *ig)))
            return NULL;
        memset(ig, 0, sizeof *ig);
        if (!(ig->gs = objprof_group_stats(p, g))) {
            free(ig);
            return NULL;
        }
        ig->kind = g->kind;
    }
    ig->group = g;
    ig->next = s->groups;
    s->groups = ig;
    return ig;
}

/* ---- one access ------------------------------------------------------------ */

/* Inline (always: the access path is inlined twice, see exec_simple). */
static inline __attribute__((always_inline)) int
note_heat(obj_gstats *gs, uint64_t off, int load, int store)
{
    uint64_t b = off < OBJ_EXACT_OFFSETS
                     ? off
                     : OBJ_EXACT_OFFSETS + (off - OBJ_EXACT_OFFSETS) / OBJ_LINE;
    if (ARRAY_FIT(gs->heat, gs->nheat, b + 1) < 0)
        return -1;
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
static inline uint64_t mix(uint64_t n)
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
        gs->mask = gs->stride - 1;
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

static inline __attribute__((always_inline)) int
note_object(obj_object *o, uint64_t off, uint32_t size, int load, int store,
            uint64_t time)
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

/* One access to object o: addr of size bytes by instruction insn (whose
 * record is s) of thread tid. Only what differs per access is counted
 * here: the thread's totals are counted per execution, and only once a
 * second thread has made accesses (by_kind, else NULL; see struct objprof), the
 * group's loads, stores and bytes and the totals come from the
 * (instruction, group) counts at the end (objprof_finish), and so does
 * ig->bytes (an instruction's accesses all have its size). */
static inline __attribute__((always_inline)) int
on_access(objprof *p, obj_object *o, uint32_t tid, uint64_t addr, uint32_t size,
          uint8_t kind, uint64_t time, uint32_t insn, insn_state *s,
          uint64_t *by_kind)
{
    obj_igstats *ig = s->groups;
    if (__builtin_expect(!ig || ig->group != o->group, 0))
        if (!(ig = insn_group(p, s, o->group)))
            return -1;
    obj_gstats *gs = ig->gs;
    if (by_kind)
        *by_kind += 1ull << ((ig->kind & 3) * 16);
    uint64_t off = addr - o->addr;
    gs->accesses++;
    if (!ig->accesses)
        ig->first = time;
    ig->last = time;
    ig->accesses++;
    if (ig->kind <= OBJ_STATIC) {
        int load = kind != MR_STORE, store = kind != MR_LOAD;
        /* this order of the sets' growth is the budget's (distinct.h) */
        if (distinct_add(&ig->objects, o->serial) < 0 ||
            distinct_add(&ig->offsets, off) < 0 ||
            note_object(o, off, size, load, store, time) < 0 ||
            note_heat(gs, off, load, store) < 0)
            return -1;
    }
    /* note_sample's own first test, here so that most accesses skip the
     * call and the sample's construction. */
    if (p->o.samples && !(mix(gs->accesses) & gs->mask)) {
        obj_sample smp = { gs->accesses, time, o->serial, off, insn, tid, kind };
        if (note_sample(gs, p->o.samples, &smp) < 0)
            return -1;
    }
    return 0;
}

/* The sole thread's loads, stores, bytes and accesses by kind from the
 * (instruction, group) counts, which are all its own: see struct objprof.
 * Idempotent; the counters are derived, so a const profile may settle. */
static void settle_sole(const objprof *cp)
{
    objprof *p = (objprof *)cp;
    if (p->multi || !p->any)
        return;
    obj_tstats *t = &p->threads[p->sole];
    t->loads = t->stores = t->bytes = 0;
    memset(t->by_kind, 0, sizeof t->by_kind);
    const insn_table *tab = objprof_insns(p);
    for (uint32_t slot = 0; slot < insn_table_count(tab); slot++) {
        const insn_info *in = insn_table_get(tab, slot);
        const obj_igstats *ig = ((insn_state *)objrel_user(p->rel, slot))->groups;
        for (; ig; ig = ig->next) {
            t->loads += in->kind != MR_STORE ? ig->accesses : 0;
            t->stores += in->kind != MR_LOAD ? ig->accesses : 0;
            t->bytes += ig->accesses * in->size;
            t->by_kind[ig->kind & 3] += ig->accesses;
        }
    }
}

/* The accesses of one execution, the common case: one thread so far,
 * and not a batch. Inline: the access path with nothing else. */
static inline __attribute__((always_inline)) int
exec_simple(objprof *p, const access_exec *x)
{
    const mr_event *ev = x->ev;
    for (uint32_t i = 0; i < x->n; i++) {
        const mr_access *a = &x->acc[i];
        obj_object *o = objrel_find(p->rel, x, i, a->addr);
        if (on_access(p, o, ev->tid, a->addr, a->size, a->kind,
                      ev->time + a->instr, x->insn[i],
                      objrel_access_user(x, i), NULL) < 0)
            return -1;
    }
    return 0;
}

/* The accesses of one execution or of a batch of them (each execution in
 * turn, as they ran), by thread t; count_thread: count the thread's
 * totals access by access (a second thread has made accesses). */
static __attribute__((noinline)) int
exec_general(objprof *p, const access_exec *x, obj_tstats *t, int count_thread)
{
    const mr_event *ev = x->ev;
    /* The thread's counts in registers, added once per execution. The
     * accesses by kind of memory are four 16-bit counters in one word
     * (flushed every 65535 accesses), so that counting one is an add,
     * not a load and store to an array indexed by the kind, which the
     * next access would wait for. */
    uint64_t loads = 0, stores = 0, bytes = 0, by_kind = 0;
    uint32_t n = x->n < 65535 ? x->n : 65535;
    for (uint64_t j = 0; j < x->repeat; j++) {
        uint64_t base = ev->time + j * ev->u.exec.period;
        for (uint32_t first = 0; first < x->n; first += n) {
            uint32_t end = x->n - first < n ? x->n : first + n;
            for (uint32_t i = first; i < end; i++) {
                const mr_access *a = &x->acc[i];
                uint64_t addr = a->addr + (x->repeat > 1 ? j * x->strides[i] : 0);
                obj_object *o = objrel_find(p->rel, x, i, addr);
                loads += a->kind != MR_STORE;
                stores += a->kind != MR_LOAD;
                bytes += a->size;
                if (on_access(p, o, ev->tid, addr, a->size, a->kind,
                              base + a->instr, x->insn[i],
                              objrel_access_user(x, i),
                              count_thread ? &by_kind : NULL) < 0)
                    return -1;
            }
            for (int k = 0; k < 4; k++)
                t->by_kind[k] += (by_kind >> (16 * k)) & 0xffff;
            by_kind = 0;
        }
    }
    if (count_thread) {
        t->loads += loads;
        t->stores += stores;
        t->bytes += bytes;
    }
    return 0;
}

static int on_exec(objprof *p, const access_exec *x, obj_tstats *t)
{
    uint32_t tid = x->ev->tid;
    if (!p->any) {
        p->any = 1;
        p->sole = tid;
    } else if (!p->multi && tid != p->sole) {
        settle_sole(p);
        p->multi = 1;
    }
    int rc = !p->multi && x->repeat == 1 ? exec_simple(p, x)
                                         : exec_general(p, x, t, p->multi);
    if (!t->seen)
        t->first = access_time(x, 0, 0);
    t->seen = 1;
    t->last = access_time(x, x->n - 1, x->repeat - 1);
    return rc;
}

static int on_thread(objprof *p, const mr_event *ev)
{
    uint8_t op = ev->u.thread.op;
    if (op != MR_THREAD_CREATE && op != MR_THREAD_OS)
        return 0;
    obj_tstats *t = thread(p, ev->u.thread.tid);
    if (!t)
        return -1;
    if (op == MR_THREAD_CREATE)
        t->parent = ev->u.thread.parent;
    else if (!t->has_os_tid) {
        t->os_tid = ev->u.thread.os_tid;
        t->has_os_tid = 1;
    }
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

/* Any event but an execution: the map's, threads, allocations, the end. */
static __attribute__((noinline)) int on_other(objprof *p, const mr_event *ev)
{
    access_exec x;
    if (ev->kind == MR_EV_END && ev->u.end->totals.instructions)
        p->instructions = ev->u.end->totals.instructions;
    if (objrel_event(p->rel, ev, &x) < 0)
        return -1;
    switch (ev->kind) {
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

int objprof_event(objprof *p, const mr_event *ev)
{
    if (ev->kind != MR_EV_EXEC)
        return on_other(p, ev);
    access_exec x;
    p->instructions = ev->time + ev->u.exec.ninstrs;
    obj_tstats *t = thread(p, ev->tid);
    if (!t)
        return -1;
    /* every execution, with accesses or not; a batch stands for repeat
     * executions a period apart */
    t->instructions += ev->u.exec.repeat > 1
                           ? ev->u.exec.repeat * ev->u.exec.period
                           : ev->u.exec.ninstrs;
    int rc = objrel_event(p->rel, ev, &x);
    return rc <= 0 ? rc : on_exec(p, &x, t);
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
    if (!(p->rel = objrel_new(&mo, sizeof(insn_state)))) {
        objprof_free(p);
        return NULL;
    }
    return p;
}

/* What the accesses did not count one by one: each (instruction, group)'s
 * bytes, and each group's loads, stores and bytes, from the instruction's
 * kind and size (every access of an instruction slot has them). */
static void count_by_instruction(objprof *p)
{
    const insn_table *t = objprof_insns(p);
    uint32_t n = insn_table_count(t);
    for (uint32_t slot = 0; slot < n; slot++) {
        const insn_info *in = insn_table_get(t, slot);
        obj_igstats *ig = ((insn_state *)objrel_user(p->rel, slot))->groups;
        for (; ig; ig = ig->next) {
            obj_gstats *gs = objprof_group_stats(p, ig->group);
            ig->bytes = ig->accesses * in->size;
            if (!gs)
                continue;
            gs->loads += in->kind != MR_STORE ? ig->accesses : 0;
            gs->stores += in->kind != MR_LOAD ? ig->accesses : 0;
            gs->bytes += ig->bytes;
        }
    }
}

void objprof_finish(objprof *p)
{
    settle_sole(p);
    count_by_instruction(p);
    objrel_finish(p->rel);
}

void objprof_free(objprof *p)
{
    if (!p)
        return;
    uint32_t ninsns = p->rel ? insn_table_count(objprof_insns(p)) : 0;
    for (uint32_t i = 0; i < ninsns; i++) {
        obj_igstats *ig = ((insn_state *)objrel_user(p->rel, i))->groups;
        while (ig) {
            obj_igstats *next = ig->next;
            distinct_free(&ig->objects);
            distinct_free(&ig->offsets);
            free(ig);
            ig = next;
        }
    }
    if (p->rel) {
        objmap *map = objrel_map(p->rel);
        for (uint32_t i = 0; i < objmap_ngroups(map); i++) {
            obj_group *g = objmap_group(map, i);
            obj_gstats *gs = g->user;
            if (gs) {
                free(gs->heat);
                free(gs->samples);
                free(gs);
            }
        }
    }
    objrel_free(p->rel);
    free(p->threads);
    free(p);
}

objmap *objprof_map(objprof *p) { return objrel_map(p->rel); }
const insn_table *objprof_insns(const objprof *p)
{
    return access_stream_insns(objrel_stream(p->rel));
}

const obj_igstats *objprof_insn_groups(const objprof *p, uint32_t insn)
{
    if (insn >= insn_table_count(objprof_insns(p)))
        return NULL;
    return ((insn_state *)objrel_user(p->rel, insn))->groups;
}

uint32_t objprof_max_tid(const objprof *p)
{
    return p->nthreads ? p->nthreads - 1 : 0;
}

const obj_tstats *objprof_thread(const objprof *p, uint32_t tid)
{
    if (tid == p->sole)     /* the others' counts need no settling */
        settle_sole(p);
    return tid < p->nthreads ? &p->threads[tid] : NULL;
}

uint64_t objprof_instructions(const objprof *p) { return p->instructions; }

void objprof_totals(const objprof *p, uint64_t *accesses, uint64_t *loads,
                    uint64_t *stores)
{
    /* every access is its thread's: the totals are the threads' sums */
    settle_sole(p);
    *accesses = *loads = *stores = 0;
    for (size_t tid = 0; tid < p->nthreads; tid++) {
        const obj_tstats *t = &p->threads[tid];
        for (int k = 0; k < 4; k++)
            *accesses += t->by_kind[k];
        *loads += t->loads;
        *stores += t->stores;
    }
}
