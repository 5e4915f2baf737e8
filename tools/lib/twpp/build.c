/*
 * build.c: steps 1-2 of TWPP (see twpp.h): executions cut into per-call
 * path traces on a per-thread call stack, each closed trace hash-consed
 * among its function's unique traces, the DCG kept in preorder; then
 * step 3 (compact.c) on every unique trace, deduplicated again.
 */
#include "twpp/twpp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/symbolize.h"
#include "base/u64map.h"
#include "twpp/bytes.h"

/* A unique raw trace (step 2), kept until twpp_finish compacts it, in
 * the coded form of its call's frame (see frame): zstd -19 of 200 KB kept
 * 48 M blocks of unique traces, 192 MB as 32-bit symbols. */
typedef struct raw_trace {
    uint32_t fn;
    uint32_t n;                 /* blocks */
    uint8_t *bytes;             /* the coded blocks (malloc'd, exactly len) */
    size_t len;
    uint64_t calls;
    uint32_t next;              /* next trace with the same hash, +1 */
} raw_trace;

/* An open call: its function, its DCG node and its trace so far. The
 * trace is coded as it grows, each symbol as the svarint difference from
 * the one before (0 before the first): symbols are numbered by first
 * execution, so neighbours are close and most take one byte, not four
 * (a long-running call's trace is held whole until it returns). Equal
 * traces have equal codes, so duplicates are found on the bytes. */
typedef struct frame {
    uint32_t fn;
    uint32_t fc;                /* its number among fn's calls, from 1 */
    uint64_t serial;            /* its number among the thread's calls, from 1 */
    size_t undo;                /* the thread's undo log as it opened */
    uint64_t node;
    twpp_buf code;              /* the coded trace */
    uint32_t n;                 /* blocks so far */
    uint32_t prev;              /* the last symbol (0 before the first) */
} frame;

/* A symbol's count overwritten by a call, put back when that call ends. */
typedef struct undo {
    uint32_t symbol, count;
    uint64_t owner;
} undo;

/* One thread: the open calls and the DCG in preorder. BC counting
 * (twpp_exec_where): count[s] is s's executions in call owner[s] (a call
 * serial); a call that takes over a symbol logs the old pair, and its
 * return restores them, so a caller's counts survive its callees. */
typedef struct bthread {
    uint64_t *owner;
    uint32_t *count;
    size_t owner_cap, count_cap;
    undo *undo;
    size_t undo_cap, nundo;
    uint64_t serials;
    uint32_t tid;
    frame *stack;
    size_t stack_cap;
    uint32_t depth;
    int pending;                /* the next execution opens a call */
    uint32_t *node_fn, *node_path;
    size_t node_cap, path_cap;
    uint64_t nnodes;
} bthread;

/* A function while building: its entry and its call count. */
typedef struct bfunction {
    uint64_t entry;
    uint64_t calls;
    uint64_t raw_blocks;
} bfunction;

struct twpp_builder {
    bthread *threads;
    size_t threads_cap;
    uint32_t nthreads, last;
    u64map symbol_of;           /* block id << 32 | exit -> symbol + 1 */
    twpp_symbol *symbols;
    size_t symbols_cap;
    uint32_t nsymbols;
    const mr_block_def *last_def;   /* a one-entry cache before the map */
    uint32_t last_exit, last_symbol;
    u64map function_of;         /* entry address -> function + 1 */
    bfunction *functions;
    size_t functions_cap;
    uint32_t nfunctions;
    u64map trace_of;            /* hash of (function, trace) -> raw + 1 */
    raw_trace *raws;
    size_t raws_cap;
    uint32_t nraws;
    uint64_t length;
};

twpp_builder *twpp_builder_new(void)
{
    return calloc(1, sizeof(twpp_builder));
}

static void free_thread(bthread *t)
{
    for (size_t i = 0; i < t->stack_cap; i++)
        free(t->stack[i].code.p);
    free(t->stack);
    free(t->node_fn);
    free(t->node_path);
    free(t->owner);
    free(t->count);
    free(t->undo);
}

void twpp_builder_free(twpp_builder *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->nthreads; i++)
        free_thread(&b->threads[i]);
    free(b->threads);
    for (uint32_t i = 0; i < b->nsymbols; i++)
        free(b->symbols[i].where);
    free(b->symbols);
    u64map_free(&b->symbol_of);
    u64map_free(&b->function_of);
    u64map_free(&b->trace_of);
    free(b->functions);
    for (uint32_t i = 0; i < b->nraws; i++)
        free(b->raws[i].bytes);
    free(b->raws);
    free(b);
}

uint64_t twpp_builder_length(const twpp_builder *b) { return b->length; }

/* The thread, created at its first execution; NULL: no memory. */
static bthread *thread_of(twpp_builder *b, uint32_t tid)
{
    if (b->nthreads && b->threads[b->last].tid == tid)
        return &b->threads[b->last];
    for (uint32_t i = 0; i < b->nthreads; i++)
        if (b->threads[i].tid == tid)
            return &b->threads[b->last = i];
    if (ARRAY_FIT(b->threads, b->threads_cap, b->nthreads + 1) < 0)
        return NULL;
    bthread *t = &b->threads[b->last = b->nthreads++];
    t->tid = tid;
    t->pending = 1;             /* the first execution opens the root call */
    return t;
}

/* The symbol of (def, exit), numbering it at its first execution;
 * UINT32_MAX when out of memory. */
static uint32_t symbol_of(twpp_builder *b, const mr_block_def *def, uint32_t exit)
{
    if (def == b->last_def && exit == b->last_exit)
        return b->last_symbol;
    int added;
    void **slot = u64map_slot_of(&b->symbol_of, (uint64_t)def->id << 32 | exit, &added);
    if (!slot)
        return UINT32_MAX;
    if (added) {
        if (ARRAY_FIT(b->symbols, b->symbols_cap, b->nsymbols + 1) < 0)
            return UINT32_MAX;
        int known = exit < def->nexits;
        b->symbols[b->nsymbols] = (twpp_symbol){
            .addr = def->addr, .block = def->id, .exit = exit,
            .ninstrs = known ? def->exits[exit].ninstrs : def->ninstrs,
            .jump = known ? def->exits[exit].jump : MR_JUMP_BORING };
        *slot = (void *)(uintptr_t)++b->nsymbols;
    }
    b->last_def = def;
    b->last_exit = exit;
    b->last_symbol = (uint32_t)(uintptr_t)*slot - 1;
    return b->last_symbol;
}

/* The function entered at addr; UINT32_MAX when out of memory. */
static uint32_t function_of(twpp_builder *b, uint64_t addr)
{
    int added;
    void **slot = u64map_slot_of(&b->function_of, addr, &added);
    if (!slot)
        return UINT32_MAX;
    if (added) {
        if (ARRAY_FIT(b->functions, b->functions_cap, b->nfunctions + 1) < 0)
            return UINT32_MAX;
        b->functions[b->nfunctions] = (bfunction){ .entry = addr };
        *slot = (void *)(uintptr_t)++b->nfunctions;
    }
    return (uint32_t)(uintptr_t)*slot - 1;
}

/* Opens a call of the function entered at addr: a frame and a DCG node. */
static int open_call(twpp_builder *b, bthread *t, uint64_t addr)
{
    uint32_t fn = function_of(b, addr);
    if (fn == UINT32_MAX || ARRAY_FIT(t->stack, t->stack_cap, t->depth + 1) < 0 ||
        ARRAY_FIT(t->node_fn, t->node_cap, t->nnodes + 1) < 0 ||
        ARRAY_FIT(t->node_path, t->path_cap, t->nnodes + 1) < 0)
        return -1;
    frame *f = &t->stack[t->depth++];
    f->fn = fn;
    f->fc = (uint32_t)(b->functions[fn].calls + 1);
    f->serial = ++t->serials;
    f->undo = t->nundo;
    f->node = t->nnodes;
    f->n = 0;
    f->code.n = 0;
    f->prev = 0;
    t->node_fn[t->nnodes++] = fn;
    b->functions[fn].calls++;
    return 0;
}

/* 64-bit FNV-1a over the function and the trace. */
static uint64_t trace_hash(uint32_t fn, const uint32_t *v, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ fn;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h ^ n;
}

/* The same over a frame's coded trace (see frame). */
static uint64_t coded_hash(uint32_t fn, const uint8_t *p, size_t len, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ fn;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h ^ n;
}

/* The unique raw trace equal to frame f's, added if new (taking f's
 * buffer, shrunk to the trace); its index, or UINT32_MAX when out of
 * memory. */
static uint32_t intern_raw(twpp_builder *b, frame *f)
{
    int added;
    twpp_buf *c = &f->code;
    void **slot = u64map_slot_of(&b->trace_of, coded_hash(f->fn, c->p, c->n, f->n), &added);
    if (!slot)
        return UINT32_MAX;
    for (uint32_t r = (uint32_t)(uintptr_t)*slot; r; r = b->raws[r - 1].next) {
        raw_trace *t = &b->raws[r - 1];
        if (t->fn == f->fn && t->n == f->n && t->len == c->n && !memcmp(t->bytes, c->p, c->n))
            return r - 1;
    }
    if (ARRAY_FIT(b->raws, b->raws_cap, b->nraws + 1) < 0)
        return UINT32_MAX;
    uint8_t *kept = c->n ? realloc(c->p, c->n) : NULL;
    if (c->n && !kept)
        return UINT32_MAX;
    if (!c->n)
        free(c->p);
    b->raws[b->nraws] = (raw_trace){ .fn = f->fn, .n = f->n, .bytes = kept, .len = c->n,
                                     .next = (uint32_t)(uintptr_t)*slot };
    *c = (twpp_buf){ 0 };       /* the frame's next call starts a buffer */
    *slot = (void *)(uintptr_t)++b->nraws;
    return b->nraws - 1;
}

/* A buffer this large is not kept for the next call at its depth: one
 * long-running call's trace would hold its memory to the end. */
#define FRAME_KEEP_BYTES (1u << 20)

/* Closes the innermost call: its trace into the unique traces (step 2),
 * the unique trace's index into its DCG node (fixed in twpp_finish). */
static int close_call(twpp_builder *b, bthread *t)
{
    frame *f = &t->stack[--t->depth];
    while (t->nundo > f->undo) {    /* the caller's BC counts back */
        undo *u = &t->undo[--t->nundo];
        t->owner[u->symbol] = u->owner;
        t->count[u->symbol] = u->count;
    }
    uint32_t r = intern_raw(b, f);
    if (r == UINT32_MAX)
        return -1;
    if (f->code.cap > FRAME_KEEP_BYTES) {
        free(f->code.p);
        f->code = (twpp_buf){ 0 };
    }
    b->raws[r].calls++;
    b->functions[f->fn].raw_blocks += f->n;
    t->node_path[f->node] = r;
    return 0;
}

/* The instance of symbol s in the thread's innermost call (BC). */
static int count_instance(bthread *t, uint32_t s, uint32_t *bc)
{
    size_t had = t->owner_cap;
    if (s >= had && (ARRAY_FIT(t->owner, t->owner_cap, (size_t)s + 1) < 0 ||
                     ARRAY_FIT(t->count, t->count_cap, (size_t)s + 1) < 0))
        return -1;
    for (size_t i = had; i < t->owner_cap; i++)   /* new symbols: no call's (serials start at 1) */
        t->owner[i] = 0;
    const frame *f = &t->stack[t->depth - 1];
    if (t->owner[s] != f->serial) {
        if (ARRAY_FIT(t->undo, t->undo_cap, t->nundo + 1) < 0)
            return -1;
        t->undo[t->nundo++] = (undo){ s, t->count[s], t->owner[s] };
        t->owner[s] = f->serial;
        t->count[s] = 0;
    }
    *bc = ++t->count[s];
    return 0;
}

int twpp_exec(twpp_builder *b, uint32_t tid, const mr_block_def *def, uint32_t exit)
{
    return twpp_exec_where(b, tid, def, exit, NULL);
}

int twpp_exec_where(twpp_builder *b, uint32_t tid, const mr_block_def *def, uint32_t exit,
                    twpp_where *w)
{
    bthread *t = thread_of(b, tid);
    uint32_t s = t ? symbol_of(b, def, exit) : UINT32_MAX;
    if (s == UINT32_MAX)
        return -1;
    if (t->pending) {
        if (open_call(b, t, def->addr) < 0)
            return -1;
        t->pending = 0;
    }
    frame *f = &t->stack[t->depth - 1];
    buf_sv(&f->code, (int64_t)s - f->prev);
    if (f->code.err)
        return -1;
    f->prev = s;
    f->n++;
    b->length++;
    if (w) {
        *w = (twpp_where){ .fn = f->fn, .fc = f->fc, .symbol = s };
        if (count_instance(t, s, &w->bc) < 0)
            return -1;
    }
    switch (b->symbols[s].jump) {
    case MR_JUMP_CALL:
        t->pending = 1;
        break;
    case MR_JUMP_RET:
        if (close_call(b, t) < 0)
            return -1;
        t->pending = t->depth == 0;   /* an unmatched return starts a new root */
        break;
    }
    return 0;
}

/* Interns seq into function fn's list (traces or dicts) through map,
 * taking ownership of seq->v; its index, or UINT32_MAX when out of memory.
 * The map is shared by all functions: a slot holds fn << 32 | index, + 1;
 * a slot of another function or of different contents probes the next key. */
static uint32_t intern_seq(u64map *map, twpp_seq **list, uint32_t *n, size_t *cap,
                           uint32_t fn, twpp_seq *seq)
{
    for (uint64_t key = trace_hash(fn, seq->v, seq->n);; key++) {
        int added;
        void **slot = u64map_slot_of(map, key, &added);
        if (!slot)
            return UINT32_MAX;
        if (!added) {
            uint64_t held = (uint64_t)(uintptr_t)*slot - 1;
            if (held >> 32 != fn)
                continue;
            twpp_seq *old = &(*list)[(uint32_t)held];
            if (old->n == seq->n && !memcmp(old->v, seq->v, seq->n * sizeof *seq->v)) {
                free(seq->v);
                return (uint32_t)held;
            }
            continue;
        }
        if (ARRAY_FIT(*list, *cap, *n + 1) < 0)
            return UINT32_MAX;
        (*list)[*n] = *seq;
        *slot = (void *)(uintptr_t)(((uint64_t)fn << 32 | *n) + 1);
        return (*n)++;
    }
}

/* The blocks of a raw trace, out of its coded form (see frame). */
static void decode_raw(const raw_trace *raw, uint32_t *out)
{
    twpp_cur c = { raw->bytes, raw->bytes + raw->len, 0 };
    uint32_t prev = 0;
    for (uint32_t i = 0; i < raw->n; i++)
        out[i] = prev += (uint32_t)cur_sv(&c);
}

/* Step 3 for every unique raw trace: compacted, and its (trace, dict)
 * pair as the function's next path. raw_path[r] gets r's path index. */
static int compact_all(twpp_builder *b, twpp_model *m, uint32_t *raw_path)
{
    u64map traces = {0}, dicts = {0};
    size_t *path_cap = calloc(m->nfunctions + 1, sizeof *path_cap);
    size_t *trace_cap = calloc(m->nfunctions + 1, sizeof *trace_cap);
    size_t *dict_cap = calloc(m->nfunctions + 1, sizeof *dict_cap);
    uint32_t longest = 0;       /* one raw trace decoded at a time, sized exactly */
    for (uint32_t r = 0; r < b->nraws; r++)
        longest = b->raws[r].n > longest ? b->raws[r].n : longest;
    uint32_t *syms = malloc(((size_t)longest + 1) * sizeof *syms);
    int rc = path_cap && trace_cap && dict_cap && syms ? 0 : -1;
    for (uint32_t r = 0; r < b->nraws && rc == 0; r++) {
        raw_trace *raw = &b->raws[r];
        twpp_function *f = &m->functions[raw->fn];
        twpp_seq t, d;
        rc = -1;
        decode_raw(raw, syms);
        free(raw->bytes);       /* its memory goes to the compacted form */
        raw->bytes = NULL;
        if (twpp_compact(syms, raw->n, m->nsymbols, &t, &d) < 0)
            break;
        /* the two lists are told apart in the shared maps by the key's fn */
        uint32_t ti = intern_seq(&traces, &f->traces, &f->ntraces, &trace_cap[raw->fn], raw->fn, &t);
        uint32_t di = ti == UINT32_MAX ? UINT32_MAX
                    : intern_seq(&dicts, &f->dicts, &f->ndicts, &dict_cap[raw->fn], raw->fn, &d);
        if (di == UINT32_MAX) {
            free(ti == UINT32_MAX ? t.v : NULL);
            free(d.v);
            break;
        }
        if (ARRAY_FIT(f->paths, path_cap[raw->fn], f->npaths + 1) < 0)
            break;
        f->paths[f->npaths] = (twpp_path){ ti, di, raw->calls };
        f->raw_unique_blocks += raw->n;
        raw_path[r] = f->npaths++;
        rc = 0;
    }
    u64map_free(&traces);
    u64map_free(&dicts);
    free(syms);
    free(path_cap);
    free(trace_cap);
    free(dict_cap);
    return rc;
}

/* A function's name: the symbol of its entry, else where it is. */
static char *function_name(const mr_reader *r, uint64_t entry)
{
    char buf[SYM_BUF];
    if (!r) {
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)entry);
        return strdup(buf);
    }
    return strdup(sym_function(r, entry, buf, sizeof buf));
}

/* Symbols, functions and threads moved from the builder into m. */
static int take_over(twpp_builder *b, twpp_model *m, const mr_reader *r)
{
    char buf[SYM_BUF];
    m->symbols = b->symbols;
    m->nsymbols = b->nsymbols;
    b->symbols = NULL;
    b->nsymbols = 0;
    for (uint32_t s = 0; s < m->nsymbols && r; s++)
        if (!(m->symbols[s].where = strdup(sym_where(r, m->symbols[s].addr, buf, sizeof buf))))
            return -1;
    if (!(m->functions = calloc(b->nfunctions + 1, sizeof *m->functions)) ||
        !(m->threads = calloc(b->nthreads + 1, sizeof *m->threads)))
        return -1;
    m->nfunctions = b->nfunctions;
    for (uint32_t i = 0; i < b->nfunctions; i++) {
        twpp_function *f = &m->functions[i];
        f->entry = b->functions[i].entry;
        f->calls = b->functions[i].calls;
        f->raw_blocks = b->functions[i].raw_blocks;
        if (!(f->name = function_name(r, f->entry)))
            return -1;
    }
    m->nthreads = b->nthreads;
    for (uint32_t i = 0; i < b->nthreads; i++) {
        bthread *t = &b->threads[i];
        m->threads[i] = (twpp_thread){ t->tid, t->nnodes, t->node_fn, t->node_path };
        t->node_fn = t->node_path = NULL;
    }
    return 0;
}

twpp_model *twpp_finish(twpp_builder *b, const mr_reader *r)
{
    twpp_model *m = calloc(1, sizeof *m);
    uint32_t *raw_path = NULL;
    int rc = m ? 0 : -1;
    for (uint32_t i = 0; i < b->nthreads && rc == 0; i++)
        while (b->threads[i].depth && rc == 0)
            rc = close_call(b, &b->threads[i]);
    if (rc == 0)
        rc = take_over(b, m, r);
    if (rc == 0 && !(raw_path = calloc(b->nraws + 1, sizeof *raw_path)))
        rc = -1;
    if (rc == 0)
        rc = compact_all(b, m, raw_path);
    for (uint32_t i = 0; i < m->nthreads && rc == 0; i++)
        for (uint64_t k = 0; k < m->threads[i].nnodes; k++)
            m->threads[i].path[k] = raw_path[m->threads[i].path[k]];
    free(raw_path);
    twpp_builder_free(b);
    if (rc < 0) {
        twpp_model_free(m);
        return NULL;
    }
    return m;
}

void twpp_model_free(twpp_model *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nsymbols; i++)
        free(m->symbols[i].where);
    free(m->symbols);
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        twpp_function *f = &m->functions[i];
        free(f->name);
        free(f->paths);
        for (uint32_t k = 0; k < f->ntraces; k++)
            free(f->traces[k].v);
        for (uint32_t k = 0; k < f->ndicts; k++)
            free(f->dicts[k].v);
        free(f->traces);
        free(f->dicts);
    }
    free(m->functions);
    for (uint32_t i = 0; i < m->nthreads; i++) {
        free(m->threads[i].fn);
        free(m->threads[i].path);
    }
    free(m->threads);
    free(m);
}
