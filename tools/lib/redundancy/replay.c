/* replay.c: a .twpp file's control flow in order, with <FC, BC> (replay.h). */
#include "redundancy/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* An open call: its function, its FC, and what its BC counts displaced. */
typedef struct frame {
    uint32_t fn, fc;
    uint64_t serial;            /* this call's number in the walk */
    size_t undo;                /* the undo log's length when it opened */
} frame;

/* A BC count displaced by an inner call (restored at its return). */
typedef struct undo {
    uint32_t symbol, count;
    uint64_t owner;
} undo;

/* The replay's state, fed by twpp_walk. */
typedef struct walk {
    const uint8_t *marked;
    redund_replay_fn fn;
    void *ctx;
    int oom;                    /* out of memory in a callback */
    uint32_t *calls;            /* per function: calls so far (FC) */
    uint64_t *owner;            /* per symbol: the call whose count count[] holds */
    uint32_t *count;
    undo *undos;
    size_t nundo, undo_cap;
    frame *stack;
    size_t depth, cap;
    uint64_t serials;
} walk;

static int open_call(void *ctx, uint32_t fn, uint32_t path)
{
    (void)path;
    walk *w = ctx;
    if (ARRAY_FIT(w->stack, w->cap, w->depth + 1) < 0)
        return w->oom = -1;
    w->stack[w->depth++] = (frame){ fn, ++w->calls[fn], ++w->serials, w->nundo };
    return 0;
}

static int close_call(void *ctx)
{
    walk *w = ctx;
    frame *f = &w->stack[--w->depth];
    while (w->nundo > f->undo) {
        undo *u = &w->undos[--w->nundo];
        w->owner[u->symbol] = u->owner;
        w->count[u->symbol] = u->count;
    }
    return 0;
}

/* A block of the innermost call: its BC, counted per call. */
static int run_block(void *ctx, uint32_t s)
{
    walk *w = ctx;              /* only marked symbols come (walker.only) */
    const frame *f = &w->stack[w->depth - 1];
    if (w->owner[s] != f->serial) {
        if (ARRAY_FIT(w->undos, w->undo_cap, w->nundo + 1) < 0)
            return w->oom = -1;
        w->undos[w->nundo++] = (undo){ s, w->count[s], w->owner[s] };
        w->owner[s] = f->serial;
        w->count[s] = 0;
    }
    return w->fn(w->ctx, f->fn, f->fc, s, ++w->count[s]);
}

int redund_replay(twpp_file *f, const uint8_t *marked, redund_replay_fn fn, void *ctx,
                  char *err, size_t errlen)
{
    const twpp_model *m = twpp_file_model(f);
    walk w = { .marked = marked, .fn = fn, .ctx = ctx };
    int rc = twpp_load_symbols(f, err, errlen);
    if (rc == 0 && (!(w.calls = calloc((size_t)m->nfunctions + 1, sizeof *w.calls)) ||
                    !(w.owner = calloc((size_t)m->nsymbols + 1, sizeof *w.owner)) ||
                    !(w.count = calloc((size_t)m->nsymbols + 1, sizeof *w.count)))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        twpp_walker walker = { .enter = open_call, .block = run_block, .leave = close_call, .ctx = &w,
                               .only = marked };
        rc = twpp_walk(f, &walker, err, errlen);
        if (w.oom)
            rc = -1, snprintf(err, errlen, "out of memory");
    }
    free(w.calls);
    free(w.owner);
    free(w.count);
    free(w.undos);
    free(w.stack);
    return rc;
}
