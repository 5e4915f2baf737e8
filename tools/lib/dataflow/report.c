/* report.c: Table 5.1 and annotated CFGs as text (report.h). */
#include "dataflow/report.h"

#include <inttypes.h>
#include <stdlib.h>

#include "dataflow/tscfg.h"

int df_table_file(twpp_file *f, df_table_row *rows, df_table_row *total, char *err, size_t errlen)
{
    const twpp_model *m = twpp_file_model(f);
    *total = (df_table_row){ 0 };
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        if (twpp_load_function(f, i, err, errlen) < 0)
            return -1;
        if (df_table_function(&m->functions[i], m->nsymbols, &rows[i]) < 0)
            return snprintf(err, errlen, "out of memory"), -1;
        df_table_add(total, &rows[i]);
    }
    return 0;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

/* Context of by_dynamic_nodes (qsort has none). */
static const df_table_row *sort_rows;

static int by_dynamic_nodes(const void *a, const void *b)
{
    const df_table_row *x = &sort_rows[*(const uint32_t *)a], *y = &sort_rows[*(const uint32_t *)b];
    if (x->dynamic_nodes != y->dynamic_nodes)
        return x->dynamic_nodes > y->dynamic_nodes ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void print_row(FILE *out, const df_table_row *r, const char *name)
{
    fprintf(out, "%10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8.1f (%.1f)  %s\n",
            r->static_nodes, r->static_edges, r->dynamic_nodes, r->dynamic_edges,
            ratio(r->entries, r->dynamic_nodes), ratio(r->timestamps, r->dynamic_nodes), name);
}

int df_print_table(FILE *out, const twpp_model *m, const df_table_row *rows,
                   const df_table_row *total, uint32_t top)
{
    uint32_t *order = malloc((m->nfunctions ? m->nfunctions : 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < m->nfunctions; i++)
        order[i] = i;
    sort_rows = rows;
    qsort(order, m->nfunctions, sizeof *order, by_dynamic_nodes);
    fprintf(out, "Table 5.1: static (blocks and edges that ran) and dynamic flow graphs (one\n"
                 "per compacted trace, summed); average timestamp vector per dynamic node,\n"
                 "series entries (timestamps before compaction)\n");
    fprintf(out, "%10s %10s %10s %10s %8s %-8s %s\n", "static N", "static E", "dynamic N",
            "dynamic E", "vector", "", "function");
    print_row(out, total, "(all functions)");
    for (uint32_t k = 0; k < m->nfunctions && k < top; k++)
        print_row(out, &rows[order[k]], m->functions[order[k]].name);
    free(order);
    return ferror(out) ? -1 : 0;
}

/* Prints one series entry in the dissertation's notation. */
static void print_series(FILE *out, const df_series *x)
{
    if (x->l == x->h)
        fprintf(out, " %" PRIu32, x->l);
    else if (x->s == 1)
        fprintf(out, " %" PRIu32 ":%" PRIu32, x->l, x->h);
    else
        fprintf(out, " %" PRIu32 ":%" PRIu32 ":%" PRIu32, x->l, x->h, x->s);
}

static const char *where(const twpp_model *m, uint32_t s)
{
    return s < m->nsymbols && m->symbols[s].where ? m->symbols[s].where : "?";
}

int df_print_function(FILE *out, const twpp_model *m, uint32_t fi, char *err, size_t errlen)
{
    const twpp_function *fn = &m->functions[fi];
    fprintf(out, "function %s: %" PRIu64 " calls, %" PRIu32 " compacted traces\n", fn->name,
            fn->calls, fn->ntraces);
    for (uint32_t t = 0; t < fn->ntraces; t++) {
        df_cfg g;
        if (df_cfg_build(&fn->traces[t], m->nsymbols, &g) < 0)
            return snprintf(err, errlen, "out of memory"), -1;
        fprintf(out, "trace %" PRIu32 ": %" PRIu32 " timestamps, %" PRIu32 " nodes, %" PRIu64
                " edges\n", t + 1, g.length, g.n, g.nedges);
        for (uint32_t k = 0; k < g.n; k++) {
            const df_node *x = &g.nodes[k];
            fprintf(out, "  DBB %" PRIu32 " %s@0x%" PRIx64 " T =", x->dbb, where(m, x->dbb),
                    m->symbols[x->dbb].addr);
            for (uint32_t i = 0; i < x->nts; i++)
                print_series(out, &x->ts[i]);
            fprintf(out, "  preds:");
            for (uint32_t i = 0; i < x->npreds; i++)
                fprintf(out, " %" PRIu32, g.nodes[x->preds[i]].dbb);
            fputc('\n', out);
        }
        df_cfg_free(&g);
    }
    return ferror(out) ? (snprintf(err, errlen, "cannot write"), -1) : 0;
}
