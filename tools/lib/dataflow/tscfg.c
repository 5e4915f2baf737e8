/* tscfg.c: the timestamp-annotated dynamic CFG (tscfg.h). */
#include "dataflow/tscfg.h"

#include <stdlib.h>
#include <string.h>

void df_cfg_free(df_cfg *g)
{
    free(g->nodes);
    free(g->node_at);
    free(g->all_ts);
    free(g->all_preds);
    memset(g, 0, sizeof *g);
}

int64_t df_cfg_node(const df_cfg *g, uint32_t dbb)
{
    uint32_t lo = 0, hi = g->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->nodes[mid].dbb < dbb)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n && g->nodes[lo].dbb == dbb ? (int64_t)lo : -1;
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Nodes numbered by increasing DBB id: index[dbb] = node + 1 (0: none).
 * The trace's distinct DBBs are gathered and sorted, so that the cost is
 * the trace's, not the number of symbols of the program. */
static int number_nodes(const twpp_seq *trace, uint32_t *index, df_cfg *g)
{
    uint32_t *dbbs = NULL;
    for (uint32_t i = 0; i < trace->n; i++)
        if (!index[trace->v[i]]) {
            index[trace->v[i]] = 1;
            g->n++;
        }
    if (!(dbbs = malloc((g->n ? g->n : 1) * sizeof *dbbs)) ||
        !(g->nodes = calloc(g->n ? g->n : 1, sizeof *g->nodes))) {
        free(dbbs);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < trace->n; i++)
        if (index[trace->v[i]] == 1) {
            index[trace->v[i]] = 2;
            dbbs[k++] = trace->v[i];
        }
    qsort(dbbs, k, sizeof *dbbs, by_u32);
    for (uint32_t j = 0; j < k; j++) {
        index[dbbs[j]] = j + 1;
        g->nodes[j].dbb = dbbs[j];
    }
    free(dbbs);
    return 0;
}

/* Each node's timestamps (counting sort by node), then its entries. */
static int annotate(const twpp_seq *trace, const uint32_t *index, df_cfg *g)
{
    uint32_t *start = calloc(g->n + 1, sizeof *start);
    uint32_t *ts = malloc((trace->n ? trace->n : 1) * sizeof *ts);
    g->all_ts = malloc((trace->n ? trace->n : 1) * sizeof *g->all_ts);
    g->node_at = malloc(((size_t)trace->n + 1) * sizeof *g->node_at);
    if (!start || !ts || !g->all_ts || !g->node_at) {
        free(start);
        free(ts);
        return -1;
    }
    g->node_at[0] = UINT32_MAX;             /* before the first timestamp: the entry */
    for (uint32_t i = 0; i < trace->n; i++) {
        g->node_at[i + 1] = index[trace->v[i]] - 1;
        g->nodes[g->node_at[i + 1]].count++;
    }
    for (uint32_t k = 0; k < g->n; k++)
        start[k + 1] = start[k] + (uint32_t)g->nodes[k].count;
    for (uint32_t i = 0; i < trace->n; i++)
        ts[start[index[trace->v[i]] - 1]++] = i + 1;     /* timestamps from 1 */
    uint32_t used = 0;
    for (uint32_t k = 0, from = 0; k < g->n; k++) {
        df_node *x = &g->nodes[k];
        x->ts = g->all_ts + used;
        x->nts = df_series_from(ts + from, (uint32_t)x->count, x->ts);
        used += x->nts;
        from += (uint32_t)x->count;
    }
    free(start);
    free(ts);
    return 0;
}

/* Predecessor lists: every distinct pair of consecutive DBBs (from
 * node_at). A node's predecessors are few, so a linear look before adding
 * suffices; the lists are made in a first pass with room for every
 * occurrence, then packed. */
static int link(df_cfg *g)
{
    const uint32_t *at = g->node_at;
    uint32_t *room = calloc(g->n + 1, sizeof *room);
    uint32_t *tmp = malloc((g->length ? g->length : 1) * sizeof *tmp);
    if (!room || !tmp) {
        free(room);
        free(tmp);
        return -1;
    }
    for (uint32_t t = 2; t <= g->length; t++)
        room[at[t] + 1]++;
    for (uint32_t k = 0; k < g->n; k++)
        room[k + 1] += room[k];
    for (uint32_t k = 0; k < g->n; k++)
        g->nodes[k].preds = tmp + room[k];
    for (uint32_t t = 2; t <= g->length; t++) {
        df_node *x = &g->nodes[at[t]];
        uint32_t p = at[t - 1], j = 0;
        if (x->npreds && x->preds[x->npreds - 1] == p)
            continue;           /* the edge just seen (loops repeat it) */
        while (j < x->npreds && x->preds[j] != p)
            j++;
        if (j == x->npreds)
            x->preds[x->npreds++] = p;
    }
    for (uint32_t k = 0; k < g->n; k++)
        g->nedges += g->nodes[k].npreds;
    g->all_preds = malloc((g->nedges ? g->nedges : 1) * sizeof *g->all_preds);
    if (!g->all_preds) {
        free(room);
        free(tmp);
        return -1;
    }
    for (uint32_t k = 0, used = 0; k < g->n; k++) {
        df_node *x = &g->nodes[k];
        memcpy(g->all_preds + used, x->preds, x->npreds * sizeof *x->preds);
        x->preds = g->all_preds + used;
        used += x->npreds;
    }
    free(room);
    free(tmp);
    return 0;
}

int df_cfg_build_with(const twpp_seq *trace, uint32_t *index, df_cfg *g)
{
    memset(g, 0, sizeof *g);
    g->length = trace->n;
    int rc = number_nodes(trace, index, g) < 0 || annotate(trace, index, g) < 0 || link(g) < 0 ? -1 : 0;
    for (uint32_t i = 0; i < trace->n; i++)     /* the scratch back to zeros */
        index[trace->v[i]] = 0;
    if (rc < 0)
        df_cfg_free(g);
    return rc;
}

int df_cfg_build(const twpp_seq *trace, uint32_t nsymbols, df_cfg *g)
{
    uint32_t *index = calloc(nsymbols ? nsymbols : 1, sizeof *index);
    int rc = index ? df_cfg_build_with(trace, index, g) : -1;
    free(index);
    return rc;
}

/* A graph from series: nodes and entries as the file lists them. */
static int build_from_series(const twpp_seq *series, df_cfg *g)
{
    const uint32_t *v = series->v;
    uint32_t n = v[1], entries = (series->n - 2 - 3 * n) / 3;
    g->length = v[0];
    g->n = n;
    g->nodes = calloc(n ? n : 1, sizeof *g->nodes);
    g->all_ts = malloc((entries ? entries : 1) * sizeof *g->all_ts);
    if (!g->nodes || !g->all_ts)
        return -1;
    uint32_t k = 2, used = 0;
    for (uint32_t d = 0; d < n; d++) {
        df_node *x = &g->nodes[d];
        x->dbb = v[k];
        x->count = v[k + 1];
        x->nts = v[k + 2];
        x->ts = g->all_ts + used;
        k += 3;
        for (uint32_t e = 0; e < x->nts; e++, k += 3)
            g->all_ts[used++] = (df_series){ v[k], v[k + 1], v[k + 2] };
    }
    return 0;
}

int df_cfg_fill_node_at(df_cfg *g)
{
    if (g->node_at)
        return 0;
    if (!(g->node_at = malloc(((size_t)g->length + 1) * sizeof *g->node_at)))
        return -1;
    /* a timestamp no entry takes (only in a corrupt file: twpp_ts_series
     * does not check the DBBs are disjoint) is taken as node 0's */
    memset(g->node_at, 0, ((size_t)g->length + 1) * sizeof *g->node_at);
    g->node_at[0] = UINT32_MAX;             /* before the first timestamp: the entry */
    for (uint32_t k = 0; k < g->n; k++)
        for (uint32_t e = 0; e < g->nodes[k].nts; e++) {
            const df_series *x = &g->nodes[k].ts[e];
            for (uint64_t t = x->l; t <= x->h; t += x->s)
                g->node_at[t] = k;
        }
    return 0;
}

int df_cfg_from_series(const twpp_seq *series, df_cfg *g)
{
    memset(g, 0, sizeof *g);
    g->light = series->v[1] <= DF_LIGHT_NODES;
    if (build_from_series(series, g) < 0 ||
        (!g->light && (df_cfg_fill_node_at(g) < 0 || link(g) < 0))) {
        df_cfg_free(g);
        return -1;
    }
    return 0;
}
