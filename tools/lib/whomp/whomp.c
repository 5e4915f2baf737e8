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
 * in order: the tasks of a batch all end before the next batch's start. */
enum { TASK_VERTICAL = STREAMS, TASKS };

/* The second thread (whomp_options.threads = 2). The caller posts a batch
 * and both threads claim its tasks one at a time, so the work balances
 * itself (which grammars are large depends on the trace); the caller then
 * gathers the next batch into the other buffer while the thread finishes
 * its last task. Every field is under lock. */
typedef struct helper {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* a batch posted, a task ended, or stop */
    int next;                   /* the posted batch's next unclaimed task,
                                   an index into order */
    int order[TASKS];           /* the posted batch's tasks, longest first */
    uint64_t took[TASKS];       /* nanoseconds each task took last time */
    int running;                /* tasks claimed and not yet ended */
    int stop;                   /* no more batches: the thread returns */
} helper;

struct whomp {
    whomp_options opt;
    sequitur *omsg[WHOMP_DIMS];
    sequitur *rasg;
    uint64_t batch[2][STREAMS][BATCH];  /* symbols by stream, in access order:
                                           one buffer gathered, one fed */
    uint32_t nbatch;                    /* accesses in the gathered buffer */
    int fill;                           /* which buffer is gathered */
    uint32_t posted_n;                  /* accesses in the other one (fill and
                                           posted_n change only while no
                                           task runs) */
    int tasks;                          /* tasks per batch (TASK_VERTICAL
                                           only with opt.vertical) */
    int failed;                         /* a grammar ran out of memory (under
                                           helper->lock while there is one) */
    helper *helper;                     /* NULL: the caller does every task */
    uint32_t *vertical_of;      /* instruction -> index into verticals + 1 */
    size_t vertical_of_cap;
    vertical *verticals;
    size_t verticals_cap;
    uint32_t nverticals;
    unsigned rasg_bits;         /* the RASG's instruction field (whomp.h) */
    unsigned refused_bits;      /* the field the last refused access needed */
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

static int feed_vertical(whomp *w, uint64_t (*batch)[BATCH], uint32_t n);

/* Task t of the posted batch; -1 when its grammar ran out of memory. */
static int run_task(whomp *w, int t)
{
    uint64_t (*batch)[BATCH] = w->batch[!w->fill];
    if (t < WHOMP_DIMS)
        return feed(w->omsg[t], batch[t], w->posted_n);
    if (t == RASG_STREAM)
        return feed(w->rasg, batch[RASG_STREAM], w->posted_n);
    return feed_vertical(w, batch, w->posted_n);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Orders the next batch's tasks longest first by how long each took in
 * the last batch (consecutive batches cost about the same): with the
 * longest claimed first, the two threads end a batch closer together
 * than in a fixed order (on a gzip recording's task times, replayed: 3.60
 * -> 3.43 s of the 3.20 s an even split would take). Insertion sort of
 * at most TASKS; ties keep the task order. Lock held. */
static void order_tasks(const whomp *w, helper *h)
{
    for (int i = 0; i < w->tasks; i++) {
        int t = i, j = i;
        for (; j > 0 && h->took[h->order[j - 1]] < h->took[t]; j--)
            h->order[j] = h->order[j - 1];
        h->order[j] = t;
    }
}

/* Claims and runs the posted batch's tasks until none is left; the thread
 * (wait set) then waits for the next batch, the caller returns. Called
 * with h->lock held. */
static void claim_tasks(whomp *w, helper *h, int wait)
{
    for (;;) {
        if (h->next < w->tasks) {
            int t = h->order[h->next++], failed = w->failed;
            h->running++;
            pthread_mutex_unlock(&h->lock);
            uint64_t start = now_ns();
            int rc = failed ? -1 : run_task(w, t);
            uint64_t took = now_ns() - start;
            pthread_mutex_lock(&h->lock);
            h->took[t] = took;
            w->failed |= rc < 0;
            h->running--;
            if (h->next >= w->tasks && h->running == 0)
                pthread_cond_broadcast(&h->changed);
        } else if (wait && !h->stop) {
            pthread_cond_wait(&h->changed, &h->lock);
        } else {
            return;
        }
    }
}

static void *helper_main(void *arg)
{
    whomp *w = arg;
    pthread_mutex_lock(&w->helper->lock);
    claim_tasks(w, w->helper, 1);
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
    h->next = TASKS;            /* nothing posted yet */
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

/* Waits until every task of the posted batch has ended. Lock held. */
static void wait_batch(helper *h, int tasks)
{
    while (h->next < tasks || h->running > 0)
        pthread_cond_wait(&h->changed, &h->lock);
}

/* Lets the thread end its tasks, then ends it. */
static void helper_stop(whomp *w)
{
    helper *h = w->helper;
    pthread_mutex_lock(&h->lock);
    wait_batch(h, w->tasks);
    h->stop = 1;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
    pthread_cond_destroy(&h->changed);
    pthread_mutex_destroy(&h->lock);
    free(h);
    w->helper = NULL;
}

/* The gathered buffer becomes the posted one and its tasks run, shared
 * with the thread if there is one; the other buffer is gathered next.
 * -1 when a grammar ran out of memory. */
static int flush(whomp *w)
{
    helper *h = w->helper;
    if (!h) {
        w->fill = !w->fill;
        w->posted_n = w->nbatch;
        w->nbatch = 0;
        for (int t = 0; t < w->tasks && !w->failed; t++)
            w->failed = run_task(w, t) < 0;
        return w->failed ? -1 : 0;
    }
    pthread_mutex_lock(&h->lock);
    wait_batch(h, w->tasks);    /* the last batch's tasks, and its buffer */
    if (!w->failed) {
        w->fill = !w->fill;
        w->posted_n = w->nbatch;
        w->nbatch = 0;
        h->next = 0;
        order_tasks(w, h);
        pthread_cond_broadcast(&h->changed);
        claim_tasks(w, h, 0);
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
    int ok = (w->rasg = sq_new()) != NULL;
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
    for (uint32_t i = 0; i < w->nverticals; i++)
        sq_free(w->verticals[i].g);
    free(w->verticals);
    free(w->vertical_of);
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
static int feed_vertical(whomp *w, uint64_t (*batch)[BATCH], uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        sequitur *v = vertical_of(w, (uint32_t)batch[WHOMP_INSTRUCTION][i]);
        if (!v || sq_append(v, batch[WHOMP_GROUP][i]) < 0 ||
            sq_append(v, batch[WHOMP_OBJECT][i]) < 0 || sq_append(v, batch[WHOMP_OFFSET][i]) < 0)
            return -1;
    }
    return 0;
}

/* A RASG terminal's instruction field going from `from` to `to` bits. */
typedef struct repack {
    unsigned from, to;
} repack;

/* The terminal packed with the wider field; UINT64_MAX (no terminal) when
 * its address does not fit beside it. */
static uint64_t repack_terminal(void *ctx, uint64_t t)
{
    const repack *p = ctx;
    uint64_t addr = t >> p->from, insn = t & ((UINT64_C(1) << p->from) - 1);
    return addr >> (63 - p->to) ? UINT64_MAX : addr << p->to | insn;
}

/* insn needs more than rasg_bits bits, or addr does not fit: widens the
 * RASG's instruction field to insn's bits, relabelling the builder and the
 * gathered batch once the posted batch is done with (a few times per
 * trace at most: instruction numbers are dense, so each width is crossed
 * once). 0, -1 when out of memory, -2 when some address (addr, or one
 * already packed) does not fit beside the wider field. */
static int rasg_widen(whomp *w, uint32_t insn, uint64_t addr)
{
    unsigned bits = w->rasg_bits;
    while (insn >> bits)
        bits++;
    repack p = { w->rasg_bits, bits };
    if (bits == p.from || addr >> (63 - bits))
        goto refused;
    if (w->helper) {            /* no task may touch the builder or a buffer */
        pthread_mutex_lock(&w->helper->lock);
        wait_batch(w->helper, w->tasks);
        pthread_mutex_unlock(&w->helper->lock);
    }
    if (w->failed)
        return -1;
    uint64_t *gathered = w->batch[w->fill][RASG_STREAM];
    for (uint32_t i = 0; i < w->nbatch; i++)
        if (repack_terminal(&p, gathered[i]) == UINT64_MAX)
            goto refused;
    if (sq_relabel(w->rasg, repack_terminal, &p) < 0) {
        if (errno != EINVAL)
            return -1;
        goto refused;
    }
    for (uint32_t i = 0; i < w->nbatch; i++)
        gathered[i] = repack_terminal(&p, gathered[i]);
    w->rasg_bits = bits;
    w->refused_bits = 0;
    return 0;
refused:
    w->refused_bits = bits;
    return -2;
}

int whomp_access(whomp *w, uint32_t insn, const obj_object *o, uint64_t addr)
{
    uint8_t kind = o->group->kind;
    if (kind == OBJ_UNKNOWN || (kind == OBJ_STACK && !w->opt.stack)) {
        w->skipped++;
        return 0;
    }
    if (insn >> w->rasg_bits || addr >> (63 - w->rasg_bits)) {
        int rc = rasg_widen(w, insn, addr);
        if (rc < 0)
            return rc;
    }
    uint64_t (*batch)[BATCH] = w->batch[w->fill];
    uint32_t i = w->nbatch++;
    batch[WHOMP_INSTRUCTION][i] = insn;
    batch[WHOMP_GROUP][i] = o->group->id;
    batch[WHOMP_OBJECT][i] = o->serial;
    batch[WHOMP_OFFSET][i] = addr - o->addr;
    batch[RASG_STREAM][i] = addr << w->rasg_bits | insn;
    w->kept++;
    if (w->nbatch == BATCH && flush(w) < 0)
        return -1;
    return 1;
}

unsigned whomp_rasg_bits(const whomp *w) { return w->refused_bits ? w->refused_bits : w->rasg_bits; }
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
    return dim >= 0 && dim < WHOMP_DIMS && !w->nbatch && !w->helper ? take(&w->omsg[dim]) : NULL;
}

sq_grammar *whomp_take_rasg(whomp *w)
{
    return w->nbatch || w->helper ? NULL : take(&w->rasg);
}

uint32_t whomp_vertical_count(const whomp *w) { return w->nverticals; }
uint32_t whomp_vertical_insn(const whomp *w, uint32_t i) { return w->verticals[i].insn; }

sq_grammar *whomp_take_vertical(whomp *w, uint32_t i)
{
    return w->nbatch || w->helper ? NULL : take(&w->verticals[i].g);
}

const char *whomp_dim_name(int dim)
{
    static const char *const names[WHOMP_DIMS] = { "instruction", "group", "object", "offset" };
    return dim >= 0 && dim < WHOMP_DIMS ? names[dim] : "?";
}
