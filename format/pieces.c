/*
 * pieces.c: the writer's parallel modelling (SPEC.md 6.8). The front
 * writer logs events into pieces; worker threads, each with a writer of
 * its own (no file: a sink), model one piece at a time into EVENTS chunks
 * that end where the piece ends, so a piece's coding depends on its log
 * and its start alone, never on which worker took it nor when. The front
 * queues the pieces' chunks, in piece order, to its background thread,
 * which packs, compresses and writes them as for a sequential writer.
 *
 * Why pieces and not the sequential writer's chunks: a chunk closes where
 * its coded size reaches chunk_bytes, so where the next one starts is
 * known only once this one is modelled; a cut the front can decide from
 * the log's length is what lets two chunks be modelled at once.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

/* A piece ends once its log holds this many words per chunk_bytes byte:
 * about half a sequential chunk of a real program's raw stream (gzip,
 * sqlite3: 50-60 MB of words per 4 MiB chunk), so memory stays (workers
 * + 2) pieces of 32 MB. The chunk a piece ends in takes up to twice
 * chunk_bytes (writer.c, extend_last_chunk), so a piece is mostly one
 * chunk: traces of gzip and sqlite3 replays came out 0.13% and 0.35%
 * smaller than the sequential writer's (2 words per byte: 0.6% and 1.1%
 * smaller, for 375 MB of memory instead of 220 MB). */
#define MR_PIECE_WORDS_PER_BYTE 1

/* A block or stack definition every worker applies, in order. */
typedef struct def_node {
    struct def_node *next;
    int is_block;
    mr_block_def block;        /* arrays in the same allocation */
    mr_stack stack;
} def_node;

/* One piece of the event stream. */
typedef struct piece {
    mr_buf log;                /* entries: a header word (kind | aux << 8 |
                                * words << 32), then the payload words */
    size_t last_execs;         /* byte offset of the log's last EXECS entry
                                * + 1, 0 none: executions that follow it
                                * extend it */
    uint8_t last_tag;
    uint64_t time;             /* clock and current thread at its start */
    uint32_t tid;
    mr_thread_state *threads;  /* every thread's state at its start */
    size_t nthreads, threads_cap;
    def_node *defs_upto;       /* the definitions its worker must have */
    mr_chunkjob *jobs;         /* its chunks in file order: the front's
                                * DEFS, then the worker's EVENTS */
    size_t njobs, jobs_cap;
    int done;                  /* modelled (under the lock) */
    int final;                 /* the last: its chunk stays open for END */
    char *error;               /* its worker's failure */
    struct piece *next_free;
} piece;

/* A worker thread and its writer. */
typedef struct worker {
    struct mr_pieces *p;
    pthread_t thread;
    int started;
    mr_writer *w;
    def_node *applied;         /* the last definition applied, NULL none */
    piece *cur;                /* the piece it is modelling (the sink's) */
} worker;

struct mr_pieces {
    mr_chunkq *q;              /* the front's background thread */
    size_t piece_words;
    int nworkers;
    worker *workers;
    pthread_mutex_t lock;
    pthread_cond_t work;       /* a piece was handed over, or stop */
    pthread_cond_t done;       /* a piece was modelled */
    piece **ring;              /* handed pieces not yet queued, by number % ring_len */
    uint64_t ring_len, handed, taken, pushed;
    int stop;
    piece *gather;             /* the piece being logged */
    piece *free_pieces;
    def_node *def_head, *def_tail;
    mr_buf *pool;              /* empty buffers, their memory kept (under the lock) */
    size_t npool, pool_cap;
    mr_totals tot;             /* what the workers folded so far */
    char *error;
    int bg_failed;             /* the chunk queue's thread failed */
};

static mr_buf pool_get(mr_pieces *p)
{
    mr_buf b = { 0 };
    pthread_mutex_lock(&p->lock);
    if (p->npool)
        b = p->pool[--p->npool];
    pthread_mutex_unlock(&p->lock);
    b.len = 0;
    return b;
}

static void pool_put(mr_pieces *p, mr_buf *b)
{
    pthread_mutex_lock(&p->lock);
    if (p->npool == p->pool_cap) {
        size_t cap = p->pool_cap ? 2 * p->pool_cap : 64;
        mr_buf *n = realloc(p->pool, cap * sizeof *n);
        if (n) {
            p->pool = n;
            p->pool_cap = cap;
        }
    }
    if (p->npool < p->pool_cap) {
        p->pool[p->npool++] = *b;
        b->p = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    mr_buf_free(b);   /* no room in the pool: let it go */
    *b = (mr_buf){ 0 };
}

/* Appends a job to pc, taking bufs (given back empty). */
static int add_job(mr_pieces *p, piece *pc, const mr_chunkjob *job, mr_buf *bufs, int nbufs)
{
    if (pc->njobs == pc->jobs_cap) {
        size_t cap = pc->jobs_cap ? 2 * pc->jobs_cap : 8;
        mr_chunkjob *n = realloc(pc->jobs, cap * sizeof *n);
        if (!n)
            return -1;
        pc->jobs = n;
        pc->jobs_cap = cap;
    }
    mr_chunkjob *j = &pc->jobs[pc->njobs++];
    *j = *job;
    j->nbufs = nbufs;
    for (int i = 0; i < nbufs; i++) {
        j->bufs[i] = bufs[i];
        bufs[i] = pool_get(p);
    }
    return 0;
}

/* The sink of a worker's writer: its EVENTS chunks join its piece. */
static int worker_sink(void *ctx, const mr_chunkjob *job, mr_buf *bufs, int nbufs)
{
    worker *wk = ctx;
    return add_job(wk->p, wk->cur, job, bufs, nbufs);
}

/* Sets where pc starts: clock, thread, every thread's state. 0 or -1. */
static int piece_start(piece *pc, uint64_t time, uint32_t tid,
                       const mr_thread_state *threads, size_t nthreads)
{
    if (nthreads > pc->threads_cap) {
        mr_thread_state *t = realloc(pc->threads, nthreads * sizeof *t);
        if (!t)
            return -1;
        pc->threads = t;
        pc->threads_cap = nthreads;
    }
    if (nthreads)
        memcpy(pc->threads, threads, nthreads * sizeof *threads);
    pc->nthreads = nthreads;
    pc->time = time;
    pc->tid = tid;
    return 0;
}

/* An empty piece (one recycled if there is). */
static piece *piece_new(mr_pieces *p, uint64_t time, uint32_t tid,
                        const mr_thread_state *threads, size_t nthreads)
{
    piece *pc = p->free_pieces;
    if (pc)
        p->free_pieces = pc->next_free;
    else if (!(pc = calloc(1, sizeof *pc)))
        return NULL;
    pc->log.len = 0;
    pc->last_execs = 0;
    pc->njobs = 0;
    pc->done = pc->final = 0;
    pc->defs_upto = NULL;
    if (piece_start(pc, time, tid, threads, nthreads)) {
        pc->next_free = p->free_pieces;
        p->free_pieces = pc;
        return NULL;
    }
    return pc;
}

static void piece_recycle(mr_pieces *p, piece *pc)
{
    for (size_t i = 0; i < pc->njobs; i++)
        for (int k = 0; k < pc->jobs[i].nbufs; k++)
            pool_put(p, &pc->jobs[i].bufs[k]);
    pc->njobs = 0;
    free(pc->error);
    pc->error = NULL;
    pc->next_free = p->free_pieces;
    p->free_pieces = pc;
}

static void piece_free(piece *pc)
{
    for (size_t i = 0; i < pc->njobs; i++)
        for (int k = 0; k < pc->jobs[i].nbufs; k++)
            mr_buf_free(&pc->jobs[i].bufs[k]);
    free(pc->jobs);
    free(pc->threads);
    mr_buf_free(&pc->log);
    free(pc->error);
    free(pc);
}

/* ---- a worker --------------------------------------------------------- */

/* Applies the definitions up to upto that this worker has not. */
static void apply_defs(worker *wk, def_node *upto)
{
    if (!upto)
        return;
    while (wk->applied != upto) {
        def_node *d = wk->applied ? wk->applied->next : wk->p->def_head;
        if (d->is_block)
            mr_write_block_def(wk->w, &d->block);
        else
            mr_write_stack(wk->w, &d->stack);
        wk->applied = d;
    }
}

/* Replays pc's log on the worker's writer. */
static void replay(worker *wk, piece *pc)
{
    mr_writer *w = wk->w;
    const uint64_t *e = (const uint64_t *)pc->log.p;
    const uint64_t *end = e + pc->log.len / 8;
    while (e < end) {
        uint8_t kind = (uint8_t)*e, aux = (uint8_t)(*e >> 8);
        size_t n = (size_t)(*e >> 32), used;
        const uint64_t *a = e + 1;
        mr_writer_worker_at(w, (uint64_t)(a - (const uint64_t *)pc->log.p),
                            (uint64_t)(end - (const uint64_t *)pc->log.p));
        switch (kind) {
        case MR_LOG_EXECS: mr_write_execs(w, a, n, aux, &used); break;
        case MR_LOG_HEAP: {
            mr_heap h = { .op = (uint8_t)a[0], .addr = a[1], .size = a[2], .count = a[3],
                          .old_addr = a[4], .stack = (uint32_t)a[5] };
            mr_write_heap(w, &h);
            break;
        }
        case MR_LOG_MARK: mr_write_mark(w, (const char *)a); break;
        case MR_LOG_COLLECT: mr_write_collect(w, aux); break;
        case MR_LOG_SWITCH: mr_write_thread_switch(w, (uint32_t)a[0]); break;
        case MR_LOG_CREATE: mr_write_thread_create(w, (uint32_t)a[0], (uint32_t)a[1]); break;
        case MR_LOG_TEXIT: mr_write_thread_exit(w, (uint32_t)a[0]); break;
        }
        e = a + n;
    }
}

/* Models one piece: its chunks join its job list. */
static void model(worker *wk, piece *pc)
{
    apply_defs(wk, pc->defs_upto);
    mr_writer_worker_begin(wk->w, pc->time, pc->tid, pc->threads, pc->nthreads);
    wk->cur = pc;
    replay(wk, pc);
    if (!pc->final)
        mr_writer_worker_flush(wk->w);
    const char *err = mr_writer_error(wk->w);
    if (err && !(pc->error = strdup(err)))
        pc->error = strdup("out of memory");
}

static void *worker_run(void *arg)
{
    worker *wk = arg;
    mr_pieces *p = wk->p;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->taken == p->handed && !p->stop)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->taken == p->handed)
            break;
        piece *pc = p->ring[p->taken++ % p->ring_len];
        pthread_mutex_unlock(&p->lock);
        model(wk, pc);
        pthread_mutex_lock(&p->lock);
        pc->done = 1;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- the front -------------------------------------------------------- */

static int set_error(mr_pieces *p, const char *what)
{
    if (!p->error)
        p->error = strdup(what);
    return -1;
}

/* Queues a modelled piece's chunks to the writing thread. */
static int push_piece(mr_pieces *p, piece *pc)
{
    if (pc->error)
        return set_error(p, pc->error);
    for (size_t i = 0; i < pc->njobs; i++) {
        mr_chunkjob *j = &pc->jobs[i];
        if (mr_chunkq_push(p->q, j, j->bufs, j->nbufs)) {
            p->bg_failed = 1;
            return -1;
        }
    }
    return 0;
}

/* Queues the oldest handed pieces while they are modelled; with wait,
 * waits until at most `keep` are left unqueued. */
static int push_done(mr_pieces *p, uint64_t keep)
{
    int rc = 0;
    pthread_mutex_lock(&p->lock);
    while (p->pushed < p->handed) {
        piece *pc = p->ring[p->pushed % p->ring_len];
        if (!pc->done) {
            if (p->handed - p->pushed <= keep)
                break;
            pthread_cond_wait(&p->done, &p->lock);
            continue;
        }
        pthread_mutex_unlock(&p->lock);
        if (!rc && !p->error && !p->bg_failed)
            rc = push_piece(p, pc);
        piece_recycle(p, pc);
        pthread_mutex_lock(&p->lock);
        p->pushed++;
    }
    pthread_mutex_unlock(&p->lock);
    return rc || p->error || p->bg_failed ? -1 : 0;
}

mr_pieces *mr_pieces_start(int workers, const mr_writer_options *opts, mr_chunkq *q)
{
    mr_pieces *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->q = q;
    p->nworkers = workers;
    p->ring_len = (uint64_t)workers + 1;
    size_t chunk = opts->chunk_bytes ? opts->chunk_bytes : MR_DEFAULT_CHUNK;
    if (chunk < MR_MIN_CHUNK_OPT)
        chunk = MR_MIN_CHUNK_OPT;
    if (chunk > MR_MAX_CHUNK_OPT)
        chunk = MR_MAX_CHUNK_OPT;
    p->piece_words = MR_PIECE_WORDS_PER_BYTE * chunk;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->ring = calloc(p->ring_len, sizeof *p->ring);
    p->workers = calloc((size_t)workers, sizeof *p->workers);
    p->gather = p->ring && p->workers ? piece_new(p, 0, 0, NULL, 0) : NULL;
    if (!p->gather) {
        mr_pieces_free(p);
        return NULL;
    }
    /* The threads take no signal: they stay the caller's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int ok = 1;
    for (int i = 0; ok && i < workers; i++) {
        worker *wk = &p->workers[i];
        wk->p = p;
        ok = (wk->w = mr_writer_worker_new(opts, worker_sink, wk)) &&
             !pthread_create(&wk->thread, NULL, worker_run, wk);
        wk->started = ok;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ok) {
        mr_pieces_free(p);
        return NULL;
    }
    return p;
}

int mr_pieces_log(mr_pieces *p, uint8_t kind, uint8_t aux, const uint64_t *words, size_t n)
{
    piece *pc = p->gather;
    if (kind == MR_LOG_EXECS && pc->last_execs && pc->last_tag == aux) {
        /* More executions right after the last ones: one longer entry. */
        if (mr_buf_bytes(&pc->log, words, n * 8))
            return -1;
        uint64_t *h = (uint64_t *)(pc->log.p + pc->last_execs - 1);
        *h += (uint64_t)n << 32;
        return 0;
    }
    uint64_t h = kind | (uint64_t)aux << 8 | (uint64_t)n << 32;
    size_t at = pc->log.len;
    if (mr_buf_bytes(&pc->log, &h, 8) || (n && mr_buf_bytes(&pc->log, words, n * 8)))
        return -1;
    pc->last_execs = kind == MR_LOG_EXECS ? at + 1 : 0;
    pc->last_tag = aux;
    return 0;
}

int mr_pieces_full(const mr_pieces *p)
{
    return p->gather->log.len / 8 >= p->piece_words;
}

size_t mr_pieces_room(const mr_pieces *p, uint8_t tag)
{
    const piece *pc = p->gather;
    size_t words = pc->log.len / 8 + !(pc->last_execs && pc->last_tag == tag);
    return words < p->piece_words ? p->piece_words - words : 1;
}

int mr_pieces_logged(const mr_pieces *p)
{
    return p->gather->log.len != 0;
}

static int add_def(mr_pieces *p, def_node *d)
{
    d->next = NULL;
    if (p->def_tail)
        p->def_tail->next = d;
    else
        p->def_head = d;
    p->def_tail = d;
    return 0;
}

int mr_pieces_block(mr_pieces *p, const mr_block_def *b)
{
    size_t si = b->ninstrs * sizeof(mr_instr_def);
    size_t sa = b->naccesses * sizeof(mr_access_def);
    size_t se = b->nexits * sizeof(mr_exit_def);
    def_node *d = malloc(sizeof *d + si + sa + se);
    if (!d)
        return -1;
    char *m = (char *)(d + 1);
    d->is_block = 1;
    d->block = *b;
    d->block.instrs = memcpy(m, b->instrs, si);
    d->block.accesses = sa ? memcpy(m + si, b->accesses, sa) : (void *)(m + si);
    d->block.exits = memcpy(m + si + sa, b->exits, se);
    return add_def(p, d);
}

int mr_pieces_stack(mr_pieces *p, const mr_stack *s)
{
    size_t si = s->depth * sizeof *s->ips;
    def_node *d = malloc(sizeof *d + si);
    if (!d)
        return -1;
    d->is_block = 0;
    d->stack = *s;
    d->stack.ips = si ? memcpy(d + 1, s->ips, si) : NULL;
    return add_def(p, d);
}

int mr_pieces_defs(mr_pieces *p, mr_buf *defs, uint32_t ndefs)
{
    mr_chunkjob job = { .kind = MR_CHUNK_DEFS, .nrecords = ndefs, .time = p->gather->time,
                        .tid = p->gather->tid };
    return add_job(p, p->gather, &job, defs, 1);
}

/* Hands the gathering piece to the workers. */
static int hand_over(mr_pieces *p)
{
    piece *pc = p->gather;
    pc->defs_upto = p->def_tail;
    /* Room in the ring: the oldest pieces queued first. */
    if (push_done(p, p->ring_len - 1))
        return -1;
    pthread_mutex_lock(&p->lock);
    p->ring[p->handed++ % p->ring_len] = pc;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    p->gather = NULL;
    return 0;
}

int mr_pieces_cut(mr_pieces *p, uint64_t time, uint32_t tid,
                  const mr_thread_state *threads, size_t nthreads)
{
    piece *pc = p->gather;
    if (!pc->log.len && !pc->njobs)   /* nothing in it: only its start moves */
        return piece_start(pc, time, tid, threads, nthreads) ? set_error(p, "out of memory") : 0;
    if (hand_over(p))
        return -1;
    if (!(p->gather = piece_new(p, time, tid, threads, nthreads)))
        return set_error(p, "out of memory");
    return push_done(p, p->ring_len);   /* whatever is done already */
}

/* Waits for every handed piece and queues it. */
static int drain(mr_pieces *p)
{
    return push_done(p, 0);
}

/* Adds what every worker counted to p->tot (the workers are idle). */
static void fold_workers(mr_pieces *p)
{
    for (int i = 0; i < p->nworkers; i++)
        mr_writer_worker_fold(p->workers[i].w, &p->tot);
}

int mr_pieces_totals(mr_pieces *p, uint64_t time, uint32_t tid,
                     const mr_thread_state *threads, size_t nthreads, mr_totals *tot)
{
    if (mr_pieces_cut(p, time, tid, threads, nthreads) || drain(p))
        return -1;
    fold_workers(p);
    *tot = p->tot;
    return 0;
}

static void stop_workers(mr_pieces *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nworkers; i++)
        if (p->workers[i].started) {
            pthread_join(p->workers[i].thread, NULL);
            p->workers[i].started = 0;
        }
}

int mr_pieces_finish(mr_pieces *p, int end_it, const mr_end *end, uint64_t threads)
{
    int rc = drain(p);
    stop_workers(p);
    if (rc || !end_it)
        return -1;
    /* The last piece, on this thread: its chunk stays open for END, whose
     * totals are everything the workers counted. */
    worker *wk = &p->workers[0];
    piece *pc = p->gather;
    pc->final = 1;
    pc->defs_upto = p->def_tail;
    model(wk, pc);
    if (pc->error)
        return set_error(p, pc->error);
    fold_workers(p);
    p->tot.threads = threads;
    if (mr_writer_worker_end(wk->w, end, &p->tot))
        return set_error(p, mr_writer_error(wk->w));
    return push_piece(p, pc);
}

const char *mr_pieces_error(const mr_pieces *p)
{
    return p->bg_failed ? NULL : p->error;
}

void mr_pieces_free(mr_pieces *p)
{
    if (!p)
        return;
    stop_workers(p);
    while (p->pushed < p->handed) {   /* handed but never queued (a failure) */
        piece_free(p->ring[p->pushed % p->ring_len]);
        p->pushed++;
    }
    for (int i = 0; p->workers && i < p->nworkers; i++)
        if (p->workers[i].w)
            mr_writer_worker_free(p->workers[i].w);
    free(p->workers);
    if (p->gather)
        piece_free(p->gather);
    while (p->free_pieces) {
        piece *pc = p->free_pieces;
        p->free_pieces = pc->next_free;
        piece_free(pc);
    }
    while (p->def_head) {
        def_node *d = p->def_head;
        p->def_head = d->next;
        free(d);
    }
    for (size_t i = 0; i < p->npool; i++)
        mr_buf_free(&p->pool[i]);
    free(p->pool);
    free(p->ring);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->error);
    free(p);
}
