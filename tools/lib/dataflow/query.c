/* query.c: backward propagation of timestamp vectors (query.h). */
#include "dataflow/query.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* A pending slot: the executions x of node, d unresolved just before them. */
typedef struct pending {
    uint32_t node;
    df_series x;
} pending;

/* The worklist and the answer, handed to the matching callback. */
typedef struct walk {
    df_cfg *g;
    const df_fact *d;
    pending *items;
    size_t n, cap;
    uint32_t pred;              /* the predecessor being matched */
    df_answer *a;
} walk;

static int push(walk *w, uint32_t node, const df_series *x)
{
    if (ARRAY_FIT(w->items, w->cap, w->n + 1) < 0)
        return -1;
    w->items[w->n++] = (pending){ node, *x };
    if (w->n > w->a->max_vector)
        w->a->max_vector = w->n;
    return 0;
}

static int has(const uint32_t *v, uint32_t n, uint32_t t)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == t;
}

/* A node that generates d at some executions and kills it at others:
 * timestamp by timestamp, transparent ones regrouped into runs. */
static int mixed(walk *w, uint32_t node, const df_series *piece)
{
    const df_fact *d = w->d;
    df_series run = { 0, 0, piece->s };
    int open = 0;
    for (uint64_t t = piece->l; t <= piece->h; t += piece->s) {
        if (has(d->gen[node], d->ngen[node], (uint32_t)t)) {
            w->a->holds++;
        } else if (has(d->kill[node], d->nkill[node], (uint32_t)t)) {
            w->a->fails++;
        } else {
            if (open && run.h + piece->s == t) {
                run.h = (uint32_t)t;
                continue;
            }
            if (open && push(w, node, &run) < 0)
                return -1;
            run = (df_series){ (uint32_t)t, (uint32_t)t, piece->s };
            open = 1;
            continue;
        }
        if (open && push(w, node, &run) < 0)
            return -1;
        open = 0;
    }
    if (open) {
        if (run.l == run.h)
            run.s = 1;
        return push(w, node, &run);
    }
    return 0;
}

/* Part of T - 1 found among the predecessor's executions. */
static int matched(void *ctx, const df_series *piece, uint32_t entry)
{
    (void)entry;
    walk *w = ctx;
    switch (w->d->effect[w->pred]) {
    case DF_GEN:
        w->a->holds += df_series_count(piece);
        return 0;
    case DF_KILL:
        w->a->fails += df_series_count(piece);
        return 0;
    case DF_MIXED:
        return mixed(w, w->pred, piece) < 0 ? -1 : 0;
    default:
        return push(w, w->pred, piece) < 0 ? -1 : 0;
    }
}

/* A single execution at t: back one timestamp at a time through the
 * trace (node_at gives the one predecessor labelled t - 1) while the
 * nodes are transparent. */
static int step_one(walk *w, uint32_t t)
{
    if (t == 1) {               /* the call's first block: nothing before */
        w->a->steps++;
        w->a->entry++;
        return 0;
    }
    if (!w->g->node_at && df_cfg_fill_node_at(w->g) < 0)
        return -1;
    const df_cfg *g = w->g;
    for (;;) {
        w->a->steps++;
        if (t == 1) {
            w->a->entry++;
            return 0;
        }
        uint32_t p = g->node_at[--t];
        switch (w->d->effect[p]) {
        case DF_GEN:
            w->a->holds++;
            return 0;
        case DF_KILL:
            w->a->fails++;
            return 0;
        case DF_MIXED:
            w->pred = p;
            return mixed(w, p, &(df_series){ t, t, 1 });
        default:
            break;
        }
    }
}

/* One step back from the executions x of node. */
static int step(walk *w, uint32_t node, df_series x)
{
    if (x.l == x.h)
        return step_one(w, x.l);
    w->a->steps++;
    if (x.l == 1) {             /* the first block of the call: nothing before */
        w->a->entry++;
        if (x.h == 1)
            return 0;
        x.l += x.s;
    }
    df_series back = { x.l - 1, x.h - 1, x.l == x.h ? 1 : x.s };
    const df_node *n = &w->g->nodes[node];
    uint32_t candidates = w->g->light ? w->g->n : n->npreds;    /* light: every node */
    for (uint32_t i = 0; i < candidates; i++) {
        w->pred = w->g->light ? i : n->preds[i];
        const df_node *p = &w->g->nodes[w->pred];
        if (df_series_match(p->ts, p->nts, &back, matched, w) < 0)
            return -1;
    }
    return 0;
}

int df_query(df_cfg *g, const df_fact *d, uint32_t n, const df_series *t, uint32_t nt,
             df_effect before, df_answer *out)
{
    memset(out, 0, sizeof *out);
    if (!t) {
        t = g->nodes[n].ts;
        nt = g->nodes[n].nts;
    }
    if (before == DF_GEN || before == DF_KILL) {
        for (uint32_t i = 0; i < nt; i++)
            *(before == DF_GEN ? &out->holds : &out->fails) += df_series_count(&t[i]);
        return 0;
    }
    walk w = { .g = g, .d = d, .a = out };
    for (uint32_t i = 0; i < nt; i++)
        if (push(&w, n, &t[i]) < 0)
            goto oom;
    while (w.n) {
        pending p = w.items[--w.n];
        if (step(&w, p.node, p.x) < 0)
            goto oom;
    }
    free(w.items);
    return 0;
oom:
    free(w.items);
    return -1;
}
