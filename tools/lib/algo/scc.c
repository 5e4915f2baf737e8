/*
 * scc.c: Pearce and Kelly's online strongly connected components (see
 * scc.h for the algorithm and the order it keeps).
 */
#include <stdlib.h>
#include <string.h>

#include "algo/scc.h"
#include "algo/unionfind.h"
#include "base/array.h"

#define NONE UINT32_MAX

/* Node ids at the other end of edges. */
typedef struct edge_list {
    uint32_t *v;
    uint32_t n;
    size_t cap;
} edge_list;

/* Per node; the lists, order and flags are those of the component when
 * the node is its representative. */
typedef struct scc_node {
    edge_list out, in;      /* edges of every member (the other end's id) */
    uint32_t ord;           /* position in the topological order */
    uint32_t fmark, bmark;  /* epoch of the last forward / backward visit */
    uint8_t self_loop;      /* some member has an edge to itself */
} scc_node;

struct scc {
    scc_node *nodes;
    size_t cap_nodes;
    uint32_t n;
    uint32_t *at;           /* position -> representative, NONE for a hole
                             * left by a merge */
    size_t cap_at;
    uint32_t npos;
    unionfind uf;           /* the components */
    scc_merge_fn merge;
    void *ctx;
    uint32_t epoch;         /* marks of the current insertion */
    uint32_t *fwd, *bwd, *stack, *pos;   /* search scratch */
    size_t cap_fwd, cap_bwd, cap_stack, cap_pos;
    uint32_t nfwd, nbwd;
    int failed;             /* out of memory inside a merge */
};

static int list_push(edge_list *l, uint32_t v)
{
    if (ARRAY_FIT(l->v, l->cap, l->n + 1) < 0)
        return -1;
    l->v[l->n++] = v;
    return 0;
}

/* Moves every entry of from to the end of into (the longer list's
 * storage is kept). */
static int list_move(edge_list *into, edge_list *from)
{
    if (into->cap < from->cap) {
        edge_list t = *into;
        *into = *from;
        *from = t;
    }
    if (ARRAY_FIT(into->v, into->cap, (size_t)into->n + from->n) < 0)
        return -1;
    memcpy(into->v + into->n, from->v, from->n * sizeof *from->v);
    into->n += from->n;
    free(from->v);
    memset(from, 0, sizeof *from);
    return 0;
}

/* The union-find joined two components: their edges and flags go to the
 * survivor, then the caller hears of it. */
static void on_union(void *ctx, uint32_t into, uint32_t from)
{
    scc *g = ctx;
    scc_node *a = &g->nodes[into], *b = &g->nodes[from];
    if (list_move(&a->out, &b->out) < 0 || list_move(&a->in, &b->in) < 0)
        g->failed = 1;
    a->self_loop |= b->self_loop;
    if (g->merge)
        g->merge(g->ctx, into, from);
}

scc *scc_new(scc_merge_fn merge, void *ctx)
{
    scc *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->merge = merge;
    g->ctx = ctx;
    uf_init(&g->uf, on_union, g);
    return g;
}

void scc_free(scc *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->n; i++) {
        free(g->nodes[i].out.v);
        free(g->nodes[i].in.v);
    }
    free(g->nodes);
    free(g->at);
    free(g->fwd);
    free(g->bwd);
    free(g->stack);
    free(g->pos);
    uf_free(&g->uf);
    free(g);
}

int scc_reserve(scc *g, uint32_t n)
{
    if (n <= g->n)
        return 0;
    if (ARRAY_FIT(g->nodes, g->cap_nodes, n) < 0 ||
        ARRAY_FIT(g->at, g->cap_at, (size_t)g->npos + (n - g->n)) < 0 ||
        uf_reserve(&g->uf, n) < 0)
        return -1;
    for (uint32_t i = g->n; i < n; i++) {   /* a new node goes last */
        g->nodes[i].ord = g->npos;
        g->at[g->npos++] = i;
    }
    g->n = n;
    return 0;
}

uint32_t scc_nodes(const scc *g) { return g->n; }

uint32_t scc_component(scc *g, uint32_t node) { return uf_find(&g->uf, node); }

int scc_same(scc *g, uint32_t a, uint32_t b) { return uf_same(&g->uf, a, b); }

uint32_t scc_size(scc *g, uint32_t node) { return uf_set_size(&g->uf, node); }

int scc_cyclic(scc *g, uint32_t node)
{
    uint32_t r = uf_find(&g->uf, node);
    return g->uf.size[r] > 1 || g->nodes[r].self_loop;
}

uint64_t scc_order(scc *g, uint32_t node)
{
    return g->nodes[uf_find(&g->uf, node)].ord;
}

/* Depth-first search from root over the components whose order lies in
 * [lb, ub], along out-edges (forward) or in-edges; visited components go
 * to *found. -1 when out of memory. */
static int search(scc *g, uint32_t root, int forward, uint32_t lb, uint32_t ub,
                  uint32_t **found, size_t *cap, uint32_t *nfound)
{
    uint32_t nstack = 0;
    *nfound = 0;
    if (ARRAY_FIT(g->stack, g->cap_stack, 1) < 0 || ARRAY_FIT(*found, *cap, 1) < 0)
        return -1;
    g->stack[nstack++] = root;
    (*found)[(*nfound)++] = root;
    if (forward)
        g->nodes[root].fmark = g->epoch;
    else
        g->nodes[root].bmark = g->epoch;
    while (nstack) {
        uint32_t v = g->stack[--nstack];
        const edge_list *l = forward ? &g->nodes[v].out : &g->nodes[v].in;
        for (uint32_t i = 0; i < l->n; i++) {
            uint32_t w = uf_find(&g->uf, l->v[i]);
            scc_node *nw = &g->nodes[w];
            uint32_t *mark = forward ? &nw->fmark : &nw->bmark;
            if (w == v || *mark == g->epoch || nw->ord < lb || nw->ord > ub)
                continue;
            *mark = g->epoch;
            if (ARRAY_FIT(g->stack, g->cap_stack, nstack + 1) < 0 ||
                ARRAY_FIT(*found, *cap, *nfound + 1) < 0)
                return -1;
            g->stack[nstack++] = w;
            (*found)[(*nfound)++] = w;
        }
    }
    return 0;
}

/* qsort_r order of representatives by their position (ctx: the graph). */
static int by_order(const void *a, const void *b, void *ctx)
{
    const scc *g = ctx;
    uint32_t x = g->nodes[*(const uint32_t *)a].ord;
    uint32_t y = g->nodes[*(const uint32_t *)b].ord;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Re-orders the affected region after the searches: the backward set
 * (minus the cycle) takes the lowest of the region's positions, the
 * forward set (minus the cycle) the highest, the merged cycle (rep, NONE
 * without one) the one right after the backward set; the other positions
 * become holes. Each set keeps its old relative order. */
static int reorder(scc *g, uint32_t rep)
{
    uint32_t npos = 0, nb = 0, nf = 0;
    if (ARRAY_FIT(g->pos, g->cap_pos, (size_t)g->nbwd + g->nfwd) < 0)
        return -1;
    /* Positions of the region; the survivors of each set compacted. */
    for (uint32_t i = 0; i < g->nbwd; i++) {
        uint32_t v = g->bwd[i];
        g->pos[npos++] = g->nodes[v].ord;
        if (g->nodes[v].fmark != g->epoch)
            g->bwd[nb++] = v;
    }
    for (uint32_t i = 0; i < g->nfwd; i++) {
        uint32_t v = g->fwd[i];
        if (g->nodes[v].bmark != g->epoch) {
            g->pos[npos++] = g->nodes[v].ord;
            g->fwd[nf++] = v;
        }
    }
    qsort(g->pos, npos, sizeof *g->pos, cmp_u32);
    qsort_r(g->bwd, nb, sizeof *g->bwd, by_order, g);
    qsort_r(g->fwd, nf, sizeof *g->fwd, by_order, g);
    for (uint32_t i = 0; i < npos; i++)
        g->at[g->pos[i]] = NONE;
    for (uint32_t i = 0; i < nb; i++) {
        g->nodes[g->bwd[i]].ord = g->pos[i];
        g->at[g->pos[i]] = g->bwd[i];
    }
    if (rep != NONE) {
        g->nodes[rep].ord = g->pos[nb];
        g->at[g->pos[nb]] = rep;
    }
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t p = g->pos[npos - nf + i];
        g->nodes[g->fwd[i]].ord = p;
        g->at[p] = g->fwd[i];
    }
    return 0;
}

int scc_add_edge(scc *g, uint32_t from, uint32_t to)
{
    uint32_t need = (from > to ? from : to) + 1;
    if (g->failed || need == 0 || scc_reserve(g, need) < 0)
        return -1;
    uint32_t x = uf_find(&g->uf, from), y = uf_find(&g->uf, to);
    if (list_push(&g->nodes[x].out, to) < 0 || list_push(&g->nodes[y].in, from) < 0)
        return -1;
    if (x == y) {                   /* inside one component */
        if (from == to)
            g->nodes[x].self_loop = 1;
        return 0;
    }
    uint32_t lb = g->nodes[y].ord, ub = g->nodes[x].ord;
    if (lb > ub)                    /* agrees with the order */
        return 0;
    g->epoch++;
    if (search(g, y, 1, lb, ub, &g->fwd, &g->cap_fwd, &g->nfwd) < 0 ||
        search(g, x, 0, lb, ub, &g->bwd, &g->cap_bwd, &g->nbwd) < 0)
        return -1;
    if (g->nodes[x].fmark != g->epoch)      /* no cycle: just re-order */
        return reorder(g, NONE);
    /* Cycle: the components y reaches that also reach x (both marks)
     * join into one; reorder() then skips them by their marks. */
    uint32_t rep = x;
    int joins = 0;
    for (uint32_t i = 0; i < g->nfwd; i++) {
        uint32_t v = g->fwd[i];
        if (g->nodes[v].bmark != g->epoch || v == x)
            continue;
        rep = uf_union(&g->uf, rep, v);
        joins++;
        if (g->failed)
            return -1;
    }
    if (reorder(g, rep) < 0)
        return -1;
    return joins;
}
