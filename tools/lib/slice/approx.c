/*
 * approx.c: approaches 2 (executed edges) and 1 (executed nodes), see
 * slice.h. Both are sets of static instructions.
 */
#include "slice/deps.h"
#include "slice/slice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* ---- approach 2: executed edges ------------------------------------ */

/* Where each static instruction runs: its (symbol, position) pairs, and
 * each symbol's steps. */
typedef struct occurrences {
    uint64_t *sym_first, *sym_steps;    /* steps of symbol y: sym_steps[sym_first[y] ..] */
    uint64_t *insn_first;               /* occurrences of insn x: occ[insn_first[x] ..] */
    uint32_t (*occ)[2];                 /* (symbol, position) */
} occurrences;

static void occ_free(occurrences *o)
{
    free(o->sym_first), free(o->sym_steps), free(o->insn_first), free(o->occ);
}

/* Counting sorts: steps by symbol, occurrences by instruction. */
static int occ_build(const slice_run *r, occurrences *o)
{
    uint32_t ny = r->m->nsymbols, nx = r->ninsns;
    uint64_t total = 0;
    memset(o, 0, sizeof *o);
    if (!(o->sym_first = calloc((size_t)ny + 2, sizeof *o->sym_first)) ||
        !(o->sym_steps = malloc((r->nsteps + 1) * sizeof *o->sym_steps)) ||
        !(o->insn_first = calloc((size_t)nx + 2, sizeof *o->insn_first)))
        return -1;
    for (uint64_t s = 0; s < r->nsteps; s++)
        o->sym_first[r->sym[s] + 1]++;
    for (uint32_t y = 0; y < ny; y++)
        o->sym_first[y + 1] += o->sym_first[y];
    for (uint64_t s = 0; s < r->nsteps; s++)
        o->sym_steps[o->sym_first[r->sym[s]]++] = s;
    for (uint32_t y = ny; y > 0; y--)       /* the fill moved each start to the next one's */
        o->sym_first[y] = o->sym_first[y - 1];
    o->sym_first[0] = 0;
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t y = 0; y < ny; y++) {
            const twpp_symbol *sy = &r->m->symbols[y];
            if (sy->block >= r->nblocks)
                continue;
            const slice_block *b = &r->blocks[sy->block];
            for (uint32_t k = 0; k < sy->ninstrs && k < b->ninsns; k++) {
                if (pass == 0) {
                    o->insn_first[b->insn[k] + 1]++;
                    total++;
                } else {
                    uint64_t at = o->insn_first[b->insn[k]]++;
                    o->occ[at][0] = y;
                    o->occ[at][1] = k;
                }
            }
        }
        if (pass == 0) {
            for (uint32_t x = 0; x < nx; x++)
                o->insn_first[x + 1] += o->insn_first[x];
            if (!(o->occ = malloc((total + 1) * sizeof *o->occ)))
                return -1;
        }
    }
    for (uint32_t x = nx; x > 0; x--)
        o->insn_first[x] = o->insn_first[x - 1];
    o->insn_first[0] = 0;
    return 0;
}

/* Adds the static instruction of an instance. */
typedef struct to_static {
    const slice_run *r;
    slice_set *out;
} to_static;

static int add_static(void *ctx, uint64_t key)
{
    to_static *t = ctx;
    return slice_set_add(t->out, slice_key_insn(t->r, key)) < 0 ? -1 : 0;
}

int slice_edges(const slice_run *r, slice_cfg *g, const slice_criterion *c, slice_set *out,
                char *err, size_t errlen)
{
    occurrences o;
    slice_set seeds = {0};
    to_static t = { r, out };
    int rc = -1;
    if (occ_build(r, &o) < 0 || slice_set_dense(&seeds, r, 1) < 0 ||
        (!out->bits && slice_set_dense(out, r, 0) < 0) || slice_seed(r, c, &seeds) < 0)
        goto done;
    for (size_t k = 0; k < seeds.n; k++)
        if (add_static(&t, seeds.v[k]) < 0)
            goto done;
    for (size_t next = 0; next < out->n; next++) {
        uint32_t x = (uint32_t)out->v[next];
        for (uint64_t q = o.insn_first[x]; q < o.insn_first[x + 1]; q++) {
            uint32_t y = o.occ[q][0], pos = o.occ[q][1];
            for (uint64_t at = o.sym_first[y]; at < o.sym_first[y + 1]; at++)
                if (slice_deps(r, g, SLICE_KEY(o.sym_steps[at], pos), add_static, &t) < 0)
                    goto done;
        }
    }
    rc = 0;
done:
    occ_free(&o);
    slice_set_free(&seeds);
    if (rc < 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* ---- approach 1: executed nodes --------------------------------------- */

/* The graph of executed instructions, as predecessor lists (CSR). */
typedef struct supergraph {
    uint64_t *first;            /* preds of x: pred[first[x] .. first[x + 1]) */
    uint32_t *pred;
    uint32_t *mark, stamp;      /* visited in the current walk */
    uint8_t *outer_fn;          /* functions of the criterion's call and its callers */
    uint32_t *queue;
    u64map sites;               /* function -> call sites list (slice_set *) */
} supergraph;

/* Edges (from << 32 | to), each once. */
typedef struct edge_list {
    u64map seen;
    uint64_t *v;
    size_t n, cap;
} edge_list;

static int edge(edge_list *e, uint32_t from, uint32_t to)
{
    uint64_t k = (uint64_t)from << 32 | to;
    int added = u64set_add(&e->seen, k);
    if (added == 1 && ARRAY_FIT(e->v, e->cap, e->n + 1) < 0)
        return -1;
    if (added == 1)
        e->v[e->n++] = k;
    return added < 0 ? -1 : 0;
}

static int symbol_edges(const slice_run *r, edge_list *e, uint32_t y, uint32_t *last, uint32_t *first)
{
    const twpp_symbol *sy = &r->m->symbols[y];
    const slice_block *b = sy->block < r->nblocks ? &r->blocks[sy->block] : NULL;
    uint32_t n = b && sy->ninstrs <= b->ninsns ? sy->ninstrs : 0;
    for (uint32_t k = 0; k + 1 < n; k++)
        if (edge(e, b->insn[k], b->insn[k + 1]) < 0)
            return -1;
    *first = n ? b->insn[0] : SLICE_NONE;
    *last = n ? b->insn[n - 1] : SLICE_NONE;
    return 0;
}

static int graph_edges(const slice_run *r, edge_list *e)
{
    u64map pairs = {0};
    int rc = -1;
    for (uint32_t y = 0; y < r->m->nsymbols; y++) {
        uint32_t a, b;
        if (symbol_edges(r, e, y, &a, &b) < 0)
            goto done;
    }
    for (uint32_t t = 0; t < r->nthreads; t++)
        for (uint64_t s = r->thread_first[t] + 1; s < r->thread_first[t + 1]; s++) {
            int added = u64set_add(&pairs, (uint64_t)r->sym[s - 1] << 32 | r->sym[s]);
            uint32_t la, fa, lb, fb;
            if (added < 0)
                goto done;
            if (!added)
                continue;
            symbol_edges(r, e, r->sym[s - 1], &la, &fa);
            symbol_edges(r, e, r->sym[s], &lb, &fb);
            if (la != SLICE_NONE && fb != SLICE_NONE && edge(e, la, fb) < 0)
                goto done;
        }
    for (uint32_t x = 0; x < r->ninsns; x++) {      /* both sides of every branch that ran */
        const slice_insn *in = &r->insns[x];
        if (in->r.flow != SLICE_FLOW_COND)
            continue;
        uint64_t to[2] = { in->r.target, in->addr + in->r.len };
        for (int k = 0; k < 2; k++) {
            uintptr_t id = (uintptr_t)u64map_get(&r->insn_at, to[k]);
            if (id && edge(e, x, (uint32_t)id - 1) < 0)
                goto done;
        }
    }
    rc = 0;
done:
    u64map_free(&pairs);
    return rc;
}

static int graph_build(const slice_run *r, supergraph *sg)
{
    edge_list e = {0};
    int rc = -1;
    memset(sg, 0, sizeof *sg);
    if (graph_edges(r, &e) < 0 ||
        !(sg->first = calloc((size_t)r->ninsns + 2, sizeof *sg->first)) ||
        !(sg->pred = malloc((e.n + 1) * sizeof *sg->pred)) ||
        !(sg->mark = calloc((size_t)r->ninsns + 1, sizeof *sg->mark)) ||
        !(sg->outer_fn = calloc((size_t)r->m->nfunctions + 1, 1)) ||
        !(sg->queue = malloc((2 * e.n + r->ninsns + 1) * sizeof *sg->queue)))
        goto done;
    for (size_t k = 0; k < e.n; k++)
        sg->first[(uint32_t)e.v[k] + 1]++;
    for (uint32_t x = 0; x < r->ninsns; x++)
        sg->first[x + 1] += sg->first[x];
    for (size_t k = 0; k < e.n; k++)
        sg->pred[sg->first[(uint32_t)e.v[k]]++] = (uint32_t)(e.v[k] >> 32);
    for (uint32_t x = r->ninsns; x > 0; x--)
        sg->first[x] = sg->first[x - 1];
    sg->first[0] = 0;
    for (uint32_t c = 0; c < r->ncalls; c++)
        if (r->outer_calls[c])
            sg->outer_fn[r->call_fn[c]] = 1;
    rc = 0;
done:
    u64map_free(&e.seen);
    free(e.v);
    return rc;
}

static void graph_free(supergraph *sg)
{
    for (size_t i = 0; i < sg->sites.cap; i++)
        if (sg->sites.slots[i].used) {
            slice_set_free(sg->sites.slots[i].value);
            free(sg->sites.slots[i].value);
        }
    u64map_free(&sg->sites);
    free(sg->first), free(sg->pred), free(sg->mark), free(sg->queue), free(sg->outer_fn);
}

/* What a backward walk looks for: writers of a register, or stores
 * overlapping [lo, hi) (single: the load has one address). */
typedef struct wanted {
    int reg;
    uint64_t lo, hi;
    int single;
} wanted;

/* Does y define what w wants: 0 no, 1 yes and go on, 2 yes and stop. */
static int defines(const slice_run *r, uint32_t y, const wanted *w)
{
    if (w->reg >= 0)
        return r->insns[y].r.defs >> w->reg & 1 ? 2 : 0;
    const uint64_t *sp = r->store_span[y];
    if (sp[0] >= sp[1] || sp[1] <= w->lo || sp[0] >= w->hi)
        return 0;
    return w->single && !r->store_multi[y] && sp[0] <= w->lo && sp[1] >= w->hi ? 2 : 1;
}

/* Is p -> y the call into an outer function (the criterion's or one of
 * its callers')? The walk does not leave through it: how the criterion
 * was reached is not what its variable holds (as in deps.c). */
static int enters_outer(const slice_run *r, const supergraph *sg, uint32_t p, uint32_t y)
{
    uint32_t fn = r->insns[y].fn;
    return sg->outer_fn[fn] && r->insns[p].fn != fn && r->m->functions[fn].entry == r->insns[y].addr;
}

/* Walks back from x's predecessors, adding what defines w. */
static int walk_back(const slice_run *r, supergraph *sg, uint32_t x, const wanted *w, slice_set *out)
{
    size_t head = 0, tail = 0;     /* x's in-degree, then each node's once: under 2E */
    sg->stamp++;
    for (uint64_t k = sg->first[x]; k < sg->first[x + 1]; k++)
        if (!enters_outer(r, sg, sg->pred[k], x))
            sg->queue[tail++] = sg->pred[k];
    while (head < tail) {
        uint32_t y = sg->queue[head++];
        if (sg->mark[y] == sg->stamp)
            continue;
        sg->mark[y] = sg->stamp;
        int d = defines(r, y, w);
        if (d && slice_set_add(out, y) < 0)
            return -1;
        if (d == 2)
            continue;
        for (uint64_t k = sg->first[y]; k < sg->first[y + 1]; k++)
            if (sg->mark[sg->pred[k]] != sg->stamp && !enters_outer(r, sg, sg->pred[k], y))
                sg->queue[tail++] = sg->pred[k];
    }
    return 0;
}

/* The call instructions that called function fn. */
static slice_set *call_sites(const slice_run *r, supergraph *sg, uint32_t fn)
{
    if (!sg->sites.count) {
        for (uint32_t c = 0; c < r->ncalls; c++) {
            uint32_t first = r->call_first[c], n;
            if (r->call_parent[c] == SLICE_NONE || first == SLICE_NONE || first == 0 ||
                r->call[first - 1] != r->call_parent[c])
                continue;
            const uint32_t *insn = slice_step_insns(r, first - 1, &n);
            int added;
            void **slot = u64map_slot_of(&sg->sites, r->call_fn[c], &added);
            if (!slot || (added && !(*slot = calloc(1, sizeof(slice_set)))))
                return NULL;
            if (n && slice_set_add(*slot, insn[n - 1]) < 0)
                return NULL;
        }
        int added;                                  /* mark the map built */
        void **slot = u64map_slot_of(&sg->sites, UINT64_MAX, &added);
        if (!slot || (added && !(*slot = calloc(1, sizeof(slice_set)))))
            return NULL;
    }
    slice_set *s = u64map_get(&sg->sites, fn);
    return s ? s : u64map_get(&sg->sites, UINT64_MAX);
}

static int node_deps(const slice_run *r, slice_cfg *g, supergraph *sg, uint32_t x, slice_set *out)
{
    const slice_insn *in = &r->insns[x];
    for (int reg = 0; reg < SLICE_NREGS; reg++) {
        wanted w = { reg, 0, 0, 0 };
        if ((in->r.uses >> reg & 1) && walk_back(r, sg, x, &w, out) < 0)
            return -1;
    }
    if (r->load_span[x][0] < r->load_span[x][1]) {
        wanted w = { -1, r->load_span[x][0], r->load_span[x][1], !r->load_multi[x] };
        if (walk_back(r, sg, x, &w, out) < 0)
            return -1;
    }
    const uint32_t *parents;
    uint32_t n;
    if (slice_cfg_parents(g, in->fn, x, &parents, &n) < 0)
        return -1;
    for (uint32_t k = 0; k < n; k++)
        if (slice_set_add(out, parents[k]) < 0)
            return -1;
    if (n || sg->outer_fn[in->fn])
        return 0;
    const slice_set *sites = call_sites(r, sg, in->fn);
    if (!sites)
        return -1;
    for (size_t k = 0; k < sites->n; k++)
        if (slice_set_add(out, sites->v[k]) < 0)
            return -1;
    return 0;
}

int slice_nodes(const slice_run *r, slice_cfg *g, const slice_criterion *c, slice_set *out,
                char *err, size_t errlen)
{
    supergraph sg;
    int rc = -1;
    uint32_t n;
    if (graph_build(r, &sg) < 0 || (!out->bits && slice_set_dense(out, r, 0) < 0))
        goto done;
    const uint32_t *insn = slice_step_insns(r, c->step, &n);
    wanted w = { c->reg, c->addr, c->addr + c->size, 1 };
    if (walk_back(r, &sg, insn[c->index], &w, out) < 0)
        goto done;
    for (size_t next = 0; next < out->n; next++)
        if (node_deps(r, g, &sg, (uint32_t)out->v[next], out) < 0)
            goto done;
    rc = 0;
done:
    graph_free(&sg);
    if (rc < 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}
