/*
 * deps.c: exact and Connors dependence profiling (see deps.h).
 */
#include <stdlib.h>
#include <string.h>

#include "deps/deps.h"
#include "deps/shadow.h"
#include "base/array.h"
#include "base/u64map.h"
#include "memrec_trace.h"

/* Per instruction: its load executions and the run of executions with the
 * same last writer, counted here and moved into the pair map when the
 * writer changes (most loads keep their writer for long runs). */
typedef struct load_state {
    uint64_t executions;
    uint32_t writer;            /* store instruction + 1 of the run, 0: none */
    uint64_t run;               /* conflicts in the run not yet in the map */
} load_state;

/* An access of the exact method waiting for its shadow (see deps_access). */
typedef struct pending {
    uint64_t addr;
    uint32_t insn, size;
    uint8_t kind;
} pending;

/* Accesses between the prefetch of an access's shadow and its use: a
 * random access's shadow is a cache miss, and this many overlap. */
#define DEPS_AHEAD 16

struct deps {
    deps_method method;
    load_state *loads;
    size_t cap_loads;
    u64map pairs;               /* (store << 32 | load) -> conflicts */
    shadow mem;                 /* exact: last writer + 1 per byte */
    pending ahead[DEPS_AHEAD];  /* exact: accesses prefetched, not yet
                                 * done (a ring, in trace order) */
    uint32_t ahead_first, ahead_n;
    /* Connors: a ring of the last stores, one array per field so that the
     * search reads addresses and sizes only. */
    uint64_t *waddr;
    uint32_t *wlen;
    uint32_t *winsn;
    uint32_t wsize, wnext, wfill;
};

deps *deps_new(deps_method method, uint32_t window)
{
    deps *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->method = method;
    shadow_init(&d->mem);
    if (method == DEPS_CONNORS) {
        d->wsize = window ? window : DEPS_DEFAULT_WINDOW;
        d->waddr = calloc(d->wsize, sizeof *d->waddr);
        d->wlen = calloc(d->wsize, sizeof *d->wlen);
        d->winsn = calloc(d->wsize, sizeof *d->winsn);
        if (!d->waddr || !d->wlen || !d->winsn) {
            deps_free(d);
            return NULL;
        }
    }
    return d;
}

void deps_free(deps *d)
{
    if (!d)
        return;
    free(d->loads);
    free(d->waddr);
    free(d->wlen);
    free(d->winsn);
    u64map_free(&d->pairs);
    shadow_free(&d->mem);
    free(d);
}

static int flush_run(deps *d, uint32_t load, load_state *ls)
{
    if (!ls->run)
        return 0;
    int added;
    void **slot = u64map_slot_of(&d->pairs,
                                 (uint64_t)(ls->writer - 1) << 32 | load, &added);
    if (!slot)
        return -1;
    *slot = (void *)((uintptr_t)*slot + ls->run);
    ls->run = 0;
    return 0;
}

/* The newest entry at or below `from` (an index) down to `to` covering
 * addr, or -1. */
static int64_t scan_down(const deps *d, uint64_t addr, int64_t from, int64_t to)
{
    for (int64_t i = from; i >= to; i--)
        if (addr - d->waddr[i] < d->wlen[i])
            return i;
    return -1;
}

/* The last writer + 1 of addr in Connors' window, 0 when none there: the
 * ring is searched newest first (below wnext, then from the top down to
 * wnext when it has wrapped). */
static uint32_t window_writer(const deps *d, uint64_t addr)
{
    int64_t i = scan_down(d, addr, (int64_t)d->wnext - 1, 0);
    if (i < 0 && d->wfill == d->wsize)
        i = scan_down(d, addr, (int64_t)d->wsize - 1, d->wnext);
    return i < 0 ? 0 : d->winsn[i] + 1;
}

/* The load part of an access: its last writer into its run. */
static int load_writer(deps *d, uint32_t insn, uint32_t w)
{
    load_state *ls = &d->loads[insn];
    if (w != ls->writer) {
        if (flush_run(d, insn, ls) < 0)
            return -1;
        ls->writer = w;
    }
    ls->run += w != 0;
    return 0;
}

/* An exact access, its shadow prefetched DEPS_AHEAD accesses ago. */
static int exact_access(deps *d, const pending *a)
{
    if ((a->kind & MR_LOAD) && load_writer(d, a->insn, shadow_get(&d->mem, a->addr)) < 0)
        return -1;
    if (a->kind & MR_STORE)
        return shadow_set(&d->mem, a->addr, a->size ? a->size : 1, a->insn + 1);
    return 0;
}

/* Does the exact accesses still waiting, in order. */
static int drain(deps *d)
{
    for (; d->ahead_n; d->ahead_n--) {
        const pending *a = &d->ahead[d->ahead_first];
        d->ahead_first = (d->ahead_first + 1) % DEPS_AHEAD;
        if (exact_access(d, a) < 0)
            return -1;
    }
    return 0;
}

int deps_access(deps *d, uint32_t insn, uint8_t kind, uint32_t size,
                uint64_t addr)
{
    if (kind & MR_LOAD) {
        if (ARRAY_FIT(d->loads, d->cap_loads, (size_t)insn + 1) < 0)
            return -1;
        d->loads[insn].executions++;
    }
    if (d->method == DEPS_EXACT) {
        /* Software pipelining: the shadow of this access is prefetched
         * now and used DEPS_AHEAD accesses later, in trace order, so the
         * result is that of doing each access at once. */
        shadow_prefetch(&d->mem, addr);
        if (d->ahead_n == DEPS_AHEAD) {
            const pending *a = &d->ahead[d->ahead_first];
            if (exact_access(d, a) < 0)
                return -1;
            d->ahead_first = (d->ahead_first + 1) % DEPS_AHEAD;
            d->ahead_n--;
        }
        d->ahead[(d->ahead_first + d->ahead_n++) % DEPS_AHEAD] =
            (pending){ addr, insn, size, kind };
        return 0;
    }
    if ((kind & MR_LOAD) && load_writer(d, insn, window_writer(d, addr)) < 0)
        return -1;
    if (kind & MR_STORE) {
        d->waddr[d->wnext] = addr;
        d->wlen[d->wnext] = size ? size : 1;
        d->winsn[d->wnext] = insn;
        d->wnext = d->wnext + 1 == d->wsize ? 0 : d->wnext + 1;
        if (d->wfill < d->wsize)
            d->wfill++;
    }
    return 0;
}

uint64_t deps_load_executions(const deps *d, uint32_t insn)
{
    return insn < d->cap_loads ? d->loads[insn].executions : 0;
}

static int by_load_store(const void *a, const void *b)
{
    const deps_pair *x = a, *y = b;
    if (x->load != y->load)
        return x->load < y->load ? -1 : 1;
    return x->store < y->store ? -1 : x->store > y->store;
}

int deps_pairs(deps *d, deps_pair **out, uint32_t *n)
{
    if (drain(d) < 0)
        return -1;
    for (size_t i = 0; i < d->cap_loads; i++)
        if (flush_run(d, (uint32_t)i, &d->loads[i]) < 0)
            return -1;
    deps_pair *p = malloc((d->pairs.count ? d->pairs.count : 1) * sizeof *p);
    if (!p)
        return -1;
    uint32_t k = 0;
    for (size_t i = 0; i < d->pairs.cap; i++) {
        const u64map_slot *sl = &d->pairs.slots[i];
        if (sl->used)
            p[k++] = (deps_pair){ (uint32_t)(sl->key >> 32), (uint32_t)sl->key,
                                  (uint64_t)(uintptr_t)sl->value };
    }
    if (k > 1)
        qsort(p, k, sizeof *p, by_load_store);
    *out = p;
    *n = k;
    return 0;
}

uint64_t deps_memory(const deps *d)
{
    return shadow_bytes(&d->mem) +
           d->wsize * (sizeof *d->waddr + sizeof *d->wlen + sizeof *d->winsn) +
           d->cap_loads * sizeof *d->loads + d->pairs.cap * sizeof *d->pairs.slots;
}
