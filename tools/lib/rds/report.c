/* report.c: trace-rds's text report; see report.h. */
#include <stdlib.h>
#include <string.h>
#include "base/symbolize.h"
#include "rds/report.h"
#include "rds/store.h"

static void print_summary(FILE *out, rds_feed *f, const rds_results *res,
                          const char *cache)
{
    const rds_feed_stats *fs = rds_feed_get_stats(f);
    const rds_stats *st = rds_get_stats(rds_feed_profile(f));
    fprintf(out, "cache: %s\n", cache);
    fprintf(out, "accesses %llu, 8-byte with values %llu, heap pointers %llu\n",
            (unsigned long long)fs->accesses, (unsigned long long)fs->valued,
            (unsigned long long)fs->heap_pointers);
    fprintf(out, "nodes %llu, edges added %llu (queued %llu, revisited %llu), "
            "removed %llu, SSG edges %llu\n",
            (unsigned long long)st->nodes, (unsigned long long)st->edges_added,
            (unsigned long long)st->edges_queued,
            (unsigned long long)st->edges_dequeued,
            (unsigned long long)st->edges_removed,
            (unsigned long long)st->ssg_edges);
    fprintf(out, "traversals %llu, within instances %llu\n",
            (unsigned long long)st->traversals,
            (unsigned long long)st->rds_traversals);
    fprintf(out, "RDS types %zu, instances %zu\n\n", res->ntypes, res->ninst);
}

static void print_types(FILE *out, rds_feed *f, const rds_results *res,
                        const mr_reader *r)
{
    char buf[SYM_BUF];
    fprintf(out, "%-4s %9s %10s %10s %9s %10s %12s %8s  %s\n", "type",
            "instances", "fwd-edges", "bwd-edges", "avg-size", "lifetime%",
            "accesses", "latency", "sites");
    for (size_t t = 0; t < res->ntypes; t++) {
        const rds_type_view *tv = &res->types[t];
        fprintf(out, "%-4zu %9llu %10llu %10llu %9.1f %10.2f %12llu %8.2f ", t,
                (unsigned long long)tv->instances,
                (unsigned long long)tv->forward_edges,
                (unsigned long long)tv->backward_edges,
                (double)tv->edges / (double)tv->instances,
                100 * tv->sum_norm_lifetime / (double)tv->instances,
                (unsigned long long)tv->traversals,
                tv->traversals ? (double)tv->latency / (double)tv->traversals : 0.0);
        for (size_t k = 0; k < tv->nsites; k++)
            fprintf(out, " %s", rds_site_name(r, rds_feed_group(f, tv->sites[k]),
                                              buf, sizeof buf));
        fputc('\n', out);
    }
}

#define REPORT_INSNS 6    /* instructions listed per role */

/* The instructions of one role, most active first: "f:12 (30), g:4 (2)",
 * at most REPORT_INSNS of them and how many more. */
static void print_insns(FILE *out, rds_feed *f, const rds_instance *in,
                        int role, const mr_reader *r)
{
    char buf[SYM_BUF];
    const rds_insn *shown[REPORT_INSNS];
    size_t nshown = 0, more = 0;
    for (size_t k = 0; k < in->ninsns; k++) {
        const rds_insn *x = &in->insns[k];
        if (x->role != role)
            continue;
        /* Insertion into the few kept, by count. */
        size_t at = nshown;
        while (at > 0 && shown[at - 1]->count < x->count)
            at--;
        if (at == REPORT_INSNS) {
            more++;
            continue;
        }
        if (nshown == REPORT_INSNS)
            more++;
        else
            nshown++;
        for (size_t j = nshown - 1; j > at; j--)
            shown[j] = shown[j - 1];
        shown[at] = x;
    }
    for (size_t k = 0; k < nshown; k++) {
        if (role == RDS_DELETE)
            rds_call_name(r, shown[k]->where, buf, sizeof buf);
        else
            sym_where(r, rds_feed_insn(f, (uint32_t)shown[k]->where)->addr, buf,
                      sizeof buf);
        fprintf(out, "%s%s (%llu)", k ? ", " : "", buf,
                (unsigned long long)shown[k]->count);
    }
    if (!nshown)
        fputs("-", out);
    if (more)
        fprintf(out, ", and %zu more", more);
}

/* Instance indices by traversals, most first. */
static const rds_results *sort_res;
static int by_traversals(const void *a, const void *b)
{
    const rds_instance *x = sort_res->inst[*(const size_t *)a].in,
                       *y = sort_res->inst[*(const size_t *)b].in;
    if (x->traversals != y->traversals)
        return x->traversals < y->traversals ? 1 : -1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int print_instances(FILE *out, rds_feed *f, const rds_results *res,
                           uint32_t top, const mr_reader *r)
{
    size_t *order = malloc((res->ninst ? res->ninst : 1) * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < res->ninst; i++)
        order[i] = i;
    sort_res = res;
    qsort(order, res->ninst, sizeof *order, by_traversals);
    fprintf(out, "\n%-8s %4s %8s %8s %8s %8s %10s %8s %9s %5s  %s\n", "instance",
            "type", "nodes", "live", "fwd", "bwd", "accesses", "latency",
            "lifetime%", "rsf", "pattern");
    for (size_t k = 0; k < res->ninst && k < top; k++) {
        const rds_inst_view *v = &res->inst[order[k]];
        const rds_instance *in = v->in;
        fprintf(out, "%-8zu %4u %8llu %8llu %8llu %8llu %10llu %8.2f %9.2f %5llu  %s\n",
                order[k], v->type, (unsigned long long)in->nodes,
                (unsigned long long)in->live_nodes,
                (unsigned long long)in->forward_edges,
                (unsigned long long)in->backward_edges,
                (unsigned long long)in->traversals, v->avg_latency,
                100 * v->norm_lifetime, (unsigned long long)in->rsf,
                rds_pattern_name(v->pattern));
        static const char *const roles[] = { "created by", "traversed by", "deleted by" };
        for (int role = RDS_CREATE; role <= RDS_DELETE; role++) {
            fprintf(out, "    %-12s ", roles[role]);
            print_insns(out, f, in, role, r);
            fputc('\n', out);
        }
    }
    free(order);
    return 0;
}

int rds_report(FILE *out, rds_feed *f, const rds_results *res, uint32_t top,
               const char *cache, const mr_reader *r)
{
    print_summary(out, f, res, cache);
    print_types(out, f, res, r);
    if (print_instances(out, f, res, top, r))
        return -1;
    return ferror(out) ? -1 : 0;
}
