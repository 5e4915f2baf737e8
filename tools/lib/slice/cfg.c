/*
 * cfg.c: per-function control dependence (see cfg.h), built the first
 * time a function is asked about.
 */
#include "slice/cfg.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* A list of node numbers. */
typedef struct list {
    uint32_t *v;
    size_t n, cap;
} list;

static int push(list *l, uint32_t x)
{
    if (ARRAY_FIT(l->v, l->cap, l->n + 1) < 0)
        return -1;
    l->v[l->n++] = x;
    return 0;
}

/* One function's graph: nodes 0..n-1 are instructions, n is EXIT. */
typedef struct fgraph {
    int built;                  /* 0 not yet, 1 built, -1 failed */
    uint32_t n;
    uint32_t *insn;             /* node -> static instruction */
    u64map node_of;             /* static instruction -> node + 1 */
    list *succ, *pred, *cd;     /* cd: branch instructions (static ids) */
    u64map edges;               /* (from << 32 | to) already added */
} fgraph;

struct slice_cfg {
    const slice_run *r;
    fgraph *fns;                /* by twpp function index */
};

slice_cfg *slice_cfg_new(const slice_run *r)
{
    slice_cfg *g = calloc(1, sizeof *g);
    if (g && !(g->fns = calloc((size_t)r->m->nfunctions + 1, sizeof *g->fns))) {
        free(g);
        return NULL;
    }
    if (g)
        g->r = r;
    return g;
}

static void free_graph(fgraph *f)
{
    for (uint32_t i = 0; f->succ && i <= f->n; i++) {
        free(f->succ[i].v);
        free(f->pred[i].v);
        free(f->cd[i].v);
    }
    free(f->succ);
    free(f->pred);
    free(f->cd);
    free(f->insn);
    u64map_free(&f->node_of);
    u64map_free(&f->edges);
}

void slice_cfg_free(slice_cfg *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->r->m->nfunctions; i++)
        free_graph(&g->fns[i]);
    free(g->fns);
    free(g);
}

/* Nodes first: every instruction of every path of the function. */
typedef struct builder {
    const slice_run *r;
    fgraph *f;
    size_t insn_cap;
    list order;                 /* the path's instructions as nodes, in order */
    int fail;
} builder;

static int add_node(builder *b, uint32_t insn)
{
    int added;
    void **slot = u64map_slot_of(&b->f->node_of, insn, &added);
    if (!slot)
        return -1;
    if (added) {
        if (ARRAY_FIT(b->f->insn, b->insn_cap, b->f->n + 1) < 0)
            return -1;
        b->f->insn[b->f->n] = insn;
        *slot = (void *)(uintptr_t)(++b->f->n);
    }
    return (int)((uintptr_t)*slot - 1);
}

static int collect_nodes(void *ctx, uint32_t sym)
{
    builder *b = ctx;
    const twpp_symbol *y = &b->r->m->symbols[sym];
    if (y->block >= b->r->nblocks)
        return 0;
    const slice_block *blk = &b->r->blocks[y->block];
    for (uint32_t i = 0; i < y->ninstrs && i < blk->ninsns; i++) {
        int node = add_node(b, blk->insn[i]);
        if (node < 0 || push(&b->order, (uint32_t)node) < 0)
            return -1;
    }
    return 0;
}

static int add_edge(fgraph *f, uint32_t from, uint32_t to)
{
    int added = u64set_add(&f->edges, (uint64_t)from << 32 | to);
    if (added <= 0)
        return added;
    return push(&f->succ[from], to) < 0 || push(&f->pred[to], from) < 0 ? -1 : 0;
}

/* A conditional branch's two static successors. */
static int branch_edges(const slice_run *r, fgraph *f, uint32_t node)
{
    const slice_insn *in = &r->insns[f->insn[node]];
    if (in->r.flow != SLICE_FLOW_COND)
        return in->r.flow == SLICE_FLOW_RET ? add_edge(f, node, f->n) : 0;
    uint64_t to[2] = { in->r.target, in->addr + in->r.len };
    for (int k = 0; k < 2; k++) {
        uintptr_t id = (uintptr_t)u64map_get(&r->insn_at, to[k]);
        uintptr_t nd = id ? (uintptr_t)u64map_get(&f->node_of, id - 1) : 0;
        if (add_edge(f, node, nd ? (uint32_t)nd - 1 : f->n) < 0)
            return -1;
    }
    return 0;
}

static int build_edges(builder *b, uint32_t fn)
{
    const twpp_function *tf = &b->r->m->functions[fn];
    fgraph *f = b->f;
    if (!(f->succ = calloc((size_t)f->n + 1, sizeof *f->succ)) ||
        !(f->pred = calloc((size_t)f->n + 1, sizeof *f->pred)) ||
        !(f->cd = calloc((size_t)f->n + 1, sizeof *f->cd)))
        return -1;
    for (uint32_t p = 0; p < tf->npaths; p++) {
        b->order.n = 0;
        if (twpp_expand_path(&tf->traces[tf->paths[p].trace], &tf->dicts[tf->paths[p].dict],
                             collect_nodes, b) != 0)
            return -1;
        for (size_t k = 0; k + 1 < b->order.n; k++)
            if (add_edge(f, b->order.v[k], b->order.v[k + 1]) < 0)
                return -1;
        if (b->order.n && add_edge(f, b->order.v[b->order.n - 1], f->n) < 0)
            return -1;
    }
    for (uint32_t v = 0; v < f->n; v++)
        if (branch_edges(b->r, f, v) < 0)
            return -1;
    return 0;
}

/* Reverse postorder of the reversed graph from EXIT (iterative DFS
 * along predecessors); rpo_num[v] its position, UINT32_MAX unreached. */
static int reverse_postorder(const fgraph *f, uint32_t *order, uint32_t *rpo_num, uint32_t *count)
{
    uint32_t total = f->n + 1, done = 0, depth = 0;
    uint32_t *stack = malloc(total * sizeof *stack), *next = calloc(total, sizeof *next);
    uint8_t *seen = calloc(total, 1);
    if (!stack || !next || !seen) {
        free(stack), free(next), free(seen);
        return -1;
    }
    stack[depth++] = f->n;
    seen[f->n] = 1;
    while (depth) {
        uint32_t v = stack[depth - 1];
        if (next[v] < f->pred[v].n) {
            uint32_t u = f->pred[v].v[next[v]++];
            if (!seen[u]) {
                seen[u] = 1;
                stack[depth++] = u;
            }
        } else {
            order[done++] = v;      /* postorder */
            depth--;
        }
    }
    for (uint32_t i = 0; i < done / 2; i++) {
        uint32_t t = order[i];
        order[i] = order[done - 1 - i];
        order[done - 1 - i] = t;
    }
    for (uint32_t v = 0; v < total; v++)
        rpo_num[v] = UINT32_MAX;
    for (uint32_t i = 0; i < done; i++)
        rpo_num[order[i]] = i;
    *count = done;
    free(stack), free(next), free(seen);
    return 0;
}

static uint32_t intersect(const uint32_t *ipdom, const uint32_t *rpo_num, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (rpo_num[a] > rpo_num[b])
            a = ipdom[a];
        while (rpo_num[b] > rpo_num[a])
            b = ipdom[b];
    }
    return a;
}

/* Immediate post-dominators (Cooper, Harvey, Kennedy); ipdom[EXIT] = EXIT,
 * UINT32_MAX for nodes that never reach EXIT. */
static int post_dominators(const fgraph *f, uint32_t *ipdom)
{
    uint32_t total = f->n + 1, count;
    uint32_t *order = malloc(total * sizeof *order), *rpo_num = malloc(total * sizeof *rpo_num);
    if (!order || !rpo_num || reverse_postorder(f, order, rpo_num, &count) < 0) {
        free(order), free(rpo_num);
        return -1;
    }
    for (uint32_t v = 0; v < total; v++)
        ipdom[v] = UINT32_MAX;
    ipdom[f->n] = f->n;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 1; i < count; i++) {
            uint32_t v = order[i], best = UINT32_MAX;
            for (size_t k = 0; k < f->succ[v].n; k++) {     /* predecessors in the reversed graph */
                uint32_t s = f->succ[v].v[k];
                if (ipdom[s] == UINT32_MAX)
                    continue;
                best = best == UINT32_MAX ? s : intersect(ipdom, rpo_num, s, best);
            }
            if (best != ipdom[v]) {
                ipdom[v] = best;
                changed = 1;
            }
        }
    }
    free(order), free(rpo_num);
    return 0;
}

static int control_dependence(fgraph *f, const uint32_t *ipdom)
{
    for (uint32_t a = 0; a < f->n; a++) {
        if (f->succ[a].n < 2 || ipdom[a] == UINT32_MAX)
            continue;
        for (size_t k = 0; k < f->succ[a].n; k++)
            for (uint32_t v = f->succ[a].v[k]; v != ipdom[a] && v != f->n && v != UINT32_MAX; v = ipdom[v])
                if (push(&f->cd[v], f->insn[a]) < 0)
                    return -1;
    }
    return 0;
}

static int build(slice_cfg *g, uint32_t fn)
{
    fgraph *f = &g->fns[fn];
    builder b = { .r = g->r, .f = f };
    const twpp_function *tf = &g->r->m->functions[fn];
    int rc = -1;
    for (uint32_t p = 0; p < tf->npaths; p++)
        if (twpp_expand_path(&tf->traces[tf->paths[p].trace], &tf->dicts[tf->paths[p].dict],
                             collect_nodes, &b) != 0)
            goto done;
    uint32_t *ipdom = NULL;
    if (build_edges(&b, fn) == 0 && (ipdom = malloc(((size_t)f->n + 1) * sizeof *ipdom)) &&
        post_dominators(f, ipdom) == 0 && control_dependence(f, ipdom) == 0)
        rc = 0;
    free(ipdom);
done:
    free(b.order.v);
    f->built = rc == 0 ? 1 : -1;
    return rc;
}

int slice_cfg_parents(slice_cfg *g, uint32_t fn, uint32_t insn, const uint32_t **out, uint32_t *n)
{
    fgraph *f = &g->fns[fn];
    *out = NULL;
    *n = 0;
    if (f->built == 0 && build(g, fn) < 0)
        return -1;
    if (f->built < 0)
        return -1;
    uintptr_t node = (uintptr_t)u64map_get(&f->node_of, insn);
    if (node) {
        *out = f->cd[node - 1].v;
        *n = (uint32_t)f->cd[node - 1].n;
    }
    return 0;
}
