/*
 * expand.c: the whole block sequence back from a .twpp file alone. Each
 * thread's DCG is walked in preorder; a node's path is expanded from its
 * compacted trace and dictionary (once per path: the expansions are kept),
 * and at every call-exit symbol the next node is the callee, entered
 * before the caller goes on (see twpp.h).
 */
#include "twpp/file.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/array.h"

/* A path's expansion. */
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

/* An active call while walking: its expansion, the next position, and
 * whether the symbol just emitted left by a call (its callee comes next). */
typedef struct walk_frame {
    const expansion *e;
    size_t at;
    int calling;
} walk_frame;

/* Expansions of every (function, path), indexed by first path slot. */
typedef struct cache {
    expansion *paths;
    uint64_t *first;            /* function i's paths start at first[i] */
} cache;

static int build_cache(twpp_file *f, cache *c, char *err, size_t errlen)
{
    const twpp_model *m = twpp_file_model(f);
    uint64_t total = 0;
    if (!(c->first = calloc((size_t)m->nfunctions + 1, sizeof *c->first)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        if (twpp_load_function(f, i, err, errlen) < 0)
            return -1;
        c->first[i] = total;
        total += m->functions[i].npaths;
    }
    if (!(c->paths = calloc(total + 1, sizeof *c->paths)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        const twpp_function *fn = &m->functions[i];
        for (uint32_t p = 0; p < fn->npaths; p++)
            if (twpp_expand_path(&fn->traces[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict],
                                 collect, &c->paths[c->first[i] + p]) != 0)
                return snprintf(err, errlen, "out of memory"), -1;
    }
    return 0;
}

/* One thread: the preorder walk. */
static int walk_thread(const twpp_model *m, const twpp_thread *t, const cache *c,
                       const twpp_walker *w, char *err, size_t errlen)
{
    walk_frame *stack = NULL;
    size_t cap = 0, depth = 0;
    uint64_t node = 0;
    int rc = 0;
    while (rc == 0) {
        walk_frame *top = depth ? &stack[depth - 1] : NULL;
        int enter = top ? top->calling && node < t->nnodes : node < t->nnodes;
        if (top && top->calling)
            top->calling = 0;
        if (enter) {                    /* a root call, or the callee */
            uint32_t f = t->fn[node], p = t->path[node++];
            if (f >= m->nfunctions) {
                snprintf(err, errlen, "corrupt DCG: function %u of %u", f, m->nfunctions);
                rc = -1;
            } else if (p >= m->functions[f].npaths) {
                snprintf(err, errlen, "corrupt DCG: path %u of function %s", p, m->functions[f].name);
                rc = -1;
            } else if (ARRAY_FIT(stack, cap, depth + 1) < 0) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            } else {
                stack[depth++] = (walk_frame){ &c->paths[c->first[f] + p], 0, 0 };
                rc = w->enter ? w->enter(w->ctx, f) : 0;
            }
        } else if (!top) {
            break;                      /* no more roots */
        } else if (top->at == top->e->n) {
            depth--;                    /* the call returned */
            rc = w->leave ? w->leave(w->ctx) : 0;
        } else {
            uint32_t s = top->e->v[top->at++];
            top->calling = m->symbols[s].jump == MR_JUMP_CALL;
            rc = w->block ? w->block(w->ctx, s) : 0;
        }
    }
    free(stack);
    return rc;
}

int twpp_walk(twpp_file *f, const twpp_walker *w, char *err, size_t errlen)
{
    cache c = {0};
    const twpp_model *m = twpp_file_model(f);
    int rc = twpp_load_symbols(f, err, errlen);
    if (rc == 0)
        rc = twpp_load_dcg(f, err, errlen);
    if (rc == 0)
        rc = build_cache(f, &c, err, errlen);
    for (uint32_t i = 0; i < m->nthreads && rc == 0; i++)
        rc = walk_thread(m, &m->threads[i], &c, w, err, errlen);
    uint64_t total = 0;
    for (uint32_t i = 0; c.first && i < m->nfunctions; i++)
        total += m->functions[i].npaths;
    for (uint64_t k = 0; c.paths && k < total; k++)
        free(c.paths[k].v);
    free(c.paths);
    free(c.first);
    return rc;
}

int twpp_expand(twpp_file *f, twpp_emit_fn fn, void *ctx, char *err, size_t errlen)
{
    twpp_walker w = { .block = fn, .ctx = ctx };
    return twpp_walk(f, &w, err, errlen);
}
