/* calls.c: facts followed through calls (calls.h). */
#include "dataflow/calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/u64map.h"
#include "dataflow/table.h"
#include "dataflow/tscfg.h"

/* An open call while walking. */
typedef struct frame {
    uint32_t fn, path;
    uint8_t state;              /* the last effect in this call so far (callees included) */
    int64_t slot;               /* where its effect goes in its caller's vector, or -1 */
    size_t vec;                 /* a call of the function: where its vector starts */
} frame;

/* The walk's state (twpp_walk's callbacks). */
typedef struct walk {
    const twpp_model *m;
    const df_spec *d;
    const uint32_t *targets;
    uint32_t ntargets;
    frame *stack;
    size_t depth, cap;
    int64_t pending_slot;       /* the call just made: its slot in the caller's vector */
    uint8_t *vec;               /* the open calls of the function: callee effects */
    size_t nvec, veccap;
    u64map group_of;            /* hash -> 1 + group index (probing on) */
    df_calls *out;
    int oom;
} walk;

static int is_target(const walk *w, uint32_t s)
{
    for (uint32_t i = 0; i < w->ntargets; i++)
        if (w->targets[i] == s)
            return 1;
    return 0;
}

/* The group of (path, effects), made if new. */
static int add_group(walk *w, uint32_t path, const uint8_t *e, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ path;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ e[i]) * 1099511628211ull;
    for (uint64_t key = h;; key++) {
        int added;
        void **v = u64map_slot_of(&w->group_of, key, &added);
        if (!v)
            return -1;
        if (!added) {
            df_group *g = &w->out->groups[(uintptr_t)*v - 1];
            if (g->path == path && g->neffects == n && (!n || !memcmp(g->effects, e, n))) {
                g->calls++;
                return 0;
            }
            continue;
        }
        df_calls *c = w->out;
        if (ARRAY_FIT(c->groups, c->cap, c->n + 1) < 0)
            return -1;
        df_group *g = &c->groups[c->n];
        *g = (df_group){ path, 1, malloc(n ? n : 1), n, h };
        if (!g->effects)
            return -1;
        if (n)
            memcpy(g->effects, e, n);
        *v = (void *)(uintptr_t)++c->n;
        return 0;
    }
}

/* The innermost call returns: its effect goes to its caller. */
static int close_call(void *ctx)
{
    walk *w = ctx;
    frame f = w->stack[--w->depth];
    if (f.fn == w->d->fn) {
        if (add_group(w, f.path, w->vec + f.vec, (uint32_t)(w->nvec - f.vec)) < 0)
            return w->oom = -1;
        w->nvec = f.vec;
    }
    if (w->depth && f.state != DF_NONE)
        w->stack[w->depth - 1].state = f.state;
    if (f.slot >= 0)
        w->vec[f.slot] = f.state;
    return 0;
}

static int open_call(void *ctx, uint32_t fn, uint32_t path)
{
    walk *w = ctx;
    if (ARRAY_FIT(w->stack, w->cap, w->depth + 1) < 0)
        return w->oom = -1;
    w->stack[w->depth++] = (frame){ fn, path, DF_NONE, w->pending_slot, w->nvec };
    w->pending_slot = -1;
    return 0;
}

static int run_block(void *ctx, uint32_t s)
{
    walk *w = ctx;
    frame *top = &w->stack[w->depth - 1];
    int mine = top->fn == w->d->fn;
    w->pending_slot = -1;       /* a slot is for the call entered right after its call exit */
    if (mine && is_target(w, s)) {
        df_answer *a = &w->out->walked;
        *(top->state == DF_GEN ? &a->holds : top->state == DF_KILL ? &a->fails : &a->entry) += 1;
    }
    df_effect e = df_spec_effect(w->d, top->fn, s);
    if (e != DF_NONE)
        top->state = (uint8_t)e;
    if (mine && w->m->symbols[s].jump == MR_JUMP_CALL) {     /* a slot for the callee's effect */
        if (ARRAY_FIT(w->vec, w->veccap, w->nvec + 1) < 0)
            return w->oom = -1;
        w->vec[w->nvec] = DF_NONE;
        w->pending_slot = (int64_t)w->nvec++;
    }
    return 0;
}

int df_calls_collect(twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                     df_calls *out, char *err, size_t errlen)
{
    walk w = { .m = twpp_file_model(f), .d = d, .targets = targets, .ntargets = n,
               .pending_slot = -1, .out = out };
    twpp_walker walker = { .enter = open_call, .block = run_block, .leave = close_call, .ctx = &w };
    memset(out, 0, sizeof *out);
    int rc = twpp_walk(f, &walker, err, errlen);
    if (w.oom)
        snprintf(err, errlen, "out of memory");
    free(w.stack);
    free(w.vec);
    u64map_free(&w.group_of);
    return rc || w.oom ? -1 : 0;
}

void df_calls_free(df_calls *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        free(c->groups[i].effects);
    free(c->groups);
    memset(c, 0, sizeof *c);
}

/* A group's dynamic GEN/KILL sets on its CFG, and its answer. */
typedef struct group_query {
    const df_spec *d;
    const twpp_function *fn;
    df_cfg *g;
    const uint32_t *targets;
    uint32_t ntargets;
    uint8_t *effect;            /* per node */
    uint32_t **gen, **kill, *ngen, *nkill;   /* per node with calls: timestamps */
    uint32_t **todo, *ntodo;    /* per node: target timestamps left to propagate */
    const uint8_t *sym_call;    /* per symbol: it leaves by a call */
} group_query;

static int is_in(const uint32_t *v, uint32_t n, uint32_t s)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == s)
            return 1;
    return 0;
}

/* Appends t to list k of lists (each sized to the node's timestamps). */
static void put(uint32_t **lists, uint32_t *counts, uint32_t k, uint32_t t)
{
    lists[k][counts[k]++] = t;
}

static int allocate(group_query *q)
{
    uint32_t n = q->g->n + 1;
    q->effect = calloc(n, 1);
    q->gen = calloc(n, sizeof *q->gen);
    q->kill = calloc(n, sizeof *q->kill);
    q->todo = calloc(n, sizeof *q->todo);
    q->ngen = calloc(n, sizeof *q->ngen);
    q->nkill = calloc(n, sizeof *q->nkill);
    q->ntodo = calloc(n, sizeof *q->ntodo);
    if (!q->effect || !q->gen || !q->kill || !q->todo || !q->ngen || !q->nkill || !q->ntodo)
        return -1;
    for (uint32_t k = 0; k < q->g->n; k++) {
        size_t c = q->g->nodes[k].count + 1;
        if (!(q->gen[k] = malloc(c * sizeof **q->gen)) || !(q->kill[k] = malloc(c * sizeof **q->kill)) ||
            !(q->todo[k] = malloc(c * sizeof **q->todo)))
            return -1;
    }
    return 0;
}

static void release(group_query *q)
{
    for (uint32_t k = 0; q->gen && k < q->g->n; k++) {
        free(q->gen[k]);
        free(q->kill[k]);
        free(q->todo[k]);
    }
    free(q->effect);
    free(q->gen);
    free(q->kill);
    free(q->todo);
    free(q->ngen);
    free(q->nkill);
    free(q->ntodo);
}

/* One pass over the group's trace: per timestamp, the node's effect
 * (callees' included) and the state just before each target block. */
static void effects(group_query *q, const df_group *grp, const twpp_seq *dict, df_result *out)
{
    uint32_t ci = 0;            /* the next callee's effect */
    for (uint32_t t = 1; t <= q->g->length; t++) {
        uint32_t k = q->g->node_at[t];
        const uint32_t *chain;
        uint32_t len, one, calls = 0;
        df_dict_chain(dict, q->g->nodes[k].dbb, &chain, &len, &one);
        df_effect state = DF_NONE;
        for (uint32_t pos = 0; pos < len; pos++) {
            if (is_in(q->targets, q->ntargets, chain[pos])) {
                if (state == DF_GEN)
                    out->holds += grp->calls;
                else if (state == DF_KILL)
                    out->fails += grp->calls;
                else
                    put(q->todo, q->ntodo, k, t);
                out->executions += grp->calls;
            }
            df_effect e = df_spec_symbol(q->d, chain[pos]);
            if (e != DF_NONE)
                state = e;
            if (q->sym_call[chain[pos]]) {
                calls++;
                df_effect c = ci < grp->neffects ? (df_effect)grp->effects[ci] : DF_NONE;
                ci++;
                if (c != DF_NONE)
                    state = c;
            }
        }
        if (calls) {            /* a node with calls: its effect per timestamp */
            q->effect[k] = DF_MIXED;
            if (state == DF_GEN)
                put(q->gen, q->ngen, k, t);
            else if (state == DF_KILL)
                put(q->kill, q->nkill, k, t);
        } else {
            q->effect[k] = (uint8_t)state;
        }
    }
}

/* The group's queries: for every node, its targets' timestamps still open. */
static int propagate(group_query *q, const df_group *grp, df_result *out)
{
    df_fact fact = { q->effect, q->gen, q->kill, q->ngen, q->nkill };
    for (uint32_t k = 0; k < q->g->n; k++) {
        if (!q->ntodo[k])
            continue;
        df_series *t = malloc(q->ntodo[k] * sizeof *t);
        if (!t)
            return -1;
        for (uint32_t i = 0; i < q->ntodo[k]; i++)
            t[i] = (df_series){ q->todo[k][i], q->todo[k][i], 1 };
        df_answer a;
        int rc = df_query(q->g, &fact, k, t, q->ntodo[k], DF_NONE, &a);
        free(t);
        if (rc < 0)
            return -1;
        out->queries++;
        out->holds += a.holds * grp->calls;
        out->fails += a.fails * grp->calls;
        out->entry += a.entry * grp->calls;
        out->steps += a.steps;
        if (a.max_vector > out->max_vector)
            out->max_vector = a.max_vector;
    }
    return 0;
}

/* Context of by_group_trace (qsort has none). */
static const twpp_function *sort_fn;

static int by_group_trace(const void *a, const void *b)
{
    const df_group *x = a, *y = b;
    uint32_t tx = sort_fn->paths[x->path].trace, ty = sort_fn->paths[y->path].trace;
    return tx < ty ? -1 : tx > ty;
}

int df_answer_calls(const twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                    const df_calls *c, df_result *out)
{
    const twpp_model *m = twpp_file_model(f);
    const twpp_function *fn = &m->functions[d->fn];
    uint32_t *index = calloc((size_t)m->nsymbols + 1, sizeof *index);
    uint8_t *sym_call = calloc((size_t)m->nsymbols + 1, 1);
    int rc = index && sym_call ? 0 : -1;
    memset(out, 0, sizeof *out);
    for (uint32_t s = 0; sym_call && s < m->nsymbols; s++)
        sym_call[s] = m->symbols[s].jump == MR_JUMP_CALL;
    sort_fn = fn;
    qsort(c->groups, c->n, sizeof *c->groups, by_group_trace);
    df_cfg g = { 0 };
    int64_t built = -1;
    uint8_t *seen = calloc((size_t)fn->npaths + 1, 1);
    for (uint32_t i = 0; i < c->n && rc == 0 && seen; i++) {
        const df_group *grp = &c->groups[i];
        uint32_t t = fn->paths[grp->path].trace;
        if ((int64_t)t != built) {
            df_cfg_free(&g);
            if ((rc = df_cfg_build_with(&fn->traces[t], index, &g)) < 0)
                break;
            built = t;
        }
        group_query q = { .d = d, .fn = fn, .g = &g, .targets = targets, .ntargets = n,
                          .sym_call = sym_call };
        uint64_t before = out->executions;
        rc = allocate(&q);
        if (rc == 0) {
            effects(&q, grp, &fn->dicts[fn->paths[grp->path].dict], out);
            rc = propagate(&q, grp, out);
        }
        release(&q);
        if (out->executions > before && !seen[grp->path]) {
            seen[grp->path] = 1;
            out->paths++;
        }
    }
    if (!seen)
        rc = -1;
    df_cfg_free(&g);
    free(seen);
    free(index);
    free(sym_call);
    out->check = c->walked;
    return rc;
}
