/*
 * reader.c: the streaming reader. Chunks are read one after the other from
 * any descriptor (a pipe works: the footer is never needed); an EVENTS
 * chunk is decoded record by record straight from its streams (SPEC.md
 * "Event chunks"), with the same prediction state the writer kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd_errors.h>
#include "trace_internal.h"

#define IN_BUF 65536

int mr_reader_fail(mr_reader *r, int truncated, const char *fmt, ...)
{
    if (!r->failed) {
        va_list ap;
        va_start(ap, fmt);
        free(r->error);
        if (vasprintf(&r->error, fmt, ap) < 0)
            r->error = NULL;
        va_end(ap);
        r->failed = 1;
        r->fast = 0;
        r->truncated = truncated;
    }
    return -1;
}

/* Reads up to n bytes; fewer only at the end of the input. -1 on error. */
static ssize_t read_full(mr_reader *r, void *dst, size_t n)
{
    uint8_t *d = dst;
    size_t got = 0;
    while (got < n) {
        if (r->in_pos < r->in_len) {
            size_t k = r->in_len - r->in_pos;
            if (k > n - got)
                k = n - got;
            memcpy(d + got, r->in + r->in_pos, k);
            r->in_pos += k;
            got += k;
            continue;
        }
        ssize_t k;
        if (n - got >= IN_BUF) {   /* large payloads bypass the buffer */
            k = read(r->fd, d + got, n - got);
            if (k > 0)
                got += (size_t)k;
        } else {
            k = read(r->fd, r->in, IN_BUF);
            if (k > 0) {
                r->in_pos = 0;
                r->in_len = (size_t)k;
            }
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
    }
    r->pos += got;
    return (ssize_t)got;
}

__attribute__((noinline)) mr_thread_state *mr_reader_thread(mr_reader *r, uint32_t tid,
                                                             int count)
{
    mr_thread_state *t = mr_map_get(&r->threads, tid);
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t || mr_map_put(&r->threads, tid, t)) {
            free(t);
            mr_reader_fail(r, 0, "out of memory");
            return NULL;
        }
        t->tid = tid;
    }
    if (count && !t->counted) {
        t->counted = 1;
        r->tot.threads++;
    }
    return t;
}

/* ---- opening ------------------------------------------------------------------ */

mr_reader *mr_reader_open_fd(int fd, char **err)
{
    if (err)
        *err = NULL;
    mr_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->in = malloc(IN_BUF)) || !(r->dctx = ZSTD_createDCtx())) {
        if (r)
            free(r->in);
        free(r);
        close(fd);
        if (err)
            *err = mr_strdup_printf("out of memory");
        return NULL;
    }
    r->fd = fd;
    r->from_start = 1;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t here = lseek(fd, 0, SEEK_CUR);
        if (here >= 0) {
            r->regular = 1;
            r->base = (uint64_t)here;
        }
    }
    uint8_t h[MR_FILE_HEADER_LEN];
    ssize_t n = read_full(r, h, sizeof h);
    const char *msg = NULL;
    char *owned = NULL;
    if (n < 0)
        owned = mr_strdup_printf("read: %s", strerror(errno));
    else if (n == 0)
        msg = "empty file";
    else if (memcmp(h, MR_MAGIC, (size_t)n < MR_MAGIC_LEN ? (size_t)n : MR_MAGIC_LEN))
        msg = "not a memrec trace";
    else if (n < MR_FILE_HEADER_LEN)
        msg = "truncated: the file header is incomplete";
    else if (mr_rd32(h + 16) != mr_crc32(h, 16))
        msg = "corrupt file header (checksum mismatch)";
    else if (mr_rd16(h + 8) < MR_FORMAT_VERSION_MIN || mr_rd16(h + 8) > MR_FORMAT_VERSION)
        owned = mr_strdup_printf("unsupported trace format version %u", mr_rd16(h + 8));
    else if (mr_rd32(h + 12) & MR_FLAGS_REQUIRED_MASK)
        owned = mr_strdup_printf("unsupported trace flags 0x%x", mr_rd32(h + 12));
    r->version = msg || owned ? 0 : mr_rd16(h + 8);
    if (msg || owned) {
        if (err)
            *err = owned ? owned : mr_strdup_printf("%s", msg);
        else
            mr_free_error(owned);
        mr_reader_close(r);
        return NULL;
    }
    return r;
}

mr_reader *mr_reader_open(const char *path, char **err)
{
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
    if (fd < 0) {
        if (err)
            *err = mr_strdup_printf("%s", strerror(errno));
        return NULL;
    }
    return mr_reader_open_fd(fd, err);
}

void mr_reader_close(mr_reader *r)
{
    if (!r)
        return;
    close(r->fd);
    free(r->in);
    free(r->error);
    ZSTD_freeDCtx(r->dctx);
    mr_buf_free(&r->comp);
    mr_buf_free(&r->raw);
    mr_reader_defs_free(r);
    for (size_t i = 0; i < r->threads.cap; i++)
        free(r->threads.vals[i]);
    mr_map_free(&r->threads);
    free(r->acc);
    free(r->strides);
    free(r->group_ev);
    free(r->group_acc);
    free(r->group_str);
    free(r->idx_off);
    free(r->idx_kind);
    free(r);
}

const char *mr_reader_error(const mr_reader *r) { return r->error; }
int mr_reader_truncated(const mr_reader *r) { return r->truncated; }
uint64_t mr_reader_bytes(const mr_reader *r) { return r->pos; }
uint64_t mr_reader_chunks(const mr_reader *r) { return r->chunks_read; }

/* ---- chunks ------------------------------------------------------------------- */

/* Sets up the streams of an EVENTS chunk and its thread states. */
static int start_events(mr_reader *r)
{
    mr_cursor c = { r->raw.p, r->raw.p + r->frame.raw_size, 0 };
    uint32_t nstreams = mr_cur_u32(&c, 64);
    if (c.bad || nstreams < MR_NSTREAMS)
        return mr_reader_fail(r, 0, "chunk %u: bad stream table", r->frame.seq);
    uint64_t lens[64], total = 0;
    for (uint32_t i = 0; i < nstreams; i++) {
        lens[i] = mr_cur_varint(&c);
        total += lens[i] > MR_MAX_CHUNK_RAW ? MR_MAX_CHUNK_RAW : lens[i];
    }
    if (c.bad || total != (uint64_t)(c.end - c.p))
        return mr_reader_fail(r, 0, "chunk %u: stream lengths do not add up", r->frame.seq);
    const uint8_t *p = c.p;
    for (int i = 0; i < MR_NSTREAMS; i++) {   /* later streams: newer minor versions */
        r->sp[i] = p;
        r->se[i] = p += lens[i];
    }
    /* One op byte per record: checked once here, not per record. */
    if ((uint64_t)(r->se[MR_S_CTL] - r->sp[MR_S_CTL]) != r->frame.nrecords)
        return mr_reader_fail(r, 0, "chunk %u: control stream does not match the record count",
                              r->frame.seq);
    r->epoch++;
    r->prev_slot = NULL;
    r->last_value = 0;
    r->dp = r->dend = r->dbuf;
    r->delta_rest = r->version < 3;   /* version 2: svarints only */
    r->chunk_hits = 0;
    /* Threads' pending call/return as the writer saw them at chunk start. */
    for (size_t i = 0; i < r->threads.cap; i++)
        if (r->threads.vals[i])
            ((mr_thread_state *)r->threads.vals[i])->jump = MR_JUMP_BORING;
    mr_cursor st = { r->sp[MR_S_STATE], r->se[MR_S_STATE], 0 };
    uint32_t n = mr_cur_u32(&st, (uint32_t)(st.end - st.p));
    for (uint32_t i = 0; i < n && !st.bad; i++) {
        uint32_t tid = mr_cur_u32(&st, UINT32_MAX);
        uint8_t jump = mr_cur_byte(&st);
        uint64_t from = mr_cur_varint(&st);
        if (jump != MR_JUMP_CALL && jump != MR_JUMP_RET)
            st.bad = 1;
        mr_thread_state *t = st.bad ? NULL : mr_reader_thread(r, tid, 0);
        if (!t)
            break;
        t->jump = jump;
        t->from = from;
    }
    if (r->failed)
        return -1;
    if (st.bad || st.p != st.end)
        return mr_reader_fail(r, 0, "chunk %u: bad thread state", r->frame.seq);
    r->sp[MR_S_STATE] = st.p;
    return 0;
}

/* Verifies the trailer after the INDEX chunk: the trace is complete. */
static int finish_trace(mr_reader *r)
{
    if (mr_index_parse(r, r->raw.p, r->frame.raw_size, r->frame_off))
        return mr_reader_fail(r, 0, "footer index at offset %llu is corrupt",
                              (unsigned long long)r->frame_off);
    if (r->nidx != r->frame.seq)
        return mr_reader_fail(r, 0, "footer index lists %u chunks, the file has %u",
                              r->nidx, r->frame.seq);
    uint8_t t[MR_TRAILER_LEN];
    uint64_t off = r->pos;
    ssize_t n = read_full(r, t, sizeof t);
    if (n < 0)
        return mr_reader_fail(r, 0, "read: %s", strerror(errno));
    if (n < MR_TRAILER_LEN)
        return mr_reader_fail(r, 1, "truncated: the trailer at offset %llu is incomplete",
                              (unsigned long long)off);
    uint64_t index_offset;
    uint32_t nchunks;
    const char *bad = mr_trailer_check(t, &index_offset, &nchunks);
    if (!bad && (index_offset != r->frame_off || nchunks != r->nidx))
        bad = "it does not point at the footer index";
    if (bad)
        return mr_reader_fail(r, 0, "trailer at offset %llu: %s", (unsigned long long)off, bad);
    if (r->end.reason == MR_END_LOST) {
        r->truncated = 1;
        free(r->error);
        r->error = mr_strdup_printf("truncated: the trace has no end record (the recorder "
                                    "stopped without closing it)");
    }
    return 0;
}

__attribute__((noinline)) int mr_reader_load_chunk(mr_reader *r)
{
    for (;;) {
        uint8_t h[MR_FRAME_LEN];
        uint64_t off = r->pos;
        uint32_t seq = r->next_seq;
        ssize_t n = read_full(r, h, sizeof h);
        if (n < 0)
            return mr_reader_fail(r, 0, "read: %s", strerror(errno));
        if (n == 0)
            return mr_reader_fail(r, 1, r->end_seen
                                  ? "truncated: the footer index at offset %llu is missing"
                                  : "truncated: the trace stops at offset %llu, before its end record",
                                  (unsigned long long)off);
        if (n < MR_FRAME_LEN)
            return mr_reader_fail(r, 1, "truncated: chunk %u at offset %llu is incomplete",
                                  seq, (unsigned long long)off);
        mr_frame f;
        const char *bad = mr_frame_decode(h, &f);
        if (bad)
            return mr_reader_fail(r, 0, "chunk %u at offset %llu: %s", seq,
                                  (unsigned long long)off, bad);
        if (f.seq != seq)
            return mr_reader_fail(r, 0, "chunk %u at offset %llu: out of sequence (numbered %u)",
                                  seq, (unsigned long long)off, f.seq);
        int known = f.kind == MR_CHUNK_DEFS || f.kind == MR_CHUNK_EVENTS || f.kind == MR_CHUNK_INDEX;
        if (!known && f.kind < MR_CHUNK_OPTIONAL_MIN)
            return mr_reader_fail(r, 0, "chunk %u: unsupported chunk kind %u", seq, f.kind);
        if (known && (r->end_seen != (f.kind == MR_CHUNK_INDEX)))
            return mr_reader_fail(r, 0, r->end_seen ? "chunk %u: data after the end record"
                                                    : "chunk %u: footer index before the end record",
                                  seq);
        if (mr_buf_reserve(&r->comp, f.comp_size) ||
            (known && mr_buf_reserve(&r->raw, f.raw_size)))
            return mr_reader_fail(r, 0, "out of memory");
        n = read_full(r, r->comp.p, f.comp_size);
        if (n < 0)
            return mr_reader_fail(r, 0, "read: %s", strerror(errno));
        if ((size_t)n < f.comp_size)
            return mr_reader_fail(r, 1, "truncated: chunk %u at offset %llu is incomplete",
                                  seq, (unsigned long long)off);
        r->next_seq++;
        /* Counted like mr_reader_chunk_count(): the index is not a chunk of data. */
        r->chunks_read += f.kind != MR_CHUNK_INDEX;
        if (mr_zhdr_crc(r->comp.p, f.comp_size) != f.zcrc)
            return mr_reader_fail(r, 0, "chunk %u: checksum mismatch", seq);
        if (!known)
            continue;   /* optional chunk of a newer minor version */
        if (ZSTD_findFrameCompressedSize(r->comp.p, f.comp_size) != f.comp_size ||
            ZSTD_getFrameContentSize(r->comp.p, f.comp_size) != f.raw_size)
            return mr_reader_fail(r, 0, "chunk %u: corrupt compressed data", seq);
        size_t got = ZSTD_decompressDCtx(r->dctx, r->raw.p, f.raw_size, r->comp.p, f.comp_size);
        if (ZSTD_isError(got))
            return mr_reader_fail(r, 0, ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong
                                  ? "chunk %u: checksum mismatch"
                                  : "chunk %u: corrupt compressed data", seq);
        if (got != f.raw_size)
            return mr_reader_fail(r, 0, "chunk %u: corrupt compressed data", seq);
        memset(r->raw.p + f.raw_size, 0, MR_PAD);
        r->frame = f;
        r->frame_off = off;
        if (f.kind == MR_CHUNK_INDEX)
            return finish_trace(r) ? -1 : 0;
        if (r->resync) {
            r->time = f.time;
            r->cur_tid = f.tid;
            r->cur = mr_map_get(&r->threads, f.tid);
            r->resync = 0;
        } else if (f.time != r->time || f.tid != r->cur_tid) {
            return mr_reader_fail(r, 0, "chunk %u: clock or thread does not follow on", seq);
        }
        r->recs_left = f.nrecords;
        if (f.kind == MR_CHUNK_DEFS) {
            r->dc = (mr_cursor){ r->raw.p, r->raw.p + f.raw_size, 0 };
            r->redeliver = f.seq < r->defs_upto;
            r->prev_sym_addr = 0;
        } else {
            if (start_events(r))
                return -1;
            if (f.seq >= r->defs_upto)
                r->defs_upto = (uint64_t)f.seq + 1;
        }
        r->in_chunk = 1;
        return 1;
    }
}

/* ---- events ------------------------------------------------------------------- */

/* The cold error path of the decoders, out of line. */
__attribute__((noinline, cold)) int mr_reader_corrupt(mr_reader *r, const char *what)
{
    return mr_reader_fail(r, 0, "chunk %u: %s", r->frame.seq, what);
}

static int check_totals(mr_reader *r, const mr_totals *t)
{
    for (uint32_t i = 0; i < r->blocks_cap; i++)   /* the per-exit counters */
        if (r->blocks[i])
            mr_bstate_fold(r->blocks[i], &r->tot);
    const mr_totals *d = &r->tot;
    struct { const char *name; uint64_t rec, dec; } f[] = {
        { "instructions", t->instructions, d->instructions }, { "blocks", t->blocks, d->blocks },
        { "loads", t->loads, d->loads }, { "stores", t->stores, d->stores },
        { "modifies", t->modifies, d->modifies }, { "calls", t->calls, d->calls },
        { "returns", t->returns, d->returns }, { "allocs", t->allocs, d->allocs },
        { "frees", t->frees, d->frees }, { "reallocs", t->reallocs, d->reallocs },
        { "threads", t->threads, d->threads } };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (f[i].rec != f[i].dec)
            return mr_reader_fail(r, 0, "chunk %u: end record totals do not match the trace "
                                  "(%s: recorded %llu, decoded %llu)", r->frame.seq, f[i].name,
                                  (unsigned long long)f[i].rec, (unsigned long long)f[i].dec);
    return 0;
}

/* The next address delta from [*dq, *dqend), a caller's copy of r->dp and
 * r->dend kept in registers, unpacking the next group when it is used up.
 * 0, or -1 corrupt. The caller stores *dq back into r->dp. */
static inline int take_delta(mr_reader *r, const uint64_t **dq, const uint64_t **dqend,
                             uint64_t *delta)
{
    if (MR_UNLIKELY(*dq == *dqend)) {
        if (mr_deltas_refill(r))
            return -1;
        *dq = r->dp;
        *dqend = r->dend;
    }
    *delta = *(*dq)++;
    return 0;
}

/* Decodes one block execution; delivers a synthesised call/return first
 * when this thread's previous block left through a call/return exit. */
static inline int decode_exec(mr_reader *r, mr_event *ev, uint8_t op)
{
    mr_bstate *bs;
    mr_bstate **slot = r->prev_slot;
    int bad = 0;
    if (op == MR_OP_EXEC_PRED) {
        if (MR_UNLIKELY(!slot))
            return CORRUPT(r, "predicted block without a previous one");
        bs = *slot;   /* already the successor: nothing to store */
        if (MR_UNLIKELY(!bs))
            return CORRUPT(r, "predicted block without a prediction");
    } else {
        const uint8_t *p = r->sp[MR_S_BLOCK];
        if (MR_UNLIKELY(p >= r->se[MR_S_BLOCK]))
            return CORRUPT(r, "block stream exhausted");
        uint64_t v = mr_get_varint(&p, &bad);
        if (MR_UNLIKELY(bad || p > r->se[MR_S_BLOCK]))
            return CORRUPT(r, "bad block id");
        r->sp[MR_S_BLOCK] = p;
        bs = v < r->blocks_cap ? r->blocks[v] : NULL;
        if (MR_UNLIKELY(!bs))
            return mr_reader_fail(r, 0, "chunk %u: execution of undefined block %llu",
                                  r->frame.seq, (unsigned long long)v);
        if (slot)
            *slot = bs;   /* the prediction for the next time */
    }
    mr_bstate_touch(bs, r->epoch);
    bs->quick_epoch = bs->xq ? r->epoch : 0;   /* no guarded access */
    uint32_t exit = 0;
    if (bs->nexits > 1) {
        const uint8_t *p = r->sp[MR_S_EXIT];
        if (MR_UNLIKELY(p >= r->se[MR_S_EXIT]))
            return CORRUPT(r, "exit stream exhausted");
        uint64_t v = mr_get_varint(&p, &bad);
        if (MR_UNLIKELY(bad || p > r->se[MR_S_EXIT] || v >= bs->nexits))
            return CORRUPT(r, "bad exit index");
        r->sp[MR_S_EXIT] = p;
        exit = (uint32_t)v;
    }
    const mr_exit_def *ex = &bs->exits[exit];
    uint32_t n = ex->naccesses;
    const uint8_t *fl = r->sp[MR_S_FLAG];
    if (MR_UNLIKELY((size_t)(r->se[MR_S_FLAG] - fl) < n))
        return CORRUPT(r, "flag stream exhausted");
    const uint64_t *dq = r->dp, *dqend = r->dend;
    mr_pred *pred = bs->pred;
    mr_access *tmpl = bs->tmpl;
    /* Without guarded accesses nothing is dropped: the block's own template
     * array is the output, only addresses (and values) are written. */
    mr_access *out = bs->has_guard ? r->acc : tmpl;
    uint32_t nout;
    if (bs->simple) {
        /* The hot loop: one flag byte per access, a delta per miss. */
        const uint8_t *f = fl, *fend = fl + n;
        mr_pred *p = pred;
        mr_access *o = out;
        /* The template's addr is the previous address (simple blocks have
         * no guard, so it is always the output): one store per access. */
        for (; f < fend; f++, p++, o++) {
            if (*f == MR_F_HIT) {
                o->addr += p->stride;
            } else {
                uint64_t delta;
                if (MR_UNLIKELY(*f != MR_F_MISS))
                    return CORRUPT(r, "bad address flag");
                if (MR_UNLIKELY(take_delta(r, &dq, &dqend, &delta)))
                    return -1;
                p->stride = delta;
                o->addr += delta;
            }
        }
        nout = n;
    } else {
        const uint8_t *vp = r->sp[MR_S_VALUE], *vend = r->se[MR_S_VALUE];
        uint64_t counts[4] = { 0 }, last = r->last_value;
        int vhit = bs->has_value;
        nout = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint8_t f = fl[i], af = bs->aflags[i];
            if (f == MR_F_HIT) {
                pred[i].addr += pred[i].stride;
            } else if (f == MR_F_MISS) {
                uint64_t delta;
                if (MR_UNLIKELY(take_delta(r, &dq, &dqend, &delta)))
                    return -1;
                pred[i].stride = delta;
                pred[i].addr += delta;
            } else if (f == MR_F_VHIT && vhit) {
                pred[i].stride = last + pred[i].voff - pred[i].addr;
                pred[i].addr += pred[i].stride;
            } else if (f == MR_F_GUARD && (af & MR_ACC_GUARDED)) {
                continue;   /* guard false: the access did not happen */
            } else {
                return CORRUPT(r, "bad address flag");
            }
            pred[i].voff = pred[i].addr - last;
            if (out != tmpl)
                out[nout] = tmpl[i];
            out[nout].addr = pred[i].addr;
            if (af & MR_ACC_VALUE) {
                if (MR_UNLIKELY(vp >= vend))
                    return CORRUPT(r, "value stream exhausted");
                pred[i].value += (uint64_t)mr_unzigzag(mr_get_varint(&vp, &bad));
                out[nout].value = last = pred[i].value;
            }
            counts[tmpl[i].kind]++;
            nout++;
        }
        r->last_value = last;
        if (MR_UNLIKELY(bad || vp > vend))
            return CORRUPT(r, "value stream overrun");
        r->sp[MR_S_VALUE] = vp;
        if (!bs->fold_accesses) {   /* guarded: only what happened counts */
            r->tot.loads += counts[MR_LOAD];
            r->tot.stores += counts[MR_STORE];
            r->tot.modifies += counts[MR_MODIFY];
        }
    }
    r->sp[MR_S_FLAG] = fl + n;
    r->dp = dq;

    return mr_deliver_exec(r, ev, bs, exit, out, nout, 1);
}

/* Decodes a record other than an execution from the MISC stream. Kept out
 * of line so the execution path of mr_next stays small. */
static __attribute__((noinline)) int decode_other(mr_reader *r, mr_event *ev, uint8_t op)
{
    mr_cursor c = { r->sp[MR_S_MISC], r->se[MR_S_MISC], 0 };
    memset(ev, 0, sizeof *ev);
    ev->tid = r->cur_tid;
    ev->time = r->time;
    switch (op) {
    case MR_OP_SWITCH: {
        uint32_t tid = mr_cur_u32(&c, UINT32_MAX);
        if (c.bad)
            break;
        r->cur_tid = tid;
        r->prev_slot = NULL;
        if (!(r->cur = mr_reader_thread(r, tid, 1)))
            return -1;
        ev->kind = MR_EV_THREAD;
        ev->tid = tid;
        ev->u.thread.op = MR_THREAD_SWITCH;
        ev->u.thread.tid = tid;
        break;
    }
    case MR_OP_CREATE:
        ev->kind = MR_EV_THREAD;
        ev->u.thread.op = MR_THREAD_CREATE;
        ev->u.thread.parent = mr_cur_u32(&c, UINT32_MAX);
        ev->u.thread.tid = mr_cur_u32(&c, UINT32_MAX);
        if (!c.bad && (!mr_reader_thread(r, ev->u.thread.parent, 1) ||
                       !mr_reader_thread(r, ev->u.thread.tid, 1)))
            return -1;
        break;
    case MR_OP_TEXIT:
        ev->kind = MR_EV_THREAD;
        ev->u.thread.op = MR_THREAD_EXIT;
        ev->u.thread.tid = mr_cur_u32(&c, UINT32_MAX);
        if (!c.bad && !mr_reader_thread(r, ev->u.thread.tid, 1))
            return -1;
        break;
    case MR_OP_HEAP: {
        mr_heap *h = &ev->u.heap.h;
        ev->kind = MR_EV_HEAP;
        /* mappings came with version 3 */
        h->op = (uint8_t)mr_cur_u32(&c, r->version >= 3 ? MR_MUNMAP : MR_DELETE_ARRAY);
        h->addr = mr_cur_varint(&c);
        h->size = mr_cur_varint(&c);
        h->count = mr_cur_varint(&c);
        h->old_addr = mr_cur_varint(&c);
        h->stack = mr_cur_u32(&c, UINT32_MAX);
        if (c.bad || h->op < MR_MALLOC)
            return CORRUPT(r, "bad heap record");
        if (h->stack && !(ev->u.heap.stack = mr_reader_stack(r, h->stack)))
            return mr_reader_fail(r, 0, "chunk %u: heap event names undefined stack %u",
                                  r->frame.seq, h->stack);
        if (h->op == MR_REALLOC)
            r->tot.reallocs++;
        else if (h->op == MR_FREE || h->op == MR_DELETE || h->op == MR_DELETE_ARRAY)
            r->tot.frees++;
        else if (h->op != MR_MMAP && h->op != MR_MUNMAP)
            r->tot.allocs++;
        break;
    }
    case MR_OP_MARK: {
        uint32_t len = mr_cur_u32(&c, MR_MAX_STRING);
        if (c.bad || len > (size_t)(c.end - c.p))
            return CORRUPT(r, "bad mark record");
        char *s = mr_arena_alloc(&r->arena, len + 1);
        if (!s)
            return mr_reader_fail(r, 0, "out of memory");
        memcpy(s, c.p, len);
        s[len] = 0;
        c.p += len;
        ev->kind = MR_EV_MARK;
        ev->u.mark = s;
        break;
    }
    case MR_OP_COLLECT_OFF:
    case MR_OP_COLLECT_ON:
        ev->kind = MR_EV_COLLECT;
        ev->u.collect_on = op == MR_OP_COLLECT_ON;
        break;
    case MR_OP_END: {
        mr_end *e = &r->end;
        mr_totals *t = &e->totals;
        e->reason = (uint8_t)mr_cur_u32(&c, UINT8_MAX);
        e->status = (int32_t)mr_cur_svarint(&c);
        e->signal = (int32_t)mr_cur_svarint(&c);
        uint64_t *fields[] = { &t->instructions, &t->blocks, &t->loads, &t->stores,
                               &t->modifies, &t->calls, &t->returns, &t->allocs,
                               &t->frees, &t->reallocs };
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
            *fields[i] = mr_cur_varint(&c);
        t->threads = mr_cur_u32(&c, UINT32_MAX);
        if (c.bad || r->sp[MR_S_CTL] != r->se[MR_S_CTL])   /* records after END */
            return CORRUPT(r, "bad end record");
        if (r->from_start && check_totals(r, t))
            return -1;
        r->end_seen = 1;
        ev->kind = MR_EV_END;
        ev->u.end = e;
        break;
    }
    default:
        return mr_reader_fail(r, 0, "chunk %u: unknown record kind %u", r->frame.seq, op);
    }
    if (c.bad)
        return CORRUPT(r, "bad record operands");
    r->sp[MR_S_MISC] = c.p;
    return 1;
}

static int next_event(mr_reader *r, mr_event *ev)
{
    /* CTL holds exactly nrecords bytes (start_events): its end is the
     * chunk's end, no separate counter to decrement. */
    if (MR_UNLIKELY(r->sp[MR_S_CTL] == r->se[MR_S_CTL])) {
        /* Chunk finished: every stream must be used up exactly. */
        for (int i = 0; i < MR_NSTREAMS; i++)
            if (r->sp[i] != r->se[i])
                return CORRUPT(r, "records and streams disagree");
        if (r->dp != r->dend)   /* deltas of the last group left over */
            return CORRUPT(r, "records and streams disagree");
        r->in_chunk = 0;
        return 0;
    }
    uint8_t op = *r->sp[MR_S_CTL]++;
    if (MR_LIKELY(op <= MR_OP_EXEC))
        return decode_exec(r, ev, op);
    if (op == MR_OP_EXEC_HITS)
        return mr_hits_decode(r, ev);
    return decode_other(r, ev, op);
}

/* next_quick's accesses of a block with value accesses and no guarded
 * one: decode_exec's general loop without guards, writing straight into
 * the template. Out of line: the simple blocks' path keeps its registers.
 * 0, or -1 corrupt. */
static __attribute__((noinline)) int quick_values(mr_reader *r, mr_bstate *bs,
                                                  const uint8_t *f, uint32_t n)
{
    const uint64_t *dq = r->dp, *dqend = r->dend;
    const uint8_t *vp = r->sp[MR_S_VALUE], *vend = r->se[MR_S_VALUE];
    uint64_t last = r->last_value;
    mr_pred *pred = bs->pred;
    mr_access *o = bs->tmpl;
    const uint8_t *af = bs->aflags;
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (f[i] == MR_F_HIT) {
            pred[i].addr += pred[i].stride;
        } else if (f[i] == MR_F_MISS) {
            uint64_t delta;
            if (MR_UNLIKELY(take_delta(r, &dq, &dqend, &delta)))
                return -1;
            pred[i].stride = delta;
            pred[i].addr += delta;
        } else if (f[i] == MR_F_VHIT) {   /* allowed: the block has a value access */
            pred[i].stride = last + pred[i].voff - pred[i].addr;
            pred[i].addr += pred[i].stride;
        } else {
            return CORRUPT(r, "bad address flag");
        }
        pred[i].voff = pred[i].addr - last;
        o[i].addr = pred[i].addr;
        if (af[i] & MR_ACC_VALUE) {
            if (MR_UNLIKELY(vp >= vend))
                return CORRUPT(r, "value stream exhausted");
            pred[i].value += (uint64_t)mr_unzigzag(mr_get_varint(&vp, &bad));
            o[i].value = last = pred[i].value;
        }
    }
    r->last_value = last;
    if (MR_UNLIKELY(bad || vp > vend))
        return CORRUPT(r, "value stream overrun");
    r->sp[MR_S_VALUE] = vp;
    r->dp = dq;
    return 0;
}

/* The quick path of mr_next: the predicted block again, one without
 * guarded accesses already seen in this chunk, its thread's last jump
 * boring: none of decode_exec's branches for guards, values, calls or
 * threads. 2 when it does not apply (then nothing was consumed). */
static inline int next_quick(mr_reader *r, mr_event *ev)
{
    const uint8_t *ctl = r->sp[MR_S_CTL];
    if (MR_UNLIKELY(ctl == r->se[MR_S_CTL] || *ctl != MR_OP_EXEC_PRED))
        return 2;
    mr_bstate *bs = *r->prev_slot;   /* r->fast: prev_slot is set */
    if (MR_UNLIKELY(!bs || bs->quick_epoch != r->epoch))
        return 2;
    uint32_t exit = 0;
    if (bs->nexits > 1) {
        /* One-byte exit indexes only; anything else is decode_exec's. */
        const uint8_t *xp = r->sp[MR_S_EXIT];
        if (MR_UNLIKELY(xp >= r->se[MR_S_EXIT] || *xp >= bs->nexits || *xp >= 0x80))
            return 2;
        exit = *xp;
    }
    mr_exit_quick *xq = &bs->xq[exit];
    uint32_t n = xq->exec.naccesses;
    const uint8_t *f = r->sp[MR_S_FLAG];
    if (MR_UNLIKELY((size_t)(r->se[MR_S_FLAG] - f) < n))
        return 2;
    /* Consumed from here on: nothing below returns 2. The bookkeeping
     * comes before the accesses (after a corrupt access the reader has
     * failed for good, so it does not matter), leaving the access loop
     * few live values: no registers to save and restore. */
    r->sp[MR_S_CTL] = ctl + 1;
    r->sp[MR_S_EXIT] += bs->nexits > 1;
    r->sp[MR_S_FLAG] = f + n;
    uint64_t time = r->time;
    ev->kind = MR_EV_EXEC;
    ev->tid = r->cur_tid;
    ev->time = time;
    ev->u.exec = xq->exec;   /* def, exit, ninstrs, naccesses, accesses */
    r->time = time + xq->exec.ninstrs;
    if (MR_UNLIKELY(xq->jump)) {   /* the next execution delivers a call/return */
        r->cur->jump = xq->jump;
        r->cur->from = bs->exit_from[exit];
        r->fast = 0;
    }
    xq->execs++;
    bs->last_exit = exit;
    /* Computed, not loaded: a load here would lengthen the chain of
     * dependent loads from one execution to the next. */
    r->prev_slot = MR_LIKELY(bs->nexits <= MR_SUCC_INLINE) ? &bs->succ_inline[exit]
                                                           : &bs->succ_bs[exit];
    if (bs->has_value)
        return quick_values(r, bs, f, n) < 0 ? -1 : 1;
    const uint64_t *dq = r->dp, *dqend = r->dend;
    mr_pred *p = bs->pred;
    mr_access *o = bs->tmpl;
    for (uint32_t i = 0; i < n; i++) {   /* as decode_exec's simple loop */
        if (f[i] == MR_F_HIT) {
            o[i].addr += p[i].stride;
        } else {
            uint64_t delta;
            if (MR_UNLIKELY(f[i] != MR_F_MISS))
                return CORRUPT(r, "bad address flag");
            if (MR_UNLIKELY(take_delta(r, &dq, &dqend, &delta)))
                return -1;
            p[i].stride = delta;
            o[i].addr += delta;
        }
    }
    r->dp = dq;
    return 1;
}

/* next_quick_hit's accesses of a block with value accesses (and no
 * guarded one): every address moves by its stride, each value comes from
 * the VALUE stream, as repeat_step (hits.c) does, written straight into
 * the template. Out of line, as quick_values. 0, or -1 corrupt. */
static __attribute__((noinline)) int quick_hit_values(mr_reader *r, mr_bstate *bs, uint32_t n)
{
    const uint8_t *vp = r->sp[MR_S_VALUE], *vend = r->se[MR_S_VALUE];
    uint64_t last = r->last_value;
    mr_pred *pred = bs->pred;
    mr_access *o = bs->tmpl;
    const uint8_t *af = bs->aflags;
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        pred[i].addr += pred[i].stride;
        pred[i].voff = pred[i].addr - last;
        o[i].addr = pred[i].addr;
        if (af[i] & MR_ACC_VALUE) {
            if (MR_UNLIKELY(vp >= vend))
                return CORRUPT(r, "value stream exhausted");
            pred[i].value += (uint64_t)mr_unzigzag(mr_get_varint(&vp, &bad));
            o[i].value = last = pred[i].value;
        }
    }
    if (MR_UNLIKELY(bad || vp > vend))
        return CORRUPT(r, "value stream overrun");
    r->sp[MR_S_VALUE] = vp;
    r->last_value = last;
    return 0;
}

/* The quick path inside an EXEC_HITS run when not batching: the predicted
 * block again by the exit it took last time, one without guarded accesses
 * whose exit is boring. No byte is read but values: every address moves
 * by its stride (mr_hits_next's general case). 2 when it does not apply
 * (then nothing was consumed). */
static inline int next_quick_hit(mr_reader *r, mr_event *ev)
{
    mr_bstate *bs = *r->prev_slot;   /* r->fast: prev_slot is set */
    if (MR_UNLIKELY(!bs || bs->quick_epoch != r->epoch))
        return 2;
    uint32_t exit = bs->last_exit;
    if (MR_UNLIKELY(exit >= bs->nexits || bs->xq[exit].jump))
        return 2;
    mr_exit_quick *xq = &bs->xq[exit];
    uint32_t n = xq->exec.naccesses;
    r->chunk_hits += n + 1ull;   /* as add_work */
    if (MR_UNLIKELY(r->chunk_hits > MR_MAX_CHUNK_HITS))
        return CORRUPT(r, "too many repeated executions");
    /* After the run's last execution the next record is read. */
    r->fast = --r->rep_left ? MR_FAST_HIT : MR_FAST_EXEC;
    uint64_t time = r->time;
    ev->kind = MR_EV_EXEC;
    ev->tid = r->cur_tid;
    ev->time = time;
    ev->u.exec = xq->exec;
    r->time = time + xq->exec.ninstrs;
    xq->execs++;
    r->prev_slot = MR_LIKELY(bs->nexits <= MR_SUCC_INLINE) ? &bs->succ_inline[exit]
                                                           : &bs->succ_bs[exit];
    if (!bs->simple)   /* values (no guard: quick_epoch says so) */
        return quick_hit_values(r, bs, n) < 0 ? -1 : 1;
    mr_pred *p = bs->pred;
    mr_access *o = bs->tmpl;
    for (uint32_t i = 0; i < n; i++)
        o[i].addr += p[i].stride;
    return 1;
}

/* Everything but the quick paths; leaves r->fast set only where one may
 * follow (deliver_exec and the held execution set it). */
static __attribute__((noinline)) int next_slow(mr_reader *r, mr_event *ev)
{
    if (r->held) {
        *ev = r->held_ev;
        r->held = 0;
        /* as deliver_exec left it */
        r->fast = r->cur->jump == MR_JUMP_BORING ? mr_fast_mode(r) : MR_FAST_NONE;
        return 1;
    }
    r->fast = 0;
    if (r->failed)
        return -1;
    if (r->group_len)
        return mr_hits_group_next(r, ev);
    if (r->rep_left)
        return mr_hits_next(r, ev);
    if (r->done)
        return 0;
    for (;;) {
        if (MR_LIKELY(r->in_chunk)) {
            int rc = MR_LIKELY(r->frame.kind == MR_CHUNK_EVENTS) ? next_event(r, ev)
                                                                 : mr_reader_next_def(r, ev);
            if (rc)
                return rc;
            continue;
        }
        int rc = mr_reader_load_chunk(r);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            r->done = 1;
            return 0;
        }
    }
}

void mr_reader_batch(mr_reader *r, int mode)
{
    r->batching = mode == MR_BATCH_REPEATS || mode == MR_BATCH_PER_INSTRUCTION ? mode : 0;
}

int mr_next(mr_reader *r, mr_event *ev)
{
    if (MR_LIKELY(r->fast)) {
        int rc = r->fast == MR_FAST_EXEC ? next_quick(r, ev) : next_quick_hit(r, ev);
        if (MR_LIKELY(rc != 2))
            return rc;
    }
    return next_slow(r, ev);
}
