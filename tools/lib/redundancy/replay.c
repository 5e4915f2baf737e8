/* replay.c: a .twpp file's control flow in order, with <FC, BC> (replay.h). */
#include "redundancy/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* A path's blocks, expanded once. */
typedef struct expansion {
    uint32_t *v;
    size_t n, cap;
} expansion;

static int collect(void *ctx, uint32_t s)
{
    expansion *e = ctx;
    if (ARRAY_FIT(e->v, e->cap, e->n + 1) < 0)
        return -1;
    e->v[e->n++] = s;
    return 0;
}

/* An open call: where its path is, and what its BC counts displaced. */
typedef struct frame {
    const expansion *e;
    size_t at;
    int calling;                /* the block just handed left by a call */
    uint32_t fn, fc;
    uint64_t serial;            /* this call's number in the walk */
    size_t undo;                /* the undo log's length when it opened */
} frame;

/* A BC count displaced by an inner call (restored at its return). */
typedef struct undo {
    uint32_t symbol, count;
    uint64_t owner;
} undo;

/* The walk's state. */
typedef struct walk {
    const twpp_model *m;
    const uint8_t *marked;
    expansion *paths;           /* every (function, path), from first[fn] */
    uint64_t *first;
    uint32_t *calls;            /* per function: calls so far (FC) */
    uint64_t *owner;            /* per symbol: the call whose count count[] holds */
    uint32_t *count;
    undo *undos;
    size_t nundo, undo_cap;
    frame *stack;
    size_t depth, cap;
    uint64_t serials;
} walk;

static int expand_all(twpp_file *f, walk *w, char *err, size_t errlen)
{
    const twpp_model *m = w->m;
    uint64_t total = 0;
    if (!(w->first = calloc((size_t)m->nfunctions + 1, sizeof *w->first)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        if (twpp_load_function(f, i, err, errlen) < 0)
            return -1;
        w->first[i] = total;
        total += m->functions[i].npaths;
    }
    w->first[m->nfunctions] = total;
    if (!(w->paths = calloc(total + 1, sizeof *w->paths)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        const twpp_function *fn = &m->functions[i];
        for (uint32_t p = 0; p < fn->npaths; p++)
            if (twpp_expand_path(&fn->traces[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict],
                                 collect, &w->paths[w->first[i] + p]) != 0)
                return snprintf(err, errlen, "out of memory"), -1;
    }
    return 0;
}

/* The BC of symbol s in the innermost call. */
static int instance(walk *w, uint32_t s, uint32_t *bc)
{
    const frame *f = &w->stack[w->depth - 1];
    if (w->owner[s] != f->serial) {
        if (ARRAY_FIT(w->undos, w->undo_cap, w->nundo + 1) < 0)
            return -1;
        w->undos[w->nundo++] = (undo){ s, w->count[s], w->owner[s] };
        w->owner[s] = f->serial;
        w->count[s] = 0;
    }
    *bc = ++w->count[s];
    return 0;
}

static void close_call(walk *w)
{
    frame *f = &w->stack[--w->depth];
    while (w->nundo > f->undo) {
        undo *u = &w->undos[--w->nundo];
        w->owner[u->symbol] = u->owner;
        w->count[u->symbol] = u->count;
    }
}

/* One thread's DCG in preorder (the rule of twpp/expand.c). */
static int walk_thread(walk *w, const twpp_thread *t, redund_replay_fn fn, void *ctx,
                       char *err, size_t errlen)
{
    const twpp_model *m = w->m;
    uint64_t node = 0;
    for (;;) {
        frame *top = w->depth ? &w->stack[w->depth - 1] : NULL;
        int enter = node < t->nnodes && (!top || top->calling);
        if (top)
            top->calling = 0;
        if (enter) {                    /* a root call, or the callee */
            uint32_t f = t->fn[node], p = t->path[node++];
            if (f >= m->nfunctions || p >= m->functions[f].npaths)
                return snprintf(err, errlen, "corrupt DCG: path %u of function %u", p, f), -1;
            if (ARRAY_FIT(w->stack, w->cap, w->depth + 1) < 0)
                return snprintf(err, errlen, "out of memory"), -1;
            w->stack[w->depth++] = (frame){ &w->paths[w->first[f] + p], 0, 0, f,
                                            ++w->calls[f], ++w->serials, w->nundo };
        } else if (!top) {
            return 0;                   /* no more roots */
        } else if (top->at == top->e->n) {
            close_call(w);              /* the call returned */
        } else {
            uint32_t s = top->e->v[top->at++], bc;
            top->calling = m->symbols[s].jump == MR_JUMP_CALL;
            if (!w->marked[s])
                continue;
            if (instance(w, s, &bc) < 0)
                return snprintf(err, errlen, "out of memory"), -1;
            int rc = fn(ctx, top->fn, top->fc, s, bc);
            if (rc)
                return rc;
        }
    }
}

int redund_replay(twpp_file *f, const uint8_t *marked, redund_replay_fn fn, void *ctx,
                  char *err, size_t errlen)
{
    walk w = { .m = twpp_file_model(f), .marked = marked };
    int rc = twpp_load_symbols(f, err, errlen);
    if (rc == 0)
        rc = twpp_load_dcg(f, err, errlen);
    if (rc == 0)
        rc = expand_all(f, &w, err, errlen);
    if (rc == 0 && (!(w.calls = calloc((size_t)w.m->nfunctions + 1, sizeof *w.calls)) ||
                    !(w.owner = calloc((size_t)w.m->nsymbols + 1, sizeof *w.owner)) ||
                    !(w.count = calloc((size_t)w.m->nsymbols + 1, sizeof *w.count)))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (uint32_t i = 0; i < w.m->nthreads && rc == 0; i++) {
        w.depth = 0;
        w.nundo = 0;
        rc = walk_thread(&w, &w.m->threads[i], fn, ctx, err, errlen);
    }
    for (uint64_t k = 0; w.paths && k < w.first[w.m->nfunctions]; k++)
        free(w.paths[k].v);
    free(w.paths);
    free(w.first);
    free(w.calls);
    free(w.owner);
    free(w.count);
    free(w.undos);
    free(w.stack);
    return rc;
}
