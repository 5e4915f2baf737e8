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

/* Every (function, path) expanded once, kept symbols only, end to end in
 * one array: function i's path p is syms[start[first[i] + p] ..
 * start[first[i] + p + 1]). */
typedef struct cache {
    uint32_t *syms;
    size_t nsyms, cap;
    uint64_t *start;
    uint64_t *first;            /* function i's paths start at first[i] */
    uint8_t *keep;              /* per symbol: reported, or a call exit */
    uint8_t *calls;             /* per symbol: leaves by a call */
} cache;

static void free_cache(cache *c)
{
    free(c->syms);
    free(c->start);
    free(c->first);
    free(c->keep);
    free(c->calls);
}

static int build_cache(twpp_file *f, const twpp_walker *w, cache *c, char *err, size_t errlen)
{
    const twpp_model *m = twpp_file_model(f);
    uint64_t total = 0;
    if (!(c->first = calloc((size_t)m->nfunctions + 1, sizeof *c->first)) ||
        !(c->keep = malloc((size_t)m->nsymbols + 1)) || !(c->calls = malloc((size_t)m->nsymbols + 1)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t s = 0; s < m->nsymbols; s++) {
        c->calls[s] = m->symbols[s].jump == MR_JUMP_CALL;
        c->keep[s] = c->calls[s] || !w->only || w->only[s];
    }
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        if (twpp_load_function(f, i, err, errlen) < 0)
            return -1;
        c->first[i] = total;
        total += m->functions[i].npaths;
    }
    if (!(c->start = calloc(total + 1, sizeof *c->start)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        const twpp_function *fn = &m->functions[i];
        for (uint32_t p = 0; p < fn->npaths; p++) {
            c->start[c->first[i] + p] = c->nsyms;
            if (twpp_expand_path_into(&fn->traces[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict],
                                      c->keep, &c->syms, &c->nsyms, &c->cap) != 0)
                return snprintf(err, errlen, "out of memory"), -1;
        }
    }
    c->start[total] = c->nsyms;
    return 0;
}

/* An active call while walking: the next of its path's kept symbols, the
 * end, and whether the symbol just run left by a call (its callee comes
 * next). */
typedef struct walk_frame {
    const uint32_t *at, *end;
    int calling;
} walk_frame;

/* Enters DCG node (f, p): pushes its frame. 0, or -1 with err. */
static int enter_node(const twpp_model *m, const cache *c, uint32_t f, uint32_t p, walk_frame **stack,
                      size_t *cap, size_t *depth, char *err, size_t errlen)
{
    if (f >= m->nfunctions)
        return snprintf(err, errlen, "corrupt DCG: function %u of %u", f, m->nfunctions), -1;
    if (p >= m->functions[f].npaths)
        return snprintf(err, errlen, "corrupt DCG: path %u of function %s", p, m->functions[f].name), -1;
    if (ARRAY_FIT(*stack, *cap, *depth + 1) < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    uint64_t k = c->first[f] + p;
    (*stack)[(*depth)++] = (walk_frame){ c->syms + c->start[k], c->syms + c->start[k + 1], 0 };
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
        if (top)
            top->calling = 0;
        if (enter) {                    /* a root call, or the callee */
            uint32_t f = t->fn[node], p = t->path[node++];
            rc = enter_node(m, c, f, p, &stack, &cap, &depth, err, errlen);
            if (rc == 0 && w->enter)
                rc = w->enter(w->ctx, f, p);
            continue;
        }
        if (!top)
            break;                      /* no more roots */
        while (top->at < top->end && rc == 0) {     /* the call's blocks up to a call exit */
            uint32_t s = *top->at++;
            if (w->block && (!w->only || w->only[s]))
                rc = w->block(w->ctx, s);
            if (c->calls[s]) {
                top->calling = 1;
                break;
            }
        }
        if (rc == 0 && !top->calling && top->at == top->end) {
            depth--;                    /* the call returned */
            rc = w->leave ? w->leave(w->ctx) : 0;
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
        rc = build_cache(f, w, &c, err, errlen);
    for (uint32_t i = 0; i < m->nthreads && rc == 0; i++) {
        rc = w->thread ? w->thread(w->ctx, i) : 0;
        if (rc == 0)
            rc = walk_thread(m, &m->threads[i], &c, w, err, errlen);
    }
    free_cache(&c);
    return rc;
}

int twpp_expand(twpp_file *f, twpp_emit_fn fn, void *ctx, char *err, size_t errlen)
{
    twpp_walker w = { .block = fn, .ctx = ctx };
    return twpp_walk(f, &w, err, errlen);
}
