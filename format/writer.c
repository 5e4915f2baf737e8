/*
 * writer.c: the trace writer. Records are coded into per-kind streams
 * (SPEC.md "Event chunks"); definitions go to their own buffer, flushed as a
 * DEFS chunk just before the EVENTS chunk they were written during. The
 * first failure sticks: every later call returns -1 and writes nothing, so
 * the chunks already written stay a readable (truncated) trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "trace_internal.h"

/* An owned copy of a block def: one allocation, arrays after the struct. */
typedef struct owned_block {
    mr_block_def def;
    mr_bstate *state;
} owned_block;

/* What a front's walk over executions needs of a block, 16 bytes by id
 * in one table (an L2 hit where the block state is a cache miss): the
 * words of an execution (0: undefined), the exits, the instructions of
 * the first two (the others: from the block's state). */
typedef struct walk_entry {
    uint32_t nwords, nexits;
    uint32_t ninstrs[2];
} walk_entry;

/* A writer: the output, the DEFS and EVENTS chunks being built, the
 * prediction state the reader will rebuild, totals, and the index. */
struct mr_writer {
    int fd;
    int level;
    size_t chunk_bytes;
    char *error;             /* first failure, malloc'd; NULL while fine */
    uint64_t offset;         /* bytes written, from the file header on */
    uint32_t seq;            /* number of the next chunk */
    ZSTD_CCtx *cctx;
    mr_buf comp;             /* compressed payload of the chunk being written */

    /* Definitions waiting for the next DEFS chunk. */
    mr_buf defs, body;       /* records; the record being built */
    uint32_t ndefs;
    uint64_t prev_sym_addr;  /* symbol addresses are deltas inside a chunk */
    mr_intern strings;

    /* The EVENTS chunk being built. */
    mr_buf s[MR_NSTREAMS];
    mr_buf deltas;           /* s[MR_S_DELTA] packed into groups at flush */
    mr_delta_packer packer;  /* its scratch */
    uint32_t nrecords;
    int chunk_open;
    uint64_t chunk_time;
    uint32_t chunk_tid;
    uint32_t epoch;          /* prediction epoch: bumped at each chunk start */
    mr_bstate *prev;         /* previous execution in this chunk and thread */
    uint32_t prev_exit;
    mr_bstate no_prev;       /* exec_state's prev where prev is NULL: its one
                              * successor is no_prev_succ, MR_NO_BLOCK */
    uint32_t no_prev_succ;
    uint64_t last_value;     /* value of the chunk's latest value access */
    /* The EXEC_HITS record being gathered (SPEC.md 6.4): run_n executions,
     * each of the predicted block by the exit it took last time, every
     * address a HIT, every guard true (values go to VALUE as they come).
     * Written when the run ends: no other record is written while it
     * lasts, so the streams keep record order. */
    uint64_t run_n;          /* 0: no run */
    uint64_t hits_work;      /* executions + accesses the chunk's EXEC_HITS
                              * records stand for: bounded per chunk, so a
                              * reader's work per chunk is too */
    uint64_t hits_limit;
    /* The open chunk's limits: chunk_bytes and hits_limit, but for a
     * worker's chunk that reaches them with little of its piece left
     * (extend_last_chunk): that one runs to the piece's end instead of
     * leaving a small last chunk there. */
    size_t chunk_limit;
    uint64_t chunk_hits_limit;

    owned_block **blocks;    /* by id */
    mr_bstate **states;      /* by id, blocks_cap of them: their states, one
                              * load from an execution's id to its state */
    uint32_t blocks_cap, nblockdefs;
    uint8_t *stacks;         /* by id: 1 if defined */
    uint32_t stacks_cap, nstackdefs;

    mr_map threads;          /* tid -> mr_thread_state */
    mr_thread_state *cur;    /* state of cur_tid, NULL until it is needed */
    uint32_t cur_tid;
    uint64_t time;
    mr_totals tot;

    uint64_t *idx_off;       /* footer index: offset and kind of each chunk */
    uint8_t *idx_kind;
    size_t nidx, idx_cap;

    /* With opts->background, finished chunks go to this thread, which then
     * alone uses fd, offset, seq, cctx, comp, deltas, packer and the index
     * until mr_writer_close stops it; its first failure is bg_error. */
    mr_chunkq *q;
    char *bg_error;

    /* Parallel modelling (pieces.c, opts->workers): a front writer keeps
     * the definitions, the clock and the thread states and logs events
     * into pieces; a worker writer (sink set) models pieces, hands its
     * EVENTS chunks to sink and drops its DEFS (the front writes them). */
    mr_pieces *pieces;
    mr_sink sink;
    void *sink_ctx;
    mr_buf exec_words;       /* front: one mr_write_exec as mr_write_execs words */
    walk_entry *walk;        /* front: by block id, blocks_cap of them */
    uint64_t piece_pos;      /* worker: the piece's log words before the entry
                              * being modelled (mr_writer_worker_at) */
    uint64_t piece_len;      /* worker: the piece's log words */
    uint64_t chunk_pos;      /* worker: where in the log the open chunk began */
};

/* Set on the writer's background thread: its failures go to bg_error. */
static __thread int on_background;

static int fail(mr_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(mr_writer *w, const char *fmt, ...)
{
    char **error = on_background ? &w->bg_error : &w->error;
    if (!*error) {
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(error, fmt, ap) < 0)
            *error = NULL;
        va_end(ap);
        if (!*error)
            *error = strdup("out of memory");
    }
    return -1;
}

static int oom(mr_writer *w) { return fail(w, "out of memory"); }

/* Why a raw execution of block (nexits exits, nwords words; defined: it has
 * a definition) leaving by exit cannot be taken with left words in hand:
 * -1 with the writer failed, else 0. One check for both batch paths. */
static inline int exec_check(mr_writer *w, int defined, uint32_t nexits, uint32_t nwords,
                             uint32_t block, uint32_t exit, size_t left)
{
    if (MR_UNLIKELY(!defined))
        return fail(w, "execution of undefined block %u", block);
    if (MR_UNLIKELY(exit >= nexits))
        return fail(w, "block %u has no exit %u", block, exit);
    if (MR_UNLIKELY(nwords > left))
        return fail(w, "execution of block %u cut short", block);
    return 0;
}
static void writer_free(mr_writer *w);

/* Takes back sig if this thread's write raised it (it is blocked, is
 * pending now and was not before). */
static void discard_signal(int sig, const sigset_t *before, const sigset_t *now)
{
    if (sigismember(before, sig) || !sigismember(now, sig))
        return;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    struct timespec zero = { 0, 0 };
    while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR)
        ;
}

/* write(2) with SIGPIPE and SIGXFSZ held back: a reader that went away and
 * the file size limit must become the writer's EPIPE and EFBIG errors, not
 * kill the process (the library does not touch the process's signal
 * dispositions; it blocks both in this thread for the call and discards
 * the one the write raised). */
static ssize_t write_quietly(int fd, const void *p, size_t n)
{
    sigset_t set, old_mask, pending;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigaddset(&set, SIGXFSZ);
    sigpending(&pending);
    pthread_sigmask(SIG_BLOCK, &set, &old_mask);
    ssize_t k = write(fd, p, n);
    int saved = errno;
    /* Not only on EPIPE or EFBIG: a write cut short by the reader leaving
     * (or by the size limit) returns the bytes it wrote and raises the
     * signal all the same. */
    sigset_t now;
    sigpending(&now);
    discard_signal(SIGPIPE, &pending, &now);
    discard_signal(SIGXFSZ, &pending, &now);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    errno = saved;
    return k;
}

/* Writes all of p or fails the writer. */
static int put(mr_writer *w, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = write_quietly(w->fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return fail(w, "write: %s", k < 0 ? strerror(errno) : "wrote nothing");
        b += k;
        n -= (size_t)k;
        w->offset += (uint64_t)k;
    }
    return 0;
}

/* Compresses the pieces as one zstd frame (content size and checksum in
 * it) and writes frame header + frame; records the chunk in the index. */
static int write_chunk(mr_writer *w, uint8_t kind, mr_buf *const *pieces,
                       int npieces, uint32_t nrecords, uint64_t time, uint32_t tid)
{
    size_t raw = 0;
    for (int i = 0; i < npieces; i++)
        raw += pieces[i]->len;
    if (raw > MR_MAX_CHUNK_RAW)
        return fail(w, "chunk of %zu bytes exceeds the format's limit", raw);
    size_t bound = ZSTD_compressBound(raw);
    w->comp.len = 0;
    if (mr_buf_reserve(&w->comp, bound))
        return oom(w);
    ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
    ZSTD_CCtx_setPledgedSrcSize(w->cctx, raw);
    ZSTD_outBuffer out = { w->comp.p, bound, 0 };
    for (int i = 0; i <= npieces; i++) {
        ZSTD_inBuffer in = { i < npieces ? pieces[i]->p : NULL,
                             i < npieces ? pieces[i]->len : 0, 0 };
        ZSTD_EndDirective mode = i < npieces ? ZSTD_e_continue : ZSTD_e_end;
        size_t rc;
        do {
            rc = ZSTD_compressStream2(w->cctx, &out, &in, mode);
            if (ZSTD_isError(rc))
                return fail(w, "zstd: %s", ZSTD_getErrorName(rc));
        } while (mode == ZSTD_e_end ? rc != 0 : in.pos < in.size);
    }
    if (kind != MR_CHUNK_INDEX) {
        if (w->nidx == w->idx_cap) {
            size_t cap = w->idx_cap ? w->idx_cap * 2 : 256;
            uint64_t *off = realloc(w->idx_off, cap * sizeof *off);
            if (off)
                w->idx_off = off;
            uint8_t *k = realloc(w->idx_kind, cap);
            if (k)
                w->idx_kind = k;
            if (!off || !k)
                return oom(w);
            w->idx_cap = cap;
        }
        w->idx_off[w->nidx] = w->offset;
        w->idx_kind[w->nidx++] = kind;
    }
    mr_frame f = { .kind = kind, .raw_size = (uint32_t)raw,
                   .comp_size = (uint32_t)out.pos, .time = time, .tid = tid,
                   .nrecords = nrecords, .seq = w->seq++,
                   .zcrc = mr_zhdr_crc(w->comp.p, out.pos) };
    uint8_t hdr[MR_FRAME_LEN];
    mr_frame_encode(&f, hdr);
    if (put(w, hdr, sizeof hdr) || put(w, w->comp.p, out.pos))
        return -1;
    return 0;
}

/* The background thread failed: its error becomes the writer's. */
static int background_failed(mr_writer *w)
{
    return fail(w, "%s", w->bg_error ? w->bg_error : "the writer's thread failed");
}

static int flush_defs(mr_writer *w)
{
    if (!w->ndefs)
        return 0;
    mr_buf *pieces[1] = { &w->defs };
    uint64_t time = w->chunk_open ? w->chunk_time : w->time;
    uint32_t tid = w->chunk_open ? w->chunk_tid : w->cur_tid;
    if (w->sink) {
        /* A worker's copies of the definitions: the front writes them. */
    } else if (w->pieces) {
        if (mr_pieces_defs(w->pieces, &w->defs, w->ndefs))
            return oom(w);
    } else if (w->q) {
        mr_chunkjob job = { .kind = MR_CHUNK_DEFS, .nrecords = w->ndefs, .time = time, .tid = tid };
        if (mr_chunkq_push(w->q, &job, &w->defs, 1))
            return background_failed(w);
    } else if (write_chunk(w, MR_CHUNK_DEFS, pieces, 1, w->ndefs, time, tid)) {
        return -1;
    }
    w->defs.len = 0;
    w->ndefs = 0;
    w->prev_sym_addr = 0;
    return 0;
}

static size_t events_raw_size(const mr_writer *w)
{
    size_t n = 0;
    for (int i = 0; i < MR_NSTREAMS; i++)
        n += w->s[i].len;
    return n;
}

/* Writes the gathered EXEC_HITS record, if any. */
static int flush_run(mr_writer *w)
{
    if (!w->run_n)
        return 0;
    mr_buf *s = w->s;
    int bad = mr_buf_reserve(&s[MR_S_CTL], 1);
    if (!bad) {
        s[MR_S_CTL].p[s[MR_S_CTL].len++] = MR_OP_EXEC_HITS;
        bad = mr_buf_varint(&s[MR_S_BLOCK], w->run_n);
    }
    w->nrecords++;
    w->run_n = 0;
    return bad ? oom(w) : 0;
}

/* Packs the deltas of an EVENTS chunk's streams s, compresses and writes
 * the chunk (on the background thread, if there is one). */
static int write_events(mr_writer *w, mr_buf *s, uint32_t nrecords, uint64_t time, uint32_t tid)
{
    mr_buf lens = { 0 };
    mr_buf *pieces[1 + MR_NSTREAMS];
    int bad = mr_deltas_pack(&w->packer, &w->deltas, s[MR_S_DELTA].p, s[MR_S_DELTA].len,
                             s[MR_S_VALUE].p, s[MR_S_VALUE].len);
    bad |= mr_buf_varint(&lens, MR_NSTREAMS);
    for (int i = 0; i < MR_NSTREAMS; i++) {
        pieces[1 + i] = i == MR_S_DELTA ? &w->deltas : &s[i];
        bad |= mr_buf_varint(&lens, pieces[1 + i]->len);
    }
    pieces[0] = &lens;
    int rc = bad ? oom(w)
                 : write_chunk(w, MR_CHUNK_EVENTS, pieces, 1 + MR_NSTREAMS, nrecords, time, tid);
    mr_buf_free(&lens);
    return rc;
}

/* The background thread's work: one chunk, unless one failed already
 * (the file then ends with the chunks written before, as without it). */
static int background_work(void *ctx, mr_chunkjob *job)
{
    mr_writer *w = ctx;
    on_background = 1;
    if (w->bg_error)
        return -1;
    if (job->kind == MR_CHUNK_EVENTS)
        return write_events(w, job->bufs, job->nrecords, job->time, job->tid);
    mr_buf *pieces[1] = { &job->bufs[0] };
    return write_chunk(w, job->kind, pieces, 1, job->nrecords, job->time, job->tid);
}

static int flush_events(mr_writer *w)
{
    if (!w->chunk_open)
        return 0;
    if (flush_run(w))
        return -1;
    int rc;
    mr_chunkjob job = { .kind = MR_CHUNK_EVENTS, .nrecords = w->nrecords,
                        .time = w->chunk_time, .tid = w->chunk_tid };
    if (w->sink) {
        rc = w->sink(w->sink_ctx, &job, w->s, MR_NSTREAMS) ? oom(w) : 0;
    } else if (w->q) {
        rc = mr_chunkq_push(w->q, &job, w->s, MR_NSTREAMS) ? background_failed(w) : 0;
    } else {
        rc = write_events(w, w->s, w->nrecords, w->chunk_time, w->chunk_tid);
    }
    for (int i = 0; i < MR_NSTREAMS; i++)
        w->s[i].len = 0;
    w->nrecords = 0;
    w->chunk_open = 0;
    return rc;
}

/* Definitions first: everything an event chunk uses precedes it. */
static int flush_all(mr_writer *w)
{
    return flush_defs(w) || flush_events(w) ? -1 : 0;
}

static mr_thread_state *thread_get(mr_writer *w, uint32_t tid, int count)
{
    mr_thread_state *t = mr_map_get(&w->threads, tid);
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t || mr_map_put(&w->threads, tid, t)) {
            free(t);
            oom(w);
            return NULL;
        }
        t->tid = tid;
    }
    if (count && !t->counted) {
        t->counted = 1;
        w->tot.threads++;
    }
    return t;
}

/* Room left in every stream past chunk_bytes at chunk start: more than the
 * largest execution can write to one stream (10 bytes per access plus a
 * few varints), so mr_write_exec checks no capacity. */
#define MR_RECORD_ROOM (10u * MR_MAX_BLOCK_PARTS + 64u)

/* Starts an EVENTS chunk: prediction state resets, and the threads whose
 * last block left by a call or return are listed so a reader that seeks
 * here still synthesises the right MR_EV_CALL/RETURN. */
static int begin_chunk(mr_writer *w)
{
    for (int i = 0; i < MR_NSTREAMS; i++)
        if (mr_buf_reserve(&w->s[i], w->chunk_bytes + MR_RECORD_ROOM))
            return oom(w);
    w->chunk_limit = w->chunk_bytes;
    w->chunk_hits_limit = w->hits_limit;
    w->chunk_open = 1;
    w->chunk_time = w->time;
    w->chunk_tid = w->cur_tid;
    w->epoch++;
    w->prev = NULL;
    w->last_value = 0;
    w->hits_work = 0;
    mr_buf *st = &w->s[MR_S_STATE];
    uint32_t n = 0;
    for (size_t i = 0; i < w->threads.cap; i++) {
        mr_thread_state *t = w->threads.vals[i];
        n += t && (t->jump == MR_JUMP_CALL || t->jump == MR_JUMP_RET);
    }
    int bad = mr_buf_varint(st, n);
    for (size_t i = 0; i < w->threads.cap; i++) {
        mr_thread_state *t = w->threads.vals[i];
        if (!t || (t->jump != MR_JUMP_CALL && t->jump != MR_JUMP_RET))
            continue;
        bad |= mr_buf_varint(st, t->tid);
        bad |= mr_buf_bytes(st, &t->jump, 1);
        bad |= mr_buf_varint(st, t->from);
    }
    return bad ? oom(w) : 0;
}

/* Opens the chunk if needed and reserves room for one record. */
static int begin_record(mr_writer *w, uint8_t op)
{
    if (w->error)
        return -1;
    if (!w->chunk_open && begin_chunk(w))
        return -1;
    if (flush_run(w) || mr_buf_reserve(&w->s[MR_S_CTL], 1))
        return w->error ? -1 : oom(w);
    w->s[MR_S_CTL].p[w->s[MR_S_CTL].len++] = op;
    w->nrecords++;
    return 0;
}

static int end_record(mr_writer *w)
{
    if (w->error)
        return -1;
    if (events_raw_size(w) >= w->chunk_limit || w->hits_work >= w->chunk_hits_limit) {
        w->chunk_pos = w->piece_pos;
        return flush_all(w);
    }
    return 0;
}

/* ---- parallel modelling: the front's side (pieces.c) ------------------ */

/* The pieces failed: their error (or the writing thread's) becomes w's. */
static int pieces_failed(mr_writer *w)
{
    const char *why = mr_pieces_error(w->pieces);
    return why ? fail(w, "%s", why) : background_failed(w);
}

/* Every thread's state now, in a malloc'd array (*n of them). */
static mr_thread_state *thread_snapshot(mr_writer *w, size_t *n)
{
    mr_thread_state *snap = malloc((w->threads.n + 1) * sizeof *snap);
    *n = 0;
    for (size_t i = 0; snap && i < w->threads.cap; i++)
        if (w->threads.vals[i])
            snap[(*n)++] = *(mr_thread_state *)w->threads.vals[i];
    return snap;
}

/* Ends the gathering piece here (its definitions before it) and starts
 * the next with the clock, thread and thread states of now. */
static int front_cut(mr_writer *w)
{
    if (flush_defs(w))
        return -1;
    size_t n;
    mr_thread_state *snap = thread_snapshot(w, &n);
    if (!snap)
        return oom(w);
    int rc = mr_pieces_cut(w->pieces, w->time, w->cur_tid, snap, n);
    free(snap);
    return rc ? pieces_failed(w) : 0;
}

/* Logs an event (the front's state already past it); cuts a full piece. */
static int front_log(mr_writer *w, uint8_t kind, uint8_t aux, const uint64_t *words, size_t n)
{
    if (mr_pieces_log(w->pieces, kind, aux, words, n))
        return oom(w);
    return mr_pieces_full(w->pieces) ? front_cut(w) : 0;
}

/* ---- opening ----------------------------------------------------------- */

/* zstd's window for chunks of about chunk_bytes raw bytes: one that holds
 * a whole chunk (a chunk closes a record past chunk_bytes; a parallel
 * writer's last one may double, SPEC.md 6.8), so that the last streams of
 * a chunk find matches in its first. zstd narrows it to each frame's
 * pledged size, so levels whose own window is wider (17 and up) keep
 * theirs. At level 3 (a 2 MiB window for large inputs) this makes zstd's
 * work on gzip's and sqlite3's chunks 10-15% fewer instructions, as it no
 * longer slides its window through the chunk; most traces came out
 * 0.01-0.5% smaller, one (sqlite3, 100 K rows) 0.016% larger. */
static int chunk_window_log(size_t chunk_bytes)
{
    int log = 1;
    while (log < 31 && (1ull << log) < chunk_bytes)
        log++;
    ZSTD_bounds b = ZSTD_cParam_getBounds(ZSTD_c_windowLog);
    log++;   /* room for a chunk past chunk_bytes */
    return log < b.lowerBound ? b.lowerBound : log > b.upperBound ? b.upperBound : log;
}

/* A writer without a file yet: options applied. NULL out of memory. */
static mr_writer *writer_new(const mr_writer_options *opts)
{
    mr_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->cctx = ZSTD_createCCtx())) {
        free(w);
        return NULL;
    }
    w->fd = -1;
    w->level = opts && opts->level ? opts->level : 3;
    if (w->level > ZSTD_maxCLevel())
        w->level = ZSTD_maxCLevel();
    if (w->level < ZSTD_minCLevel())
        w->level = ZSTD_minCLevel();
    w->chunk_bytes = opts && opts->chunk_bytes ? opts->chunk_bytes : MR_DEFAULT_CHUNK;
    if (w->chunk_bytes < MR_MIN_CHUNK_OPT)
        w->chunk_bytes = MR_MIN_CHUNK_OPT;
    if (w->chunk_bytes > MR_MAX_CHUNK_OPT)
        w->chunk_bytes = MR_MAX_CHUNK_OPT;
    /* EXEC_HITS work per chunk grows with the chunk, within the format's bound. */
    w->hits_limit = 4 * (uint64_t)w->chunk_bytes;
    if (w->hits_limit > MR_MAX_CHUNK_HITS)
        w->hits_limit = MR_MAX_CHUNK_HITS;
    w->no_prev.succ = &w->no_prev_succ;
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, chunk_window_log(w->chunk_bytes));
    return w;
}

/* At most this many modelling threads (and pieces in memory at once). */
#define MR_MAX_WORKERS 16

mr_writer *mr_writer_open_fd(int fd, const mr_writer_options *opts, char **err)
{
    if (err)
        *err = NULL;
    mr_writer *w = writer_new(opts);
    if (!w) {
        if (err)
            *err = mr_strdup_printf("out of memory");
        close(fd);
        return NULL;
    }
    w->fd = fd;
    uint8_t hdr[MR_FILE_HEADER_LEN];
    mr_file_header_encode(hdr);
    if (put(w, hdr, sizeof hdr)) {
        if (err)
            *err = mr_strdup_printf("%s", w->error);
        mr_writer_close(w, NULL, NULL);
        return NULL;
    }
    int workers = opts && opts->workers > 0 ? opts->workers : 0;
    if (workers > MR_MAX_WORKERS)
        workers = MR_MAX_WORKERS;
    if (opts && (opts->background || workers))
        w->q = mr_chunkq_start(background_work, w);   /* NULL: the writer does it all */
    if (w->q && workers)   /* NULL: the sequential writer */
        w->pieces = mr_pieces_start(workers, opts, w->q);
    return w;
}

mr_writer *mr_writer_open(const char *path, const mr_writer_options *opts, char **err)
{
    int created = 0, fd;
    if (!strcmp(path, "-")) {
        fd = dup(STDOUT_FILENO);
    } else {
        /* Created here, the file is removed again if not even the file
         * header can be written (a full disk): no empty non-trace left. */
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        created = fd >= 0;
        if (fd < 0 && errno == EEXIST)
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        if (err)
            *err = mr_strdup_printf("%s", strerror(errno));
        return NULL;
    }
    mr_writer *w = mr_writer_open_fd(fd, opts, err);
    if (!w && created)
        unlink(path);
    return w;
}

const char *mr_writer_error(const mr_writer *w) { return w->error; }
/* Brings w->tot up to date with the executions counted per block exit. */
static void fold_all(mr_writer *w)
{
    for (uint32_t i = 0; i < w->blocks_cap; i++)
        if (w->blocks[i])
            mr_bstate_fold(w->blocks[i]->state, &w->tot);
}

const mr_totals *mr_writer_totals(const mr_writer *cw)
{
    mr_writer *w = (mr_writer *)cw;   /* folding counters is not a visible change */
    if (w->pieces && !w->error) {
        /* The workers count: every piece so far is modelled first. */
        size_t n;
        mr_thread_state *snap = thread_snapshot(w, &n);
        mr_totals t;
        if (!snap)
            oom(w);
        else if (mr_pieces_totals(w->pieces, w->time, w->cur_tid, snap, n, &t))
            pieces_failed(w);
        else {   /* the front counts the threads, the workers the rest */
            uint32_t threads = w->tot.threads;
            w->tot = t;
            w->tot.threads = threads;
        }
        free(snap);
        return &w->tot;
    }
    fold_all(w);
    return &w->tot;
}

/* ---- definitions ---------------------------------------------------------- */

/* Appends the record built in w->body as op + length + body. */
static int def_finish(mr_writer *w, uint8_t op)
{
    if (mr_buf_bytes(&w->defs, &op, 1) || mr_buf_varint(&w->defs, w->body.len) ||
        mr_buf_bytes(&w->defs, w->body.p, w->body.len))
        return oom(w);
    w->body.len = 0;
    w->ndefs++;
    if (w->defs.len >= w->chunk_bytes)
        return flush_defs(w);
    return 0;
}

/* The id of string s (0 for NULL), defining it first if it is new. */
static int string_id(mr_writer *w, const char *s, uint32_t *id)
{
    int is_new;
    if (s && strlen(s) > MR_MAX_STRING)
        return fail(w, "string longer than %u bytes", MR_MAX_STRING);
    *id = mr_intern_get(&w->strings, s, &is_new);
    if (*id == UINT32_MAX)
        return oom(w);
    if (!is_new)
        return 0;
    w->body.len = 0;
    if (mr_buf_bytes(&w->body, s, strlen(s)))
        return oom(w);
    return def_finish(w, MR_DEF_STRING);
}

#define BODY_VARINT(w, v) do { if (mr_buf_varint(&(w)->body, (v))) return oom(w); } while (0)

int mr_write_process(mr_writer *w, const mr_process *p)
{
    if (w->error)
        return -1;
    if (p->argc > MR_ID_SLACK || (p->argc && !p->argv))
        return fail(w, "process: bad argc");
    uint32_t exe, opts, *argv = malloc((p->argc + 1) * sizeof *argv);
    if (!argv)
        return oom(w);
    int bad = string_id(w, p->exe, &exe) || string_id(w, p->tool_options, &opts);
    for (uint32_t i = 0; !bad && i < p->argc; i++)
        bad = string_id(w, p->argv[i], &argv[i]);
    w->body.len = 0;
    bad = bad || mr_buf_varint(&w->body, p->pid) || mr_buf_varint(&w->body, p->ppid) ||
          mr_buf_varint(&w->body, p->start_usec) || mr_buf_varint(&w->body, exe) ||
          mr_buf_varint(&w->body, opts) || mr_buf_varint(&w->body, p->argc);
    for (uint32_t i = 0; !bad && i < p->argc; i++)
        bad = mr_buf_varint(&w->body, argv[i]);
    free(argv);
    if (bad)
        return w->error ? -1 : oom(w);
    return def_finish(w, MR_DEF_PROCESS);
}

int mr_write_module(mr_writer *w, const mr_module *m)
{
    uint32_t path;
    if (w->error || string_id(w, m->path, &path))
        return -1;
    w->body.len = 0;
    BODY_VARINT(w, m->id);
    BODY_VARINT(w, path);
    BODY_VARINT(w, m->text_addr);
    BODY_VARINT(w, m->text_size);
    BODY_VARINT(w, mr_zigzag(m->bias));
    return def_finish(w, MR_DEF_MODULE);
}

int mr_write_symbol(mr_writer *w, const mr_symbol *s)
{
    uint32_t fn, file;
    if (w->error || string_id(w, s->function, &fn) || string_id(w, s->file, &file))
        return -1;
    w->body.len = 0;
    BODY_VARINT(w, mr_zigzag((int64_t)(s->addr - w->prev_sym_addr)));
    BODY_VARINT(w, fn);
    BODY_VARINT(w, file);
    BODY_VARINT(w, s->line);
    w->prev_sym_addr = s->addr;
    return def_finish(w, MR_DEF_SYMBOL);
}

int mr_write_dataobj(mr_writer *w, const mr_dataobj *d)
{
    uint32_t name;
    if (w->error || string_id(w, d->name, &name))
        return -1;
    w->body.len = 0;
    BODY_VARINT(w, name);
    BODY_VARINT(w, d->addr);
    BODY_VARINT(w, d->size);
    BODY_VARINT(w, d->module);
    return def_finish(w, MR_DEF_DATAOBJ);
}

/* One malloc holding the def and its three arrays. */
static owned_block *copy_block(const mr_block_def *b)
{
    size_t si = b->ninstrs * sizeof(mr_instr_def);
    size_t sa = b->naccesses * sizeof(mr_access_def);
    size_t se = b->nexits * sizeof(mr_exit_def);
    owned_block *o = malloc(sizeof *o + si + sa + se);
    if (!o)
        return NULL;
    char *p = (char *)(o + 1);
    o->def = *b;
    o->def.instrs = memcpy(p, b->instrs, si);
    o->def.accesses = b->naccesses ? memcpy(p + si, b->accesses, sa) : (void *)(p + si);
    o->def.exits = memcpy(p + si + sa, b->exits, se);
    o->state = mr_bstate_new(&o->def, 0);
    if (!o->state) {
        free(o);
        return NULL;
    }
    return o;
}

static void free_block(owned_block *o)
{
    if (o) {
        mr_bstate_free(o->state);
        free(o);
    }
}

/* Grows a table indexed by id so that id fits; ids must stay dense. */
static int grow_table(mr_writer *w, void **table, uint32_t *cap, size_t elem,
                      uint32_t id, uint32_t ndefined, const char *what)
{
    if (id >= ndefined + MR_ID_SLACK)
        return fail(w, "%s id %u is not dense (only %u defined)", what, id, ndefined);
    if (id < *cap)
        return 0;
    uint32_t n = *cap ? *cap : 1024;
    while (n <= id)
        n *= 2;
    void *t = realloc(*table, (size_t)n * elem);
    if (!t)
        return oom(w);
    memset((char *)t + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *table = t;
    *cap = n;
    return 0;
}

int mr_write_block_def(mr_writer *w, const mr_block_def *b)
{
    if (w->error)
        return -1;
    const char *problem = mr_block_def_problem(b);
    if (problem)
        return fail(w, "block %u: %s", b->id, problem);
    uint32_t old_cap = w->blocks_cap;
    if (grow_table(w, (void **)&w->blocks, &w->blocks_cap, sizeof *w->blocks, b->id,
                   w->nblockdefs, "block"))
        return -1;
    if (w->blocks_cap != old_cap) {
        mr_bstate **t = realloc(w->states, w->blocks_cap * sizeof *t);
        if (!t)
            return oom(w);
        memset(t + old_cap, 0, (w->blocks_cap - old_cap) * sizeof *t);
        w->states = t;
        if (w->pieces) {
            walk_entry *k = realloc(w->walk, w->blocks_cap * sizeof *k);
            if (!k)
                return oom(w);
            memset(k + old_cap, 0, (w->blocks_cap - old_cap) * sizeof *k);
            w->walk = k;
        }
    }
    if (w->blocks[b->id]) {
        /* Redefinition: executions already coded used the old def, so they
         * must reach the file before the new def does. */
        if (w->chunk_open && flush_all(w))
            return -1;
        if (w->pieces && mr_pieces_logged(w->pieces) && front_cut(w))
            return -1;
        mr_bstate_fold(w->blocks[b->id]->state, &w->tot);
        free_block(w->blocks[b->id]);
        w->blocks[b->id] = NULL;
        w->states[b->id] = NULL;
        w->prev = NULL;
    } else {
        w->nblockdefs++;
    }
    owned_block *o = copy_block(b);
    if (!o)
        return oom(w);
    w->blocks[b->id] = o;
    w->states[b->id] = o->state;
    if (w->pieces)
        w->walk[b->id] = (walk_entry){ o->state->nwords, b->nexits,
                                       { b->exits[0].ninstrs,
                                         b->nexits > 1 ? b->exits[1].ninstrs : 0 } };
    w->body.len = 0;
    BODY_VARINT(w, b->id);
    BODY_VARINT(w, b->addr);
    BODY_VARINT(w, b->ninstrs);
    uint64_t next = b->addr;
    for (uint32_t i = 0; i < b->ninstrs; i++) {
        BODY_VARINT(w, mr_zigzag((int64_t)(b->instrs[i].addr - next)));
        BODY_VARINT(w, b->instrs[i].len);
        next = b->instrs[i].addr + b->instrs[i].len;
    }
    BODY_VARINT(w, b->naccesses);
    for (uint32_t i = 0; i < b->naccesses; i++) {
        BODY_VARINT(w, b->accesses[i].instr);
        BODY_VARINT(w, b->accesses[i].kind);
        BODY_VARINT(w, b->accesses[i].flags);
        BODY_VARINT(w, b->accesses[i].size);
    }
    BODY_VARINT(w, b->nexits);
    for (uint32_t i = 0; i < b->nexits; i++) {
        BODY_VARINT(w, b->exits[i].ninstrs);
        BODY_VARINT(w, b->exits[i].naccesses);
        BODY_VARINT(w, b->exits[i].jump);
    }
    if (w->pieces && mr_pieces_block(w->pieces, b))
        return oom(w);
    return def_finish(w, MR_DEF_BLOCK);
}

int mr_write_thread_os(mr_writer *w, uint32_t tid, uint64_t os_tid)
{
    if (w->error)
        return -1;
    w->body.len = 0;
    BODY_VARINT(w, tid);
    BODY_VARINT(w, os_tid);
    return def_finish(w, MR_DEF_THREAD);
}

int mr_write_stack(mr_writer *w, const mr_stack *s)
{
    if (w->error)
        return -1;
    if (s->id == 0)
        return fail(w, "stack id 0 is reserved for 'no stack'");
    if (s->depth > MR_MAX_BLOCK_PARTS || (s->depth && !s->ips))
        return fail(w, "stack %u: bad depth %u", s->id, s->depth);
    if (grow_table(w, (void **)&w->stacks, &w->stacks_cap, 1, s->id, w->nstackdefs, "stack"))
        return -1;
    if (w->stacks[s->id]) {
        if (w->chunk_open && flush_all(w))
            return -1;
        if (w->pieces && mr_pieces_logged(w->pieces) && front_cut(w))
            return -1;
    } else {
        w->nstackdefs++;
    }
    w->stacks[s->id] = 1;
    w->body.len = 0;
    BODY_VARINT(w, s->id);
    BODY_VARINT(w, s->depth);
    uint64_t prev = 0;
    for (uint32_t i = 0; i < s->depth; i++) {
        BODY_VARINT(w, mr_zigzag((int64_t)(s->ips[i] - prev)));
        prev = s->ips[i];
    }
    if (w->pieces && mr_pieces_stack(w->pieces, s))
        return oom(w);
    return def_finish(w, MR_DEF_STACK);
}

/* ---- events ------------------------------------------------------------------ */

#define MISC_VARINT(w, v) do { if (mr_buf_varint(&(w)->s[MR_S_MISC], (v))) return oom(w); } while (0)

int mr_write_thread_switch(mr_writer *w, uint32_t tid)
{
    if (w->pieces && !w->error) {
        w->cur_tid = tid;
        if (!(w->cur = thread_get(w, tid, 1)))
            return -1;
        uint64_t a[1] = { tid };
        return front_log(w, MR_LOG_SWITCH, 0, a, 1);
    }
    if (begin_record(w, MR_OP_SWITCH))
        return -1;
    MISC_VARINT(w, tid);
    w->cur_tid = tid;
    w->prev = NULL;
    if (!(w->cur = thread_get(w, tid, 1)))
        return -1;
    return end_record(w);
}

int mr_write_thread_create(mr_writer *w, uint32_t parent, uint32_t child)
{
    if (w->pieces && !w->error) {
        if (!thread_get(w, parent, 1) || !thread_get(w, child, 1))
            return -1;
        uint64_t a[2] = { parent, child };
        return front_log(w, MR_LOG_CREATE, 0, a, 2);
    }
    if (begin_record(w, MR_OP_CREATE))
        return -1;
    MISC_VARINT(w, parent);
    MISC_VARINT(w, child);
    if (!thread_get(w, parent, 1) || !thread_get(w, child, 1))
        return -1;
    return end_record(w);
}

int mr_write_thread_exit(mr_writer *w, uint32_t tid)
{
    if (w->pieces && !w->error) {
        if (!thread_get(w, tid, 1))
            return -1;
        uint64_t a[1] = { tid };
        return front_log(w, MR_LOG_TEXIT, 0, a, 1);
    }
    if (begin_record(w, MR_OP_TEXIT))
        return -1;
    MISC_VARINT(w, tid);
    if (!thread_get(w, tid, 1))
        return -1;
    return end_record(w);
}

/* Accesses of a guarded block, counted as they happen: the kinds among
 * accesses [from, to). Blocks without guards count by mr_bstate_fold. */
static inline void count_accesses(mr_totals *t, const mr_bstate *bs, uint32_t from,
                                  uint32_t to)
{
    const uint32_t *k = bs->kcount;
    t->loads += k[3 * to] - k[3 * from];
    t->stores += k[3 * to + 1] - k[3 * from + 1];
    t->modifies += k[3 * to + 2] - k[3 * from + 2];
}

/* The state the exec path keeps in locals while mr_write_execs loops:
 * the ends of the streams an execution writes, and the writer's fields it
 * changes. Stores of stream bytes (uint8_t, which may alias anything)
 * would otherwise make the compiler reload every field of the writer
 * after each of them. The fewer, the fewer the loop keeps on the stack:
 * the records are counted by the CTL bytes (one each), the latest
 * execution is prev, and hits_left counts down to the chunk's limit. */
typedef struct exec_state {
    uint8_t *ctl, *blk, *ext, *flg, *dlt, *val;
    uintptr_t full;          /* the sum of those ends at which the chunk is full */
    mr_bstate *prev;         /* the previous execution, w->no_prev at the chunk's
                              * start (its successor: MR_NO_BLOCK, no test) */
    uint32_t prev_exit;
    uint32_t epoch;          /* w->epoch: constant while it runs */
    uint64_t hits_left;      /* w->chunk_hits_limit - w->hits_work */
    uint64_t time, run_n, last_value;
} exec_state;

static inline void exec_state_load(mr_writer *w, exec_state *x)
{
    const mr_buf *s = w->s;
    if (w->chunk_open) {   /* else no stream is written before begin_chunk */
        x->ctl = s[MR_S_CTL].p + s[MR_S_CTL].len;
        x->blk = s[MR_S_BLOCK].p + s[MR_S_BLOCK].len;
        x->ext = s[MR_S_EXIT].p + s[MR_S_EXIT].len;
        x->flg = s[MR_S_FLAG].p + s[MR_S_FLAG].len;
        x->dlt = s[MR_S_DELTA].p + s[MR_S_DELTA].len;
        x->val = s[MR_S_VALUE].p + s[MR_S_VALUE].len;
        /* events_raw_size() >= chunk_limit, the other streams' sizes fixed */
        x->full = (uintptr_t)s[MR_S_CTL].p + (uintptr_t)s[MR_S_BLOCK].p +
                  (uintptr_t)s[MR_S_EXIT].p + (uintptr_t)s[MR_S_FLAG].p +
                  (uintptr_t)s[MR_S_DELTA].p + (uintptr_t)s[MR_S_VALUE].p + w->chunk_limit -
                  s[MR_S_STATE].len - s[MR_S_MISC].len;
    } else {
        x->ctl = x->blk = x->ext = x->flg = x->dlt = x->val = NULL;
        x->full = 0;
    }
    w->no_prev_succ = MR_NO_BLOCK;
    x->prev = w->prev ? w->prev : &w->no_prev;
    x->prev_exit = w->prev ? w->prev_exit : 0;
    x->epoch = w->epoch;
    x->hits_left = w->chunk_hits_limit - w->hits_work;
    x->time = w->time;
    x->run_n = w->run_n;
    x->last_value = w->last_value;
}

static inline void exec_state_store(mr_writer *w, exec_state *x)
{
    mr_buf *s = w->s;
    /* Executions came since the load: a record or a longer run. */
    int executed = w->chunk_open && (x->ctl != s[MR_S_CTL].p + s[MR_S_CTL].len ||
                                     x->run_n != w->run_n);
    if (w->chunk_open) {
        w->nrecords += (uint32_t)(x->ctl - (s[MR_S_CTL].p + s[MR_S_CTL].len));
        s[MR_S_CTL].len = (size_t)(x->ctl - s[MR_S_CTL].p);
        s[MR_S_BLOCK].len = (size_t)(x->blk - s[MR_S_BLOCK].p);
        s[MR_S_EXIT].len = (size_t)(x->ext - s[MR_S_EXIT].p);
        s[MR_S_FLAG].len = (size_t)(x->flg - s[MR_S_FLAG].p);
        s[MR_S_DELTA].len = (size_t)(x->dlt - s[MR_S_DELTA].p);
        s[MR_S_VALUE].len = (size_t)(x->val - s[MR_S_VALUE].p);
    }
    if (executed) {   /* the latest execution's exit is the thread's */
        w->cur->jump = x->prev->exits[x->prev_exit].jump;
        w->cur->from = x->prev->exit_from[x->prev_exit];
    }
    w->prev = x->prev == &w->no_prev ? NULL : x->prev;
    w->prev_exit = x->prev_exit;
    w->time = x->time;
    w->run_n = x->run_n;
    w->hits_work = w->chunk_hits_limit - x->hits_left;
    w->last_value = x->last_value;
}

/* Codes accesses [k, n) of an execution of a block with value or guarded
 * accesses as flags, deltas and values (SPEC.md 6.4); the first k repeated
 * their prediction (and their values are coded): HIT flags. *vi: values
 * used so far. 0, or -1 when values are missing. */
static inline __attribute__((always_inline)) int
code_accesses(mr_writer *w, exec_state *x, mr_bstate *bs, uint32_t block, uint32_t k,
              uint32_t n, const uint64_t *addrs, const uint64_t *values, uint32_t vi,
              int guards)
{
    uint8_t *fl = x->flg, *dp = x->dlt, *vp = x->val;
    mr_pred *pred = bs->pred;
    uint64_t last = x->last_value;
    int vhit = bs->has_value;
    for (uint32_t i = 0; i < k; i++)
        *fl++ = MR_F_HIT;
    if (guards)
        count_accesses(&w->tot, bs, 0, k);
    for (uint32_t i = k; i < n; i++) {
        uint8_t f = bs->aflags[i];
        uint64_t a = addrs[i];
        if (MR_UNLIKELY((f & MR_ACC_VALUE) && !values))
            return fail(w, "block %u: values missing", block);
        if (guards && (f & MR_ACC_GUARDED) && a == 0) {
            *fl++ = MR_F_GUARD;
            vi += (f & MR_ACC_VALUE) != 0;
            continue;
        }
        uint64_t delta = a - pred[i].addr;
        if (delta == pred[i].stride) {
            *fl++ = MR_F_HIT;
        } else if (vhit && a == last + pred[i].voff) {
            *fl++ = MR_F_VHIT;   /* a pointer loaded before, plus an offset */
            pred[i].stride = delta;
        } else {
            *fl++ = MR_F_MISS;
            dp = mr_put_varint(dp, mr_zigzag((int64_t)delta));
            pred[i].stride = delta;
        }
        pred[i].addr = a;
        pred[i].voff = a - last;
        if (guards)   /* only what happened counts */
            count_accesses(&w->tot, bs, i, i + 1);
        if (f & MR_ACC_VALUE) {
            uint64_t v = values[vi++];
            vp = mr_put_varint(vp, mr_zigzag((int64_t)(v - pred[i].value)));
            pred[i].value = v;
            last = v;
        }
    }
    x->flg = fl;
    x->dlt = dp;
    x->val = vp;
    x->last_value = last;
    return 0;
}

/* The leading accesses of an execution of a block with value or guarded
 * accesses that repeat their prediction: address a HIT, guard true.
 * Their state is updated and their values coded as coding them would;
 * returns how many (n: all, the execution may join an EXEC_HITS run).
 * *vi: values among them. guards: the block may have guarded accesses. */
static inline __attribute__((always_inline)) uint32_t
hit_prefix(exec_state *x, mr_bstate *bs, uint32_t n, const uint64_t *addrs,
           const uint64_t *values, uint32_t *vi, int guards)
{
    mr_pred *pred = bs->pred;
    uint64_t last = x->last_value;
    uint32_t i = 0, v = 0;
    uint8_t *vp = x->val;   /* room: begin_chunk's MR_RECORD_ROOM */
    for (; i < n; i++) {
        uint8_t f = bs->aflags[i];
        uint64_t a = addrs[i];
        if (a - pred[i].addr != pred[i].stride || (guards && (f & MR_ACC_GUARDED) && a == 0) ||
            ((f & MR_ACC_VALUE) && !values))
            break;
        pred[i].addr = a;
        pred[i].voff = a - last;
        if (f & MR_ACC_VALUE) {
            uint64_t val = values[v++];
            vp = mr_put_varint(vp, mr_zigzag((int64_t)(val - pred[i].value)));
            pred[i].value = last = val;
        }
    }
    x->val = vp;
    x->last_value = last;
    *vi = v;
    return i;
}

/* One execution of bs (block `block`, validated, its chunk open) by exit
 * `exit`, on the state in x: the prediction checks, the EXEC_HITS run or
 * the record (SPEC.md 6.4), and the state after. No capacity checks:
 * begin_chunk left every stream MR_RECORD_ROOM bytes beyond chunk_bytes,
 * more than one execution (and the run written before it) can add.
 * Returns 0, 1 when the chunk is full (the caller flushes it), or -1.
 * kind says which code is made (a constant), as mr_write_execs's loop
 * wants it, whose state stays in registers: EXEC_SIMPLE, a block without
 * values and guarded accesses (bs->simple); EXEC_UNGUARDED, one without
 * guarded accesses whose values are given; EXEC_ANY, any block. */
enum { EXEC_SIMPLE, EXEC_UNGUARDED, EXEC_ANY };
static inline __attribute__((always_inline)) int
exec_one(mr_writer *w, exec_state *x, mr_bstate *bs, uint32_t block, uint32_t exit,
         const uint64_t *addrs, const uint64_t *values, int kind)
{
    int simple = kind == EXEC_SIMPLE || (kind == EXEC_ANY && bs->simple);
    int guards = kind == EXEC_ANY && bs->has_guard;
    const mr_exit_def *ex = &bs->exits[exit];
    uint32_t n = ex->naccesses;
    mr_pred *pred = bs->pred;
    if (kind != EXEC_SIMPLE) {
        mr_bstate_touch(bs, x->epoch);
    } else if (MR_UNLIKELY(bs->simple_epoch != x->epoch)) {
        mr_bstate_touch(bs, x->epoch);   /* the chunk's first execution of bs */
        bs->simple_epoch = x->epoch;
    }
    uint32_t predicted = x->prev->succ[x->prev_exit];
    x->prev->succ[x->prev_exit] = block;
    uint32_t k = 0, vi = 0;
    int record = 1;   /* 0: the execution joins an EXEC_HITS run */
    if (predicted == block) {
        if (MR_LIKELY(simple)) {
            for (; k < n && addrs[k] - pred[k].addr == pred[k].stride; k++)
                pred[k].addr = addrs[k];
        } else {
            k = hit_prefix(x, bs, n, addrs, values, &vi, guards);
        }
        if (k == n && exit == bs->last_exit) {
            if (n + 1 > x->hits_left)
                x->hits_left = 0;   /* full: a plain record, then a new chunk */
            else
                record = 0;
        }
    }
    bs->execs[exit]++;   /* the totals it implies: mr_bstate_fold() */
    bs->last_exit = exit;
    x->time += ex->ninstrs;
    x->prev = bs;
    x->prev_exit = exit;
    if (!record) {
        x->run_n++;
        x->hits_left -= n + 1;
        if (guards)
            count_accesses(&w->tot, bs, 0, n);
        if (!vi)   /* nothing written: only the run's work can fill the chunk */
            return MR_UNLIKELY(x->hits_left == 0);
    } else {
        if (x->run_n) {   /* the run ends: written first */
            *x->ctl++ = MR_OP_EXEC_HITS;
            x->blk = mr_put_varint(x->blk, x->run_n);
            x->run_n = 0;
        }
        if (predicted == block) {
            *x->ctl++ = MR_OP_EXEC_PRED;
        } else {
            *x->ctl++ = MR_OP_EXEC;
            x->blk = mr_put_varint(x->blk, block);
        }
        if (bs->nexits > 1)
            x->ext = mr_put_varint(x->ext, exit);
        if (MR_LIKELY(simple)) {
            uint8_t *fl = x->flg, *dp = x->dlt;
            for (uint32_t i = 0; i < k; i++)
                *fl++ = MR_F_HIT;
            for (uint32_t i = k; i < n; i++) {
                uint64_t a = addrs[i], delta = a - pred[i].addr;
                if (delta == pred[i].stride) {
                    *fl++ = MR_F_HIT;
                } else {
                    *fl++ = MR_F_MISS;
                    dp = mr_put_varint(dp, mr_zigzag((int64_t)delta));
                    pred[i].stride = delta;
                }
                pred[i].addr = a;
            }
            x->flg = fl;
            x->dlt = dp;
        } else if (code_accesses(w, x, bs, block, k, n, addrs, values, vi, guards)) {
            return -1;
        }
    }
    return (uintptr_t)x->ctl + (uintptr_t)x->blk + (uintptr_t)x->ext + (uintptr_t)x->flg +
               (uintptr_t)x->dlt + (uintptr_t)x->val >= x->full ||
           x->hits_left == 0;
}

/* One execution of any block, on the writer's own fields: mr_write_exec's,
 * and mr_write_execs's for blocks with values or guards (out of its loop,
 * which keeps fewer registers busy). Its chunk is open. Returns as
 * exec_one. */
static __attribute__((noinline)) int exec_any(mr_writer *w, mr_bstate *bs, uint32_t block,
                                              uint32_t exit, const uint64_t *addrs,
                                              const uint64_t *values)
{
    exec_state x;
    exec_state_load(w, &x);
    int rc = exec_one(w, &x, bs, block, exit, addrs, values, EXEC_ANY);
    exec_state_store(w, &x);
    return rc;
}

static int front_execs(mr_writer *w, const uint64_t *words, size_t n, uint8_t tag,
                       size_t *used);

/* mr_write_exec on a front: the execution as mr_write_execs's words. */
static int front_exec(mr_writer *w, mr_bstate *bs, uint32_t block, uint32_t exit,
                      const uint64_t *addrs, const uint64_t *values)
{
    uint32_t n = bs->exits[exit].naccesses, na = bs->naccesses, v = 0;
    for (uint32_t i = 0; i < n; i++)
        v += (bs->aflags[i] & MR_ACC_VALUE) != 0;
    if (v && !values)
        return fail(w, "block %u: values missing", block);
    w->exec_words.len = 0;
    if (mr_buf_reserve(&w->exec_words, bs->nwords * 8))
        return oom(w);
    uint64_t *x = (uint64_t *)w->exec_words.p;
    memset(x, 0, bs->nwords * 8);
    x[0] = (uint64_t)exit << 8 | (uint64_t)block << 24;   /* tag 0 */
    if (n)
        memcpy(x + 1, addrs, n * 8);
    if (v)
        memcpy(x + 1 + na, values, v * 8);
    size_t used;
    return front_execs(w, x, bs->nwords, 0, &used);
}

int mr_write_exec(mr_writer *w, uint32_t block, uint32_t exit,
                  const uint64_t *addrs, const uint64_t *values)
{
    if (MR_UNLIKELY(w->error))
        return -1;
    mr_bstate *bs = block < w->blocks_cap ? w->states[block] : NULL;
    if (MR_UNLIKELY(!bs))
        return fail(w, "execution of undefined block %u", block);
    if (MR_UNLIKELY(exit >= bs->nexits))
        return fail(w, "block %u has no exit %u", block, exit);
    if (MR_UNLIKELY(bs->exits[exit].naccesses && !addrs))
        return fail(w, "block %u: addresses missing", block);
    if (MR_UNLIKELY(!w->cur) && !(w->cur = thread_get(w, w->cur_tid, 1)))
        return -1;
    if (w->pieces)
        return front_exec(w, bs, block, exit, addrs, values);
    if (MR_UNLIKELY(!w->chunk_open) && begin_chunk(w))
        return -1;
    int rc = exec_any(w, bs, block, exit, addrs, values);
    if (rc < 0)
        return -1;
    return rc ? flush_all(w) : 0;
}

/* A worker's chunk is full `at` words into the current log entry: when
 * less of the piece is left than the chunk took, the chunk's limits
 * double (within the format's bounds: 2 x 16 MiB < 64 MiB) so that it
 * takes the rest: a piece then ends in one chunk of 1 to 2 times the
 * usual size instead of a full one and a smaller one, a prediction reset
 * and a zstd frame less (the cut every piece adds costs less: replays of
 * gzip and sqlite3, 21.55 -> 21.39 MB and 10.31 -> 10.27 MB against 1.5
 * times). 1 extended, 0 flush it, -1 failed. */
static int extend_last_chunk(mr_writer *w, size_t at)
{
    uint64_t here = w->piece_pos + at;
    uint64_t took = here - w->chunk_pos, left = w->piece_len > here ? w->piece_len - here : 0;
    if (w->chunk_limit != w->chunk_bytes || left >= took)
        return 0;   /* extended once already, or much of the piece to come */
    uint64_t hits = 2 * w->hits_limit;
    w->chunk_limit = 2 * w->chunk_bytes;
    w->chunk_hits_limit = hits < MR_MAX_CHUNK_HITS ? hits : MR_MAX_CHUNK_HITS;
    if (events_raw_size(w) >= w->chunk_limit || w->hits_work >= w->chunk_hits_limit)
        return 0;
    for (int i = 0; i < MR_NSTREAMS; i++)
        if (mr_buf_reserve(&w->s[i], w->chunk_limit + MR_RECORD_ROOM - w->s[i].len))
            return oom(w);
    return 1;
}

/* mr_write_execs on a front: the executions are checked, and counted on
 * the clock and in the thread's last exit, as the sequential writer does,
 * then logged for a worker; only their headers are read. A piece ends
 * right after the execution that fills it, however the executions came
 * (one call or many): the same executions give the same pieces. */
static int front_execs(mr_writer *w, const uint64_t *words, size_t n, uint8_t tag,
                       size_t *used)
{
    const walk_entry *walk = w->walk;
    const uint32_t cap = w->blocks_cap;
    size_t pos = 0;
    int rc = 0;
    while (!rc && pos < n && (uint8_t)words[pos] == tag) {
        size_t start = pos, room = mr_pieces_room(w->pieces, tag);
        uint64_t time = w->time;
        uint32_t last = MR_NO_BLOCK, last_exit = 0;
        while (pos - start < room && pos < n && (uint8_t)words[pos] == tag) {
            uint64_t header = words[pos];
            uint32_t block = (uint32_t)(header >> 24), exit = (uint32_t)((header >> 8) & 0xffff);
            const walk_entry *we = block < cap ? &walk[block] : NULL;
            if ((rc = exec_check(w, we && we->nwords, we ? we->nexits : 0, we ? we->nwords : 0,
                                 block, exit, n - pos)))
                break;
            time += MR_LIKELY(exit < 2) ? we->ninstrs[exit] : w->states[block]->exits[exit].ninstrs;
            last = block;
            last_exit = exit;
            pos += we->nwords;
        }
        w->time = time;
        if (last != MR_NO_BLOCK) {   /* the thread's last exit, from the block's state */
            const mr_bstate *bs = w->states[last];
            w->cur->jump = bs->exits[last_exit].jump;
            w->cur->from = bs->exit_from[last_exit];
        }
        /* The executions before a bad one are the trace's, as sequentially. */
        if (pos > start && mr_pieces_log(w->pieces, MR_LOG_EXECS, tag, words + start, pos - start))
            rc = oom(w);
        if (!rc && mr_pieces_full(w->pieces))
            rc = front_cut(w);
    }
    *used = pos;
    return rc;
}

/* The execution at p (left words up to the slot's end): its block's state,
 * block and exit; NULL with the writer failed when it makes no sense. */
static inline __attribute__((always_inline)) mr_bstate *
exec_at(mr_writer *w, mr_bstate *const *states, uint32_t cap, const uint64_t *p,
        size_t left, uint32_t *block, uint32_t *exit)
{
    uint64_t header = *p;
    *block = (uint32_t)(header >> 24);
    *exit = (uint32_t)((header >> 8) & 0xffff);
    mr_bstate *bs = *block < cap ? states[*block] : NULL;
    if (exec_check(w, bs != NULL, bs ? bs->nexits : 0, bs ? bs->nwords : 0, *block, *exit,
                   left))
        return NULL;
    return bs;
}

int mr_write_execs(mr_writer *w, const uint64_t *words, size_t n, uint8_t tag, size_t *used)
{
    int rc = 0;
    *used = 0;
    if (MR_UNLIKELY(w->error))
        return -1;
    if (MR_UNLIKELY(!w->cur) && !(w->cur = thread_get(w, w->cur_tid, 1)))
        return -1;
    if (w->pieces)
        return front_execs(w, words, n, tag, used);
    /* No block is defined while this runs: the table stays where it is.
     * p walks the words (one value less than words and an index). */
    mr_bstate *const *states = w->states;
    const uint32_t cap = w->blocks_cap;
    const uint64_t *p = words, *const end = words + n;
    exec_state x;
    exec_state_load(w, &x);
    while (p < end && (uint8_t)*p == tag) {
        uint32_t block, exit;
        mr_bstate *bs = exec_at(w, states, cap, p, (size_t)(end - p), &block, &exit);
        if (!bs) {
            rc = -1;
            break;
        }
        if (MR_UNLIKELY(!w->chunk_open)) {
            exec_state_store(w, &x);
            rc = begin_chunk(w);
            exec_state_load(w, &x);
            if (rc)
                break;
        }
        /* The chunk stays open until an execution fills it: the inner
         * loop tests nothing else. */
        for (;;) {
            const uint64_t *addrs = p + 1;
            if (MR_LIKELY(bs->simple_epoch == x.epoch) || bs->simple) {
                rc = exec_one(w, &x, bs, block, exit, addrs, NULL, EXEC_SIMPLE);
            } else if (!bs->has_guard) {   /* values: after all the addresses */
                rc = exec_one(w, &x, bs, block, exit, addrs, addrs + bs->naccesses,
                              EXEC_UNGUARDED);
            } else {
                exec_state_store(w, &x);
                rc = exec_any(w, bs, block, exit, addrs,
                              bs->has_value ? addrs + bs->naccesses : NULL);
                exec_state_load(w, &x);
            }
            if (MR_UNLIKELY(rc))
                break;
            p += bs->nwords;
            if (p >= end || (uint8_t)*p != tag)
                goto done;
            if (!(bs = exec_at(w, states, cap, p, (size_t)(end - p), &block, &exit))) {
                rc = -1;
                goto done;
            }
        }
        if (rc < 0)
            break;
        p += bs->nwords;   /* it filled the chunk */
        exec_state_store(w, &x);
        size_t pos = (size_t)(p - words);
        rc = w->sink ? extend_last_chunk(w, pos) : 0;
        if (!rc) {
            w->chunk_pos = w->piece_pos + pos;
            rc = flush_all(w);
        }
        exec_state_load(w, &x);
        if (rc < 0) {
            p -= bs->nwords;   /* as before: the failed chunk's execution is not used */
            break;
        }
        rc = 0;
    }
done:
    exec_state_store(w, &x);
    *used = (size_t)(p - words);
    return rc;
}

int mr_write_heap(mr_writer *w, const mr_heap *h)
{
    if (w->error)
        return -1;
    if (h->op < MR_MALLOC || h->op > MR_MUNMAP)
        return fail(w, "unknown heap operation %u", h->op);
    if (h->stack && (h->stack >= w->stacks_cap || !w->stacks[h->stack]))
        return fail(w, "heap event names undefined stack %u", h->stack);
    if (w->pieces) {   /* the workers count it */
        uint64_t a[6] = { h->op, h->addr, h->size, h->count, h->old_addr, h->stack };
        return front_log(w, MR_LOG_HEAP, 0, a, 6);
    }
    if (begin_record(w, MR_OP_HEAP))
        return -1;
    MISC_VARINT(w, h->op);
    MISC_VARINT(w, h->addr);
    MISC_VARINT(w, h->size);
    MISC_VARINT(w, h->count);
    MISC_VARINT(w, h->old_addr);
    MISC_VARINT(w, h->stack);
    switch (h->op) {
    case MR_REALLOC: w->tot.reallocs++; break;
    case MR_FREE: case MR_DELETE: case MR_DELETE_ARRAY: w->tot.frees++; break;
    case MR_MMAP: case MR_MUNMAP: break;   /* mappings: in no total */
    default: w->tot.allocs++; break;
    }
    return end_record(w);
}

int mr_write_mark(mr_writer *w, const char *name)
{
    size_t len = name ? strlen(name) : 0;
    if (!w->error && len > MR_MAX_STRING)
        return fail(w, "mark name longer than %u bytes", MR_MAX_STRING);
    if (w->pieces && !w->error) {   /* the name and its NUL, in words */
        size_t nw = len / 8 + 1;
        w->exec_words.len = 0;
        if (mr_buf_reserve(&w->exec_words, nw * 8))
            return oom(w);
        memset(w->exec_words.p, 0, nw * 8);
        memcpy(w->exec_words.p, name ? name : "", len);
        return front_log(w, MR_LOG_MARK, 0, (const uint64_t *)w->exec_words.p, nw);
    }
    if (begin_record(w, MR_OP_MARK))
        return -1;
    MISC_VARINT(w, len);
    if (mr_buf_bytes(&w->s[MR_S_MISC], name, len))
        return oom(w);
    return end_record(w);
}

int mr_write_collect(mr_writer *w, int on)
{
    if (w->pieces && !w->error)
        return front_log(w, MR_LOG_COLLECT, on != 0, NULL, 0);
    if (begin_record(w, on ? MR_OP_COLLECT_ON : MR_OP_COLLECT_OFF))
        return -1;
    return end_record(w);
}

/* ---- closing --------------------------------------------------------------- */

static int write_end(mr_writer *w, const mr_end *end)
{
    mr_end lost = { .reason = MR_END_LOST };
    if (!end)
        end = &lost;
    if (begin_record(w, MR_OP_END))
        return -1;
    fold_all(w);
    const mr_totals *t = &w->tot;
    MISC_VARINT(w, end->reason);
    MISC_VARINT(w, mr_zigzag(end->status));
    MISC_VARINT(w, mr_zigzag(end->signal));
    uint64_t fields[] = { t->instructions, t->blocks, t->loads, t->stores, t->modifies,
                          t->calls, t->returns, t->allocs, t->frees, t->reallocs,
                          t->threads };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        MISC_VARINT(w, fields[i]);
    return flush_all(w);
}

static int write_index_and_trailer(mr_writer *w)
{
    mr_buf idx = { 0 };
    int bad = mr_buf_varint(&idx, w->nidx);
    uint64_t prev = 0;
    for (size_t i = 0; i < w->nidx; i++) {
        bad |= mr_buf_varint(&idx, w->idx_off[i] - prev);
        bad |= mr_buf_bytes(&idx, &w->idx_kind[i], 1);
        prev = w->idx_off[i];
    }
    uint64_t index_offset = w->offset;
    mr_buf *pieces[1] = { &idx };
    int rc = bad ? oom(w)
                 : write_chunk(w, MR_CHUNK_INDEX, pieces, 1, (uint32_t)w->nidx, w->time,
                               w->cur_tid);
    mr_buf_free(&idx);
    if (rc)
        return -1;
    uint8_t tr[MR_TRAILER_LEN];
    mr_le64(tr, index_offset);
    mr_le32(tr + 8, (uint32_t)w->nidx);
    mr_le32(tr + 12, mr_crc32(tr, 12));
    memcpy(tr + 16, MR_TRAILER_MAGIC, 8);
    return put(w, tr, sizeof tr);
}

int mr_writer_close(mr_writer *w, const mr_end *end, char **err)
{
    if (err)
        *err = NULL;
    if (!w)
        return -1;
    int ended;
    if (w->pieces) {
        /* Every piece modelled and queued, the last with the end record. */
        int ok = !w->error && !flush_defs(w);
        ended = !mr_pieces_finish(w->pieces, ok, end, w->tot.threads) && ok;
        if (ok && !ended)
            pieces_failed(w);
        mr_pieces_free(w->pieces);
        w->pieces = NULL;
    } else {
        ended = !w->error && !write_end(w, end);
    }
    if (w->q) {                         /* its chunks first, then the index */
        if (mr_chunkq_stop(w->q))
            background_failed(w);
        w->q = NULL;
    }
    if (ended && !w->error)
        write_index_and_trailer(w);
    if (w->fd >= 0 && close(w->fd) && !w->error)
        fail(w, "close: %s", strerror(errno));
    int rc = w->error ? -1 : 0;
    if (rc && err)
        *err = mr_strdup_printf("%s", w->error);
    writer_free(w);
    return rc;
}

/* Frees w and everything it holds (its file is closed). */
static void writer_free(mr_writer *w)
{
    free(w->error);
    free(w->bg_error);
    ZSTD_freeCCtx(w->cctx);
    mr_buf_free(&w->comp);
    mr_buf_free(&w->defs);
    mr_buf_free(&w->body);
    for (int i = 0; i < MR_NSTREAMS; i++)
        mr_buf_free(&w->s[i]);
    mr_buf_free(&w->deltas);
    mr_delta_packer_free(&w->packer);
    mr_intern_free(&w->strings);
    for (uint32_t i = 0; i < w->blocks_cap; i++)
        free_block(w->blocks[i]);
    free(w->blocks);
    free(w->states);
    free(w->walk);
    free(w->stacks);
    for (size_t i = 0; i < w->threads.cap; i++)
        free(w->threads.vals[i]);
    mr_map_free(&w->threads);
    free(w->idx_off);
    free(w->idx_kind);
    mr_buf_free(&w->exec_words);
    free(w);
}

/* ---- worker writers (pieces.c) --------------------------------------------- */

mr_writer *mr_writer_worker_new(const mr_writer_options *opts, mr_sink sink, void *ctx)
{
    mr_writer *w = writer_new(opts);
    if (w) {
        w->sink = sink;
        w->sink_ctx = ctx;
    }
    return w;
}

/* A piece starts: the front's clock, thread and thread states of then
 * (its chunk is closed: the last piece's chunks ended with it). */
void mr_writer_worker_begin(mr_writer *w, uint64_t time, uint32_t tid,
                            const mr_thread_state *threads, size_t nthreads)
{
    for (size_t i = 0; i < w->threads.cap; i++)
        free(w->threads.vals[i]);
    mr_map_free(&w->threads);
    for (size_t i = 0; i < nthreads; i++) {
        mr_thread_state *t = thread_get(w, threads[i].tid, 0);
        if (t) {
            t->jump = threads[i].jump;
            t->from = threads[i].from;
        }
    }
    w->time = time;
    w->cur_tid = tid;
    w->cur = NULL;
    w->prev = NULL;
    w->chunk_pos = w->piece_pos = w->piece_len = 0;
}

/* The entry modelled next starts pos words into a log of len words. */
void mr_writer_worker_at(mr_writer *w, uint64_t pos, uint64_t len)
{
    w->piece_pos = pos;
    w->piece_len = len;
}

int mr_writer_worker_flush(mr_writer *w)
{
    return w->error ? -1 : flush_all(w);
}

/* Adds what w counted (all but threads, which the front counts) to sum. */
void mr_writer_worker_fold(mr_writer *w, mr_totals *sum)
{
    fold_all(w);
    const mr_totals *t = &w->tot;
    sum->instructions += t->instructions;
    sum->blocks += t->blocks;
    sum->loads += t->loads;
    sum->stores += t->stores;
    sum->modifies += t->modifies;
    sum->calls += t->calls;
    sum->returns += t->returns;
    sum->allocs += t->allocs;
    sum->frees += t->frees;
    sum->reallocs += t->reallocs;
    memset(&w->tot, 0, sizeof w->tot);
}

/* The end record, with the totals of the whole trace. */
int mr_writer_worker_end(mr_writer *w, const mr_end *end, const mr_totals *tot)
{
    w->tot = *tot;
    return write_end(w, end);
}

void mr_writer_worker_free(mr_writer *w)
{
    writer_free(w);
}
