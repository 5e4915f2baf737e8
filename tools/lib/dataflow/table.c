/* table.c: Table 5.1's figures of one function (table.h). */
#include "dataflow/table.h"

#include <stdlib.h>

#include "base/u64map.h"
#include "dataflow/tscfg.h"

void df_dict_chain(const twpp_seq *dict, uint32_t dbb, const uint32_t **chain, uint32_t *n,
                   uint32_t *one)
{
    /* [chain count, then per chain its length and its blocks]: few chains,
     * sorted by head; a linear walk costs what reading them cost. */
    uint32_t count = dict->n ? dict->v[0] : 0, at = 1;
    for (uint32_t c = 0; c < count && at < dict->n; c++) {
        uint32_t len = dict->v[at];
        if (dict->v[at + 1] == dbb) {
            *chain = &dict->v[at + 1];
            *n = len;
            return;
        }
        if (dict->v[at + 1] > dbb)
            break;
        at += 1 + len;
    }
    *one = dbb;
    *chain = one;
    *n = 1;
}

void df_table_add(df_table_row *a, const df_table_row *b)
{
    a->static_nodes += b->static_nodes;
    a->static_edges += b->static_edges;
    a->dynamic_nodes += b->dynamic_nodes;
    a->dynamic_edges += b->dynamic_edges;
    a->entries += b->entries;
    a->timestamps += b->timestamps;
}

/* The static blocks and edges of one path: every DBB's chain and its
 * inner edges, and for every dynamic edge u -> v the edge from u's last
 * block to v. */
static int static_part(const df_cfg *g, const twpp_seq *dict, u64map *blocks, u64map *edges)
{
    for (uint32_t k = 0; k < g->n; k++) {
        const uint32_t *c, *pc;
        uint32_t n, pn, one, pone;
        df_dict_chain(dict, g->nodes[k].dbb, &c, &n, &one);
        for (uint32_t i = 0; i < n; i++)
            if (u64set_add(blocks, c[i]) < 0 ||
                (i && u64set_add(edges, (uint64_t)c[i - 1] << 32 | c[i]) < 0))
                return -1;
        for (uint32_t i = 0; i < g->nodes[k].npreds; i++) {
            df_dict_chain(dict, g->nodes[g->nodes[k].preds[i]].dbb, &pc, &pn, &pone);
            if (u64set_add(edges, (uint64_t)pc[pn - 1] << 32 | c[0]) < 0)
                return -1;
        }
    }
    return 0;
}

int df_table_function(const twpp_function *fn, uint32_t nsymbols, df_table_row *out)
{
    u64map blocks = { 0 }, edges = { 0 };
    df_cfg *g = calloc(fn->ntraces ? fn->ntraces : 1, sizeof *g);
    uint32_t *index = calloc((size_t)nsymbols + 1, sizeof *index);
    int rc = g && index ? 0 : -1;
    *out = (df_table_row){ 0 };
    for (uint32_t t = 0; !rc && t < fn->ntraces; t++) {
        if ((rc = df_cfg_build_with(&fn->traces[t], index, &g[t])) < 0)
            break;
        out->dynamic_nodes += g[t].n;
        out->dynamic_edges += g[t].nedges;
        for (uint32_t k = 0; k < g[t].n; k++) {
            out->entries += g[t].nodes[k].nts;
            out->timestamps += g[t].nodes[k].count;
        }
    }
    for (uint32_t p = 0; !rc && p < fn->npaths; p++)
        rc = static_part(&g[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict], &blocks, &edges);
    out->static_nodes = blocks.count;
    out->static_edges = edges.count;
    for (uint32_t t = 0; g && t < fn->ntraces; t++)
        df_cfg_free(&g[t]);
    free(g);
    free(index);
    u64map_free(&blocks);
    u64map_free(&edges);
    return rc;
}
