/*
 * whomp.c: the OMSG, RASG and vertical grammars of WHOMP (see whomp.h).
 */
#include "whomp/whomp.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/u64map.h"

/* One instruction's vertical stream. */
typedef struct vertical {
    uint32_t insn;
    sequitur *g;
} vertical;

/* The streams a batch holds: the four dimensions, then the RASG's. */
enum { RASG_STREAM = WHOMP_DIMS, STREAMS };

/* Accesses gathered before any grammar sees them. Feeding five grammars one
 * symbol each per access makes them evict each other's nodes and digram
 * slots from the cache at every access; fed a whole batch in turn, each
 * grammar's working set stays warm for the batch (15% less time on a
 * gzip recording). */
#define BATCH 4096

/* The work of one batch: one task per grammar fed (the four OMSG, the
 * RASG, and all vertical grammars together). A grammar takes its batches
 * in order; different grammars need not be at the same batch. */
enum { TASK_VERTICAL = STREAMS, TASKS };

/* Batches gathered and not yet taken by every grammar, at most. With one
 * batch shared by both threads, each batch ended on a barrier (its last
 * task ran on one thread while the other waited), and the two large
 * grammars, each about a third of the work, could never share a batch
 * evenly: on a gzip recording the threads were busy 1.5 cores of 2.
 * With batches queued, a thread takes whichever grammar is furthest
 * behind, and only the grammars' total work and the longest one bound the
 * time. The second thread still waits when only one grammar has work left
 * and the caller runs it: on that recording it waited 0.7-0.9 s with 8
 * batches queued, 0.02-0.27 s with 32 (5 MB), 0.02-0.13 s with 64. */
#define QUEUE 32

/* One gathered batch: symbols by stream, in access order. */
typedef struct batch {
    uint64_t sym[STREAMS][BATCH];
    uint32_t n;                 /* accesses in it */
    int pending;                /* tasks not yet ended on it (0: free) */
} batch;

/* The second thread (whomp_options.threads = 2). The caller posts batches
 * into the queue; both threads run the grammars' tasks on them, the
 * caller whenever it must wait for a free batch to gather into. Every
 * field, and every batch's n and pending while queued, is under lock. */
typedef struct helper {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* a batch posted, a task ended, or stop */
    uint64_t done[TASKS];       /* batches each task has ended */
    int running[TASKS];         /* the task is being run */
    uint64_t took[TASKS];       /* nanoseconds its last batch took */
    int ran[TASKS];             /* the thread that ran it last: 0 the
                                   caller, 1 the second thread */
    int stop;                   /* no more batches: the thread returns */
} helper;

struct whomp {
    whomp_options opt;
    sequitur *omsg[WHOMP_DIMS];
    sequitur *rasg;
    batch *queue;               /* QUEUE batches, a ring */
    uint64_t posted;            /* batches posted; queue[posted % QUEUE] is
                                   the one gathered (free while gathered) */
    int tasks;                  /* tasks per batch (TASK_VERTICAL
                                   only with opt.vertical) */
    int failed;                 /* a grammar ran out of memory (under
                                   helper->lock while there is one) */
    helper *helper;             /* NULL: the caller does every task */
    uint32_t *vertical_of;      /* instruction -> index into verticals + 1 */
    size_t vertical_of_cap;
    vertical *verticals;
    size_t verticals_cap;
    uint32_t nverticals;
    unsigned rasg_bits;         /* the RASG's instruction field (whomp.h) */
    unsigned refused_bits;      /* the field the last refused access needed */
    int by_region;              /* RASG addresses packed by region (whomp.h) */
    u64map regions;             /* an address's bits 32 and up -> region + 1
                                   (region 0, the first 4 GiB, is implicit) */
    uint64_t *region_bases;     /* region -> its high bits, for the report */
    size_t region_bases_cap;
    uint32_t nregions;          /* regions numbered so far, region 0 included */
    uint64_t last_high, last_region;    /* the last lookup: accesses stay in
                                           one region for long stretches */
    uint64_t kept, skipped;
};

/* Feeds n symbols to one grammar; -1 when it ran out of memory. */
static int feed(sequitur *g, const uint64_t *symbols, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (sq_append(g, symbols[i]) < 0)
            return -1;
    return 0;
}

static int feed_vertical(whomp *w, const batch *b);

/* Task t on batch b; -1 when its grammar ran out of memory. */
static int run_task(whomp *w, int t, const batch *b)
{
    if (t < WHOMP_DIMS)
        return feed(w->omsg[t], b->sym[t], b->n);
    if (t == RASG_STREAM)
        return feed(w->rasg, b->sym[RASG_STREAM], b->n);
    return feed_vertical(w, b);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The task thread self runs next: of those not running and behind the
 * posted batches, one it ran last if any (a small grammar's nodes and
 * table then stay in that core's cache), else the one with the most work
 * left by its last batch's time (so that the large grammars, whose chains
 * of batches bound the time, never wait at the end); -1 when none. Lock
 * held. */
static int pick_task(const whomp *w, const helper *h, int self)
{
    int best = -1, best_own = 0;
    uint64_t most = 0;
    for (int t = 0; t < w->tasks; t++) {
        if (h->running[t] || h->done[t] >= w->posted)
            continue;
        int own = h->ran[t] == self;
        uint64_t left = (w->posted - h->done[t]) * (h->took[t] + 1);
        if (best < 0 || own > best_own || (own == best_own && left > most))
            best = t, most = left, best_own = own;
    }
    return best;
}

/* Runs one task on its next batch, the lock let go meanwhile. Lock held. */
static void run_claimed(whomp *w, helper *h, int t, int self)
{
    batch *b = &w->queue[h->done[t] % QUEUE];
    int failed = w->failed;
    h->running[t] = 1;
    pthread_mutex_unlock(&h->lock);
    uint64_t start = now_ns();
    int rc = failed ? -1 : run_task(w, t, b);
    uint64_t took = now_ns() - start;
    pthread_mutex_lock(&h->lock);
    h->took[t] = took;
    h->ran[t] = self;
    w->failed |= rc < 0;
    h->running[t] = 0;
    h->done[t]++;
    b->pending--;
    pthread_cond_broadcast(&h->changed);
}

/* Runs tasks, or waits for them, until ready(w) holds (the thread: until
 * stop and no task is left). Lock held. */
static void work_until(whomp *w, helper *h, int (*ready)(const whomp *w))
{
    int self = ready == NULL;
    for (;;) {
        if (ready && ready(w))
            return;
        int t = pick_task(w, h, self);
        if (t >= 0)
            run_claimed(w, h, t, self);
        else if (!ready && h->stop)
            return;
        else
            pthread_cond_wait(&h->changed, &h->lock);
    }
}

/* The batch to gather next is free. */
static int gather_free(const whomp *w)
{
    return w->queue[w->posted % QUEUE].pending == 0;
}

/* Every posted batch has been taken by every grammar. */
static int all_done(const whomp *w)
{
    for (int t = 0; t < w->tasks; t++)
        if (w->helper->done[t] < w->posted || w->helper->running[t])
            return 0;
    return 1;
}

static void *helper_main(void *arg)
{
    whomp *w = arg;
    pthread_mutex_lock(&w->helper->lock);
    work_until(w, w->helper, NULL);
    pthread_mutex_unlock(&w->helper->lock);
    return NULL;
}

/* Starts the second thread; without one (no memory, no thread) the caller
 * does every task itself. */
static void helper_start(whomp *w)
{
    helper *h = calloc(1, sizeof *h);
    if (!h)
        return;
    if (pthread_mutex_init(&h->lock, NULL) != 0) {
        free(h);
        return;
    }
    w->helper = h;
    if (pthread_cond_init(&h->changed, NULL) != 0 ||
        pthread_create(&h->thread, NULL, helper_main, w) != 0) {
        pthread_cond_destroy(&h->changed);      /* harmless if init failed */
        pthread_mutex_destroy(&h->lock);
        free(h);
        w->helper = NULL;
    }
}

/* Waits until every posted batch is in every grammar, running tasks
 * meanwhile; afterwards no task runs until the next post. */
static void wait_all(whomp *w)
{
    if (!w->helper)
        return;
    pthread_mutex_lock(&w->helper->lock);
    work_until(w, w->helper, all_done);
    pthread_mutex_unlock(&w->helper->lock);
}

/* Lets the thread end its tasks, then ends it. */
static void helper_stop(whomp *w)
{
    helper *h = w->helper;
    wait_all(w);
    pthread_mutex_lock(&h->lock);
    h->stop = 1;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
    pthread_cond_destroy(&h->changed);
    pthread_mutex_destroy(&h->lock);
    free(h);
    w->helper = NULL;
}

/* Posts the gathered batch (if it holds any access) and makes the next
 * one free to gather: without the thread, by running its tasks now; with
 * it, by running tasks (or waiting) until the batch QUEUE posts back is
 * done with. -1 when a grammar ran out of memory. */
static int flush(whomp *w)
{
    helper *h = w->helper;
    batch *b = &w->queue[w->posted % QUEUE];
    if (!h) {
        for (int t = 0; t < w->tasks && !w->failed && b->n; t++)
            w->failed = run_task(w, t, b) < 0;
        b->n = 0;
        return w->failed ? -1 : 0;
    }
    pthread_mutex_lock(&h->lock);
    if (b->n && !w->failed) {
        b->pending = w->tasks;
        w->posted++;
        pthread_cond_broadcast(&h->changed);
        work_until(w, h, gather_free);
        w->queue[w->posted % QUEUE].n = 0;
    }
    int failed = w->failed;
    pthread_mutex_unlock(&h->lock);
    return failed ? -1 : 0;
}

whomp *whomp_new(const whomp_options *o)
{
    whomp *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->opt = *o;
    w->tasks = o->vertical ? TASKS : TASK_VERTICAL;
    w->rasg_bits = WHOMP_RASG_BITS;
    w->last_high = UINT64_MAX;  /* no lookup yet (high bits are below 2^32) */
    w->nregions = 1;            /* region 0, whose base is 0 */
    int ok = (w->queue = calloc(QUEUE, sizeof *w->queue)) && (w->rasg = sq_new()) != NULL &&
             ARRAY_FIT(w->region_bases, w->region_bases_cap, 1) == 0;
    for (int d = 0; d < WHOMP_DIMS; d++)
        ok = ok && (w->omsg[d] = sq_new()) != NULL;
    if (!ok) {
        whomp_free(w);
        return NULL;
    }
    if (o->threads >= 2)
        helper_start(w);
    return w;
}

void whomp_free(whomp *w)
{
    if (!w)
        return;
    if (w->helper)
        helper_stop(w);
    for (int d = 0; d < WHOMP_DIMS; d++)
        sq_free(w->omsg[d]);
    sq_free(w->rasg);
    u64map_free(&w->regions);
    free(w->region_bases);
    for (uint32_t i = 0; i < w->nverticals; i++)
        sq_free(w->verticals[i].g);
    free(w->verticals);
    free(w->vertical_of);
    free(w->queue);
    free(w);
}

/* The vertical grammar of insn, created at its first access. */
static sequitur *vertical_of(whomp *w, uint32_t insn)
{
    if (ARRAY_FIT(w->vertical_of, w->vertical_of_cap, (size_t)insn + 1) < 0)
        return NULL;
    uint32_t i = w->vertical_of[insn];
    if (i)
        return w->verticals[i - 1].g;
    if (ARRAY_FIT(w->verticals, w->verticals_cap, w->nverticals + 1) < 0)
        return NULL;
    sequitur *g = sq_new();
    if (!g)
        return NULL;
    w->verticals[w->nverticals++] = (vertical){ insn, g };
    w->vertical_of[insn] = w->nverticals;
    return g;
}

/* Each access's (group, object, offset) to its instruction's grammar. */
static int feed_vertical(whomp *w, const batch *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        sequitur *v = vertical_of(w, (uint32_t)b->sym[WHOMP_INSTRUCTION][i]);
        if (!v || sq_append(v, b->sym[WHOMP_GROUP][i]) < 0 ||
            sq_append(v, b->sym[WHOMP_OBJECT][i]) < 0 || sq_append(v, b->sym[WHOMP_OFFSET][i]) < 0)
            return -1;
    }
    return 0;
}

/* addr packed by region: its 4 GiB region's number (by first use; the
 * first 4 GiB are region 0, so that 0 stays 0 as sq_relabel needs) above
 * its low 32 bits. UINT64_MAX when out of memory. */
static uint64_t region_packed(whomp *w, uint64_t addr)
{
    uint64_t high = addr >> 32;
    if (high != w->last_high) {
        uint64_t region = 0;
        if (high) {
            int added;
            void **v = u64map_slot_of(&w->regions, high, &added);
            if (!v)
                return UINT64_MAX;
            if (added) {
                if (ARRAY_FIT(w->region_bases, w->region_bases_cap, w->nregions + 1) < 0)
                    return UINT64_MAX;
                w->region_bases[w->nregions] = high;
                *v = (void *)(uintptr_t)w->nregions++;
            }
            region = (uintptr_t)*v;
        }
        w->last_high = high;
        w->last_region = region;
    }
    return w->last_region << 32 | (addr & UINT32_MAX);
}

/* addr as the RASG's terminals hold it. */
static uint64_t rasg_address(whomp *w, uint64_t addr)
{
    return w->by_region ? region_packed(w, addr) : addr;
}

/* A change of the RASG terminals' packing: the instruction field from
 * `from` to `to` bits and, with to_regions, raw addresses packed by region. */
typedef struct repack {
    whomp *w;
    unsigned from, to;
    int to_regions;
    int out_of_memory;          /* region_packed failed */
} repack;

/* The terminal packed anew; UINT64_MAX (no terminal) when its address does
 * not fit beside the wider field. */
static uint64_t repack_terminal(void *ctx, uint64_t t)
{
    repack *p = ctx;
    uint64_t addr = t >> p->from, insn = t & ((UINT64_C(1) << p->from) - 1);
    if (p->to_regions && (addr = region_packed(p->w, addr)) == UINT64_MAX) {
        p->out_of_memory = 1;
        return UINT64_MAX;
    }
    return addr >> (63 - p->to) ? UINT64_MAX : addr << p->to | insn;
}

/* Relabels the builder and the gathered batch as p says (no task may run).
 * 0; -1 out of memory; -2 when some terminal does not fit (nothing changed). */
static int relabel(whomp *w, repack *p)
{
    batch *b = &w->queue[w->posted % QUEUE];
    uint64_t *gathered = b->sym[RASG_STREAM];
    for (uint32_t i = 0; i < b->n; i++)
        if (repack_terminal(p, gathered[i]) == UINT64_MAX)
            return p->out_of_memory ? -1 : -2;
    if (sq_relabel(w->rasg, repack_terminal, p) < 0)
        return p->out_of_memory || errno != EINVAL ? -1 : -2;
    for (uint32_t i = 0; i < b->n; i++)
        gathered[i] = repack_terminal(p, gathered[i]);
    w->rasg_bits = p->to;
    w->by_region |= p->to_regions;
    return 0;
}

/* insn needs more than rasg_bits bits, or addr does not fit beside them:
 * widens the field to insn's bits, and when addresses no longer fit
 * beside it, packs them by region from then on, relabelling the builder
 * and the gathered batch once the queued batches are done with (a few
 * times per trace at most: instruction numbers are dense, so each width is
 * crossed once, and the packing changes once). 0, -1 when out of memory,
 * -2 when some address still does not fit (more regions than the field
 * leaves room for). */
static int rasg_repack(whomp *w, uint32_t insn, uint64_t addr)
{
    unsigned bits = w->rasg_bits;
    while (insn >> bits)
        bits++;
    wait_all(w);                /* no task may touch the builder */
    if (w->failed)
        return -1;
    repack p = { .w = w, .from = w->rasg_bits, .to = bits };
    uint64_t packed = rasg_address(w, addr);
    if (packed == UINT64_MAX)
        return -1;
    int rc = -2;
    if (!(packed >> (63 - bits)))
        rc = relabel(w, &p);
    if (rc == -2 && !w->by_region) {
        p.to_regions = 1;
        if ((packed = region_packed(w, addr)) == UINT64_MAX)
            return -1;
        if (!(packed >> (63 - bits)))
            rc = relabel(w, &p);
    }
    w->refused_bits = rc == -2 ? bits : 0;
    return rc;
}

int whomp_access(whomp *w, uint32_t insn, const obj_object *o, uint64_t addr)
{
    uint8_t kind = o->group->kind;
    if (kind == OBJ_UNKNOWN || (kind == OBJ_STACK && !w->opt.stack)) {
        w->skipped++;
        return 0;
    }
    uint64_t packed = rasg_address(w, addr);
    if (insn >> w->rasg_bits || packed >> (63 - w->rasg_bits)) {  /* UINT64_MAX too */
        int rc = rasg_repack(w, insn, addr);
        if (rc < 0)
            return rc;
        packed = rasg_address(w, addr);
    }
    batch *b = &w->queue[w->posted % QUEUE];
    uint32_t i = b->n++;
    b->sym[WHOMP_INSTRUCTION][i] = insn;
    b->sym[WHOMP_GROUP][i] = o->group->id;
    b->sym[WHOMP_OBJECT][i] = o->serial;
    b->sym[WHOMP_OFFSET][i] = addr - o->addr;
    b->sym[RASG_STREAM][i] = packed << w->rasg_bits | insn;
    w->kept++;
    if (b->n == BATCH && flush(w) < 0)
        return -1;
    return 1;
}

unsigned whomp_rasg_bits(const whomp *w) { return w->refused_bits ? w->refused_bits : w->rasg_bits; }

uint32_t whomp_rasg_regions(const whomp *w, const uint64_t **bases)
{
    *bases = w->region_bases;
    return w->by_region ? w->nregions : 0;
}
uint64_t whomp_kept(const whomp *w) { return w->kept; }
uint64_t whomp_skipped(const whomp *w) { return w->skipped; }

int whomp_finish(whomp *w)
{
    int rc = flush(w);
    if (w->helper)
        helper_stop(w);
    return rc < 0 || w->failed ? -1 : 0;
}

/* The finished grammar of *b, whose builder goes: a large builder (nodes
 * and digram table) takes several times its grammar's memory, and its
 * table goes before the grammar is copied out (sq_finish_free), so the
 * peak holds one less table (on a gzip recording, the 64 MiB of the
 * offset grammar's while the RASG builder is still whole). */
static sq_grammar *take(sequitur **b)
{
    sq_grammar *g = sq_finish_free(*b);
    *b = NULL;
    return g;
}

sq_grammar *whomp_take_omsg(whomp *w, int dim)
{
    return dim >= 0 && dim < WHOMP_DIMS && !w->queue[w->posted % QUEUE].n && !w->helper ? take(&w->omsg[dim]) : NULL;
}

sq_grammar *whomp_take_rasg(whomp *w)
{
    return w->queue[w->posted % QUEUE].n || w->helper ? NULL : take(&w->rasg);
}

uint32_t whomp_vertical_count(const whomp *w) { return w->nverticals; }
uint32_t whomp_vertical_insn(const whomp *w, uint32_t i) { return w->verticals[i].insn; }

sq_grammar *whomp_take_vertical(whomp *w, uint32_t i)
{
    return w->queue[w->posted % QUEUE].n || w->helper ? NULL : take(&w->verticals[i].g);
}

const char *whomp_dim_name(int dim)
{
    static const char *const names[WHOMP_DIMS] = { "instruction", "group", "object", "offset" };
    return dim >= 0 && dim < WHOMP_DIMS ? names[dim] : "?";
}
