/* report.c: Table 5.1 and annotated CFGs as text (report.h). */
#include "dataflow/report.h"

#include <inttypes.h>
#include <stdlib.h>

#include "dataflow/tscfg.h"
#include "twpp/edges.h"

int df_table_file(twpp_file *f, df_table_row *rows, df_table_row *total, char *err, size_t errlen)
{
    const twpp_model *m = twpp_file_model(f);
    *total = (df_table_row){ 0 };
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        if (twpp_load_function(f, i, err, errlen) < 0)
            return -1;
        int rc = df_table_function(&m->functions[i], m->nsymbols, &rows[i]);
        twpp_unload_function(f, i);     /* one function's block at a time */
        if (rc < 0)
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

static const char *fn_name(const twpp_model *m, uint32_t fi) { return m->functions[fi].name; }

static const char *where(const twpp_model *m, uint32_t s)
{
    return s < m->nsymbols && m->symbols[s].where ? m->symbols[s].where : "?";
}

/* The function's TWPP+ access points: what --fact names. */
static void print_points(FILE *out, const twpp_file *f, uint32_t fi)
{
    const twpp_model *m = twpp_file_model(f);
    fprintf(out, "access points (TWPP+; --fact takes AN, and X as a single address):\n");
    for (uint32_t g = 0; g < twpp_point_count(f); g++) {
        const twpp_point *pt = twpp_file_point(f, g);
        if (pt->fn != fi)
            continue;
        fprintf(out, "  A%" PRIu32 " %s:%" PRIu32 "@0x%" PRIx64 " %s %" PRIu32 " in DBB block %"
                PRIu32 " (%s)", g + 1, fn_name(m, fi), pt->line, pt->insn_addr,
                mr_access_kind_name((int)pt->kind), pt->size, pt->symbol, where(m, pt->symbol));
        if (pt->single)
            fprintf(out, " single address 0x%" PRIx64, pt->addr);
        fprintf(out, ": %" PRIu64 " loads, %" PRIu64 " stores\n", pt->loads, pt->stores);
    }
}

int df_print_function(FILE *out, const twpp_file *f, uint32_t fi, char *err, size_t errlen)
{
    const twpp_model *m = twpp_file_model(f);
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
    print_points(out, f, fi);
    return ferror(out) ? (snprintf(err, errlen, "cannot write"), -1) : 0;
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0; }

int df_print_answer(FILE *out, const twpp_model *m, const df_spec *d, const char *at,
                    const df_result *r, int check, int calls, double ms)
{
    fprintf(out, "fact: %s\n", d->text);
    fprintf(out, "in %s: %" PRIu32 " generating and %" PRIu32 " killing access points "
            "(single-address, on its granules); %" PRIu32 " more in other functions, %s\n",
            m->functions[d->fn].name, d->gens, d->kills, d->elsewhere,
            calls ? "followed through calls" : "not followed through calls (--calls)");
    fprintf(out, "just before %s: %" PRIu64 " executions in %" PRIu32 " of %" PRIu32 " paths (%"
            PRIu64 " calls)\n", at, r->executions, r->paths, m->functions[d->fn].npaths,
            m->functions[d->fn].calls);
    fprintf(out, "  holds %" PRIu64 " (%.1f%%), fails %" PRIu64 " (%.1f%%), undecided at the "
            "call's entry %" PRIu64 " (%.1f%%)\n", r->holds, pct(r->holds, r->executions),
            r->fails, pct(r->fails, r->executions), r->entry, pct(r->entry, r->executions));
    fprintf(out, "propagation: %" PRIu32 " queries, %" PRIu64 " series moved, at most %" PRIu64
            " pending; %.2f ms with reading the function\n", r->queries, r->steps,
            r->max_vector, ms);
    if (check)
        fprintf(out, "check (%s): holds %" PRIu64 ", fails %"
                PRIu64 ", undecided %" PRIu64 ": %s\n",
                calls ? "every call walked while expanding the program"
                      : "forward walk over the expanded paths", r->check.holds, r->check.fails,
                r->check.entry, r->check.holds == r->holds && r->check.fails == r->fails &&
                r->check.entry == r->entry ? "the same" : "DIFFERENT");
    return ferror(out) ? -1 : 0;
}
