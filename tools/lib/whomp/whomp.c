/*
 * whomp.c: the OMSG, RASG and vertical grammars of WHOMP (see whomp.h).
 */
#include "whomp/whomp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* The RASG's own thread (whomp_options.threads = 2): it feeds a copy of
 * each batch's RASG symbols while the caller feeds the OMSG and gathers the
 * next batch. The two halves cost about the same (the RASG and the offset
 * grammar are the two large ones), so this nearly halves the time on two
 * free cores. Every field below lock is shared. */
typedef struct rasg_worker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* busy or stop changed */
    sequitur *g;                /* the RASG: only the thread touches it */
    uint64_t symbols[BATCH];    /* the batch being fed */
    uint32_t n;
    int busy;                   /* symbols posted and not yet fed */
    int stop;                   /* no more batches: the thread returns */
    int failed;                 /* the RASG ran out of memory */
} rasg_worker;

struct whomp {
    whomp_options opt;
    sequitur *omsg[WHOMP_DIMS];
    sequitur *rasg;
    uint64_t batch[STREAMS][BATCH];     /* symbols by stream, in access order */
    uint32_t nbatch;
    int failed;                         /* a grammar ran out of memory */
    rasg_worker *worker;                /* NULL: the caller feeds the RASG */
    uint32_t *vertical_of;      /* instruction -> index into verticals + 1 */
    size_t vertical_of_cap;
    vertical *verticals;
    size_t verticals_cap;
    uint32_t nverticals;
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

static void *worker_main(void *arg)
{
    rasg_worker *k = arg;
    pthread_mutex_lock(&k->lock);
    for (;;) {
        while (!k->busy && !k->stop)
            pthread_cond_wait(&k->changed, &k->lock);
        if (!k->busy)
            break;
        pthread_mutex_unlock(&k->lock);
        int rc = k->failed ? -1 : feed(k->g, k->symbols, k->n);
        pthread_mutex_lock(&k->lock);
        k->failed |= rc < 0;
        k->busy = 0;
        pthread_cond_broadcast(&k->changed);
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

/* A thread feeding g; NULL when none could be started (the caller then
 * feeds g itself). */
static rasg_worker *worker_start(sequitur *g)
{
    rasg_worker *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->g = g;
    if (pthread_mutex_init(&k->lock, NULL) != 0) {
        free(k);
        return NULL;
    }
    if (pthread_cond_init(&k->changed, NULL) != 0 ||
        pthread_create(&k->thread, NULL, worker_main, k) != 0) {
        pthread_cond_destroy(&k->changed);      /* harmless if init failed */
        pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    return k;
}

/* Waits until the thread has fed what it was given; -1 if it failed. */
static int worker_wait(rasg_worker *k)
{
    pthread_mutex_lock(&k->lock);
    while (k->busy)
        pthread_cond_wait(&k->changed, &k->lock);
    int failed = k->failed;
    pthread_mutex_unlock(&k->lock);
    return failed ? -1 : 0;
}

/* Hands the thread n symbols (copied) once it is done with the last. */
static int worker_post(rasg_worker *k, const uint64_t *symbols, uint32_t n)
{
    if (worker_wait(k) < 0)
        return -1;
    pthread_mutex_lock(&k->lock);
    memcpy(k->symbols, symbols, n * sizeof *symbols);
    k->n = n;
    k->busy = 1;
    pthread_cond_broadcast(&k->changed);
    pthread_mutex_unlock(&k->lock);
    return 0;
}

/* Lets the thread feed what it has, then ends it; -1 if it failed. */
static int worker_stop(rasg_worker *k)
{
    pthread_mutex_lock(&k->lock);
    k->stop = 1;
    pthread_cond_broadcast(&k->changed);
    pthread_mutex_unlock(&k->lock);
    pthread_join(k->thread, NULL);
    int failed = k->failed;
    pthread_cond_destroy(&k->changed);
    pthread_mutex_destroy(&k->lock);
    free(k);
    return failed ? -1 : 0;
}

whomp *whomp_new(const whomp_options *o)
{
    whomp *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->opt = *o;
    int ok = (w->rasg = sq_new()) != NULL;
    for (int d = 0; d < WHOMP_DIMS; d++)
        ok = ok && (w->omsg[d] = sq_new()) != NULL;
    if (!ok) {
        whomp_free(w);
        return NULL;
    }
    if (o->threads >= 2)
        w->worker = worker_start(w->rasg);
    return w;
}

void whomp_free(whomp *w)
{
    if (!w)
        return;
    if (w->worker)
        worker_stop(w->worker);
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
static int feed_vertical(whomp *w)
{
    for (uint32_t i = 0; i < w->nbatch; i++) {
        sequitur *v = vertical_of(w, (uint32_t)w->batch[WHOMP_INSTRUCTION][i]);
        if (!v || sq_append(v, w->batch[WHOMP_GROUP][i]) < 0 ||
            sq_append(v, w->batch[WHOMP_OBJECT][i]) < 0 ||
            sq_append(v, w->batch[WHOMP_OFFSET][i]) < 0)
            return -1;
    }
    return 0;
}

/* Every grammar takes the gathered accesses, one grammar after the other;
 * the RASG's go to its thread first, if it has one. */
static int flush(whomp *w)
{
    if (!w->failed && w->worker)
        w->failed = worker_post(w->worker, w->batch[RASG_STREAM], w->nbatch) < 0;
    for (int d = 0; d < WHOMP_DIMS && !w->failed; d++)
        w->failed = feed(w->omsg[d], w->batch[d], w->nbatch) < 0;
    if (!w->failed && !w->worker)
        w->failed = feed(w->rasg, w->batch[RASG_STREAM], w->nbatch) < 0;
    if (!w->failed && w->opt.vertical)
        w->failed = feed_vertical(w) < 0;
    w->nbatch = 0;
    return w->failed ? -1 : 0;
}

int whomp_access(whomp *w, uint32_t insn, const obj_object *o, uint64_t addr)
{
    uint8_t kind = o->group->kind;
    if (kind == OBJ_UNKNOWN || (kind == OBJ_STACK && !w->opt.stack)) {
        w->skipped++;
        return 0;
    }
    if (insn >= WHOMP_RASG_INSNS || addr >= WHOMP_RASG_ADDRS)
        return -2;
    uint32_t i = w->nbatch++;
    w->batch[WHOMP_INSTRUCTION][i] = insn;
    w->batch[WHOMP_GROUP][i] = o->group->id;
    w->batch[WHOMP_OBJECT][i] = o->serial;
    w->batch[WHOMP_OFFSET][i] = addr - o->addr;
    w->batch[RASG_STREAM][i] = addr << 16 | insn;
    w->kept++;
    if (w->nbatch == BATCH && flush(w) < 0)
        return -1;
    return 1;
}

uint64_t whomp_kept(const whomp *w) { return w->kept; }
uint64_t whomp_skipped(const whomp *w) { return w->skipped; }

int whomp_finish(whomp *w)
{
    int rc = flush(w);
    if (w->worker && worker_stop(w->worker) < 0)
        rc = -1;
    w->worker = NULL;
    return rc;
}

/* The finished grammar of *b, whose builder then goes: a large builder
 * (nodes and digram table) takes several times its grammar's memory, and
 * the next grammar's snapshot then has that room. */
static sq_grammar *take(sequitur **b)
{
    if (!*b)
        return NULL;
    sq_grammar *g = sq_finish(*b);
    if (g) {
        sq_free(*b);
        *b = NULL;
    }
    return g;
}

sq_grammar *whomp_take_omsg(whomp *w, int dim)
{
    return dim >= 0 && dim < WHOMP_DIMS && !w->nbatch ? take(&w->omsg[dim]) : NULL;
}

sq_grammar *whomp_take_rasg(whomp *w)
{
    return w->nbatch || w->worker ? NULL : take(&w->rasg);
}

uint32_t whomp_vertical_count(const whomp *w) { return w->nverticals; }
uint32_t whomp_vertical_insn(const whomp *w, uint32_t i) { return w->verticals[i].insn; }

sq_grammar *whomp_take_vertical(whomp *w, uint32_t i)
{
    return w->nbatch ? NULL : take(&w->verticals[i].g);
}

const char *whomp_dim_name(int dim)
{
    static const char *const names[WHOMP_DIMS] = { "instruction", "group", "object", "offset" };
    return dim >= 0 && dim < WHOMP_DIMS ? names[dim] : "?";
}
