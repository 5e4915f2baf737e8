/* direct.c: the direct redundancy pass over a shadow memory (direct.h). */
#include "redundancy/direct.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/symbolize.h"
#include "base/shadowmap.h"

#define PAGE_BITS 12                            /* 4 KiB of memory per page */
#define GRANULE_BITS 3                          /* 8-byte granules, as twpp/deps.h */
#define CHUNK_BITS 20                           /* read flags per chunk: 2^20 stores */

/* The last store into one granule and the loads that read it there. A
 * store instance is one execution of a store instruction: an instruction
 * that stores several times in one execution (xsave, a push and a store)
 * makes one instance, as TWPP+'s <G, FC, BC> does; each access still has
 * its own serial, which orders them as deps.c orders them. */
typedef struct granule {
    uint64_t serial;            /* the store access's number, from 1; 0: never written */
    uint64_t instance;          /* its instance's number */
    uint32_t insn;              /* the instance's instruction */
    uint32_t loads;             /* loads that read it in this granule */
} granule;

/* Per instruction, indexed by its number. */
typedef struct counts {
    uint64_t loads, redundant_loads, unwritten_loads, stores, read_stores;
} counts;

struct redund_direct {
    shadowmap mem;              /* a granule per 8 bytes of memory */
    uint64_t serial;            /* store accesses so far */
    uint64_t instances;         /* store instances so far */
    uint64_t **read;            /* bit per store instance: some load read it */
    size_t nchunks, chunk_cap;
    counts *counts;
    size_t ncounts;
    uint64_t accesses;
};

redund_direct *redund_direct_new(void)
{
    redund_direct *d = calloc(1, sizeof(redund_direct));
    if (d)
        shadowmap_init(&d->mem, sizeof(granule), GRANULE_BITS, PAGE_BITS);
    return d;
}

void redund_direct_free(redund_direct *d)
{
    if (!d)
        return;
    shadowmap_free(&d->mem);
    for (size_t i = 0; i < d->nchunks; i++)
        free(d->read[i]);
    free(d->read);
    free(d->counts);
    free(d);
}

static counts *counts_of(redund_direct *d, uint32_t insn)
{
    if (ARRAY_FIT(d->counts, d->ncounts, (size_t)insn + 1) < 0)
        return NULL;
    return &d->counts[insn];
}

/* Marks store instance serial read; 1 if it was not yet, -1 out of memory. */
static int mark_read(redund_direct *d, uint64_t serial)
{
    size_t chunk = serial >> CHUNK_BITS;
    if (chunk >= d->nchunks) {
        if (ARRAY_FIT(d->read, d->chunk_cap, chunk + 1) < 0)
            return -1;
        d->nchunks = chunk + 1;
    }
    if (!d->read[chunk] && !(d->read[chunk] = calloc(1u << (CHUNK_BITS - 6), 8)))
        return -1;
    uint64_t *word = &d->read[chunk][(serial & ((1u << CHUNK_BITS) - 1)) >> 6];
    uint64_t bit = 1ull << (serial & 63);
    if (*word & bit)
        return 0;
    *word |= bit;
    return 1;
}

/* A store access of instance (0: a new instance of insn). The instance's
 * number, 0 when out of memory. */
static uint64_t store_access(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size,
                             uint64_t instance, uint32_t owner)
{
    if (!instance) {
        counts *c = counts_of(d, insn);
        if (!c)
            return 0;
        c->stores++;
        instance = ++d->instances;
        owner = insn;
    }
    d->accesses++;
    uint64_t serial = ++d->serial;
    uint64_t last = addr + (size ? size - 1 : 0);
    for (uint64_t g = addr >> GRANULE_BITS; g <= last >> GRANULE_BITS; g++) {
        granule *x = shadowmap_at(&d->mem, g, 1);
        if (!x)
            return 0;
        *x = (granule){ serial, instance, owner, 0 };
    }
    return instance;
}

int redund_direct_store(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size)
{
    return store_access(d, insn, addr, size, 0, 0) ? 0 : -1;
}

int redund_direct_load(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size)
{
    counts *c = counts_of(d, insn);
    if (!c)
        return -1;
    c->loads++;
    d->accesses++;
    uint64_t last = addr + (size ? size - 1 : 0);
    granule *best = NULL;
    for (uint64_t g = addr >> GRANULE_BITS; g <= last >> GRANULE_BITS; g++) {
        granule *x = shadowmap_at(&d->mem, g, 0);
        if (x && x->serial && (!best || x->serial > best->serial))
            best = x;           /* the most recent store among the granules */
    }
    if (!best) {
        c->unwritten_loads++;
        return 0;
    }
    if (best->loads++) {        /* an earlier load read this store here */
        c->redundant_loads++;
        return 0;               /* and marked its instance read */
    }
    int first = mark_read(d, best->instance);
    if (first < 0)
        return -1;
    if (first)
        d->counts[best->insn].read_stores++;
    return 0;
}

int redund_direct_exec(redund_direct *d, const access_exec *x)
{
    for (uint64_t j = 0; j < x->repeat; j++) {
        /* The accesses of one instruction are consecutive: the instance
         * of its stores (one per kind, store or modify) until it changes. */
        uint64_t instance[2] = { 0, 0 };
        uint32_t owner[2] = { 0, 0 };
        for (uint32_t i = 0; i < x->n; i++) {
            const mr_access *a = &x->acc[i];
            uint64_t addr = a->addr + (x->strides ? j * x->strides[i] : 0);
            if (i && a->instr != x->acc[i - 1].instr)
                instance[0] = instance[1] = 0;
            if ((a->kind & MR_LOAD) && redund_direct_load(d, x->insn[i], addr, a->size) < 0)
                return -1;
            if (a->kind & MR_STORE) {
                int k = a->kind == MR_MODIFY;
                uint64_t got = store_access(d, x->insn[i], addr, a->size, instance[k], owner[k]);
                if (!got)
                    return -1;
                if (!instance[k])
                    owner[k] = x->insn[i];
                instance[k] = got;
            }
        }
    }
    return 0;
}

int redund_direct_counts(const redund_direct *d, uint32_t insn, redund_insn *out)
{
    const counts *c = insn < d->ncounts ? &d->counts[insn] : NULL;
    if (!c || (!c->loads && !c->stores))
        return 0;
    *out = (redund_insn){ .loads = c->loads, .redundant_loads = c->redundant_loads,
                          .unwritten_loads = c->unwritten_loads, .stores = c->stores,
                          .redundant_stores = c->stores - c->read_stores };
    return 1;
}

/* Adds c's counts into x. */
static void add_counts(redund_insn *x, const redund_insn *c)
{
    x->loads += c->loads;
    x->redundant_loads += c->redundant_loads;
    x->unwritten_loads += c->unwritten_loads;
    x->stores += c->stores;
    x->redundant_stores += c->redundant_stores;
}

int redund_direct_result(const redund_direct *d, const insn_table *t,
                         const mr_reader *r, redund_result *out)
{
    u64map at = { 0 };
    memset(out, 0, sizeof *out);
    if (d->ncounts && !(out->insns = calloc(d->ncounts, sizeof *out->insns)))
        return -1;
    /* One entry per (address, kind), as TWPP+'s points have it: the sizes
     * an instruction accessed are summed, the size shown is its first
     * access's (instructions are numbered in order of first sight). */
    uint32_t n = insn_table_count(t);
    for (uint32_t i = 0; i < n && i < d->ncounts; i++) {
        redund_insn c;
        if (!redund_direct_counts(d, i, &c))
            continue;
        const insn_info *in = insn_table_get(t, i);
        int added;
        void **v = u64map_slot_of(&at, in->addr << 2 | in->kind, &added);
        if (!v)
            goto oom;
        if (!added) {
            add_counts(&out->insns[(uintptr_t)*v - 1], &c);
            continue;
        }
        redund_insn *o = &out->insns[out->n];
        *v = (void *)(uintptr_t)++out->n;
        char where[SYM_BUF];
        *o = c;
        o->addr = in->addr;
        o->size = in->size;
        o->kind = in->kind;
        if (r && !(o->where = strdup(sym_where(r, in->addr, where, sizeof where))))
            goto oom;
    }
    u64map_free(&at);
    redund_result_sort(out);
    return 0;
oom:
    u64map_free(&at);
    redund_result_free(out);
    return -1;
}

uint64_t redund_direct_accesses(const redund_direct *d) { return d->accesses; }

uint64_t redund_direct_bytes(const redund_direct *d)
{
    return shadowmap_bytes(&d->mem) +
           d->nchunks * (1u << (CHUNK_BITS - 3)) + d->ncounts * sizeof(counts);
}
