/*
 * report.c: the text report of trace-layout (see report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/array.h"
#include "layout/report.h"
#include "objects/groupname.h"

static const char *metric_name(ly_metric m)
{
    return m == LY_LATENCY ? "latency" : m == LY_MISSES ? "D1 misses" : "count";
}

/* "function:line#group": two allocations on one line stay apart. */
static const char *group_name(const ly_profile *p, uint32_t gid, char *buf, size_t n)
{
    char name[224];
    obj_group_name(ly_opts(p)->reader, ly_group_at(p, gid)->g, name, sizeof name);
    snprintf(buf, n, "%s#%u", name, gid);
    return buf;
}

static double share(const ly_profile *p, double w)
{
    return ly_total(p) > 0 ? 100.0 * w / ly_total(p) : 0;
}

static void loop_name(const ly_profile *p, int32_t l, char *buf, size_t n)
{
    if (l < 0) {
        snprintf(buf, n, "(outside loops)");
        return;
    }
    const cfg_loop *lp = cfg_loop_at(ly_cfg(p), (uint32_t)l);
    const char *fn = cfg_function_name(ly_cfg(p), lp->function);
    if (lp->file)
        snprintf(buf, n, "%s %s:%u-%u%s", fn, lp->file, lp->line_min, lp->line_max,
                 lp->nheaders > 1 ? " (irreducible)" : "");
    else
        snprintf(buf, n, "%s 0x%llx%s", fn, (unsigned long long)lp->header,
                 lp->nheaders > 1 ? " (irreducible)" : "");
}

/* Groups by weight, heaviest first (qsort has no context: a static). */
static const ly_profile *sort_profile;
static int by_group_weight(const void *a, const void *b)
{
    double x = ly_group_at(sort_profile, *(const uint32_t *)a)->w;
    double y = ly_group_at(sort_profile, *(const uint32_t *)b)->w;
    return x > y ? -1 : x < y;
}

static void hot_data(FILE *out, const ly_profile *p, uint32_t top)
{
    char name[256];
    fprintf(out, "\nHot data (l_d, Eq. 1: share of the program's %s)\n",
            metric_name(ly_opts(p)->metric));
    fprintf(out, "  %7s %12s %8s %12s  %s\n", "l_d", "accesses", "objects", "size", "group");
    uint32_t ng = 0, *order = malloc(((size_t)ly_ngroups(p) + 1) * sizeof *order);
    if (!order)
        return;
    for (uint32_t g = 0; g < ly_ngroups(p); g++)
        if (ly_group_at(p, g)->g)
            order[ng++] = g;
    sort_profile = p;
    qsort(order, ng, sizeof *order, by_group_weight);
    for (uint32_t i = 0; i < ng && i < top; i++) {
        const ly_group *g = ly_group_at(p, order[i]);
        fprintf(out, "  %6.1f%% %12llu %8llu %12llu  %s\n", share(p, g->w),
                (unsigned long long)g->n, (unsigned long long)g->objects,
                (unsigned long long)g->max_size, group_name(p, order[i], name, sizeof name));
    }
    free(order);
}

static void hot_objects(FILE *out, const ly_profile *p, uint32_t top)
{
    char name[256];
    fprintf(out, "\nHot objects (l_d per object)\n");
    fprintf(out, "  %7s %12s %12s %18s  %s\n", "l_d", "accesses", "size", "address",
            "group#serial");
    for (uint32_t i = 0; i < ly_nobjects(p) && i < top; i++) {
        const ly_object *o = ly_object_at(p, i);
        fprintf(out, "  %6.1f%% %12llu %12llu %#18llx  %s#%llu\n", share(p, o->w),
                (unsigned long long)o->n, (unsigned long long)o->size,
                (unsigned long long)o->addr, group_name(p, o->group, name, sizeof name),
                (unsigned long long)o->serial);
    }
}

static void splitting(FILE *out, const ly_profile *p)
{
    char name[256];
    fprintf(out, "\nStructure splitting (significant groups, l_d >= %.0f%%)\n",
            100 * ly_opts(p)->hot);
    for (uint32_t i = 0; i < ly_nstructs(p); i++) {
        const ly_struct *st = ly_struct_at(p, i);
        const ly_group *g = ly_group_at(p, st->group);
        group_name(p, st->group, name, sizeof name);
        if (!st->size) {
            fprintf(out, "  %s: l_d %.1f%%, no non-unit stride: a primitive array\n",
                    name, share(p, g->w));
            continue;
        }
        fprintf(out, "  %s: l_d %.1f%%, structure size %llu bytes (Eq. 5), %u field%s%s\n",
                name, share(p, g->w), (unsigned long long)st->size, st->nfields,
                st->nfields == 1 ? "" : "s",
                st->size_mismatch ? "; warning: the size does not divide the object size" : "");
        double fw = 0;
        for (uint32_t f = 0; f < st->nfields; f++)
            fw += st->fields[f].w;
        uint32_t shown = st->nfields <= 16 ? st->nfields : 0;   /* a readable matrix */
        fprintf(out, "    %8s %5s %8s %8s  %s", "offset", "size", "latency", "cluster",
                shown ? "FA (Eq. 7) with each field in turn\n"
                      : "(FA matrix: too wide to print; --db keeps it)\n");
        for (uint32_t f = 0; f < st->nfields; f++) {
            const ly_field *fl = &st->fields[f];
            fprintf(out, "    %8llu %5u %7.1f%% %8d ", (unsigned long long)fl->offset,
                    fl->size, fw > 0 ? 100 * fl->w / fw : 0, fl->cluster);
            for (uint32_t h = 0; h < shown; h++)
                fprintf(out, " %4.2f", st->fa[f * st->nfields + h]);
            fprintf(out, "%s\n", fl->multi ? "  (an access covers the next field too)" : "");
        }
        if (!st->split) {
            fprintf(out, "    no split: the fields form one cluster\n");
            continue;
        }
        fprintf(out, "    advice: split %s (%llu-byte elements) into %u structures:",
                name, (unsigned long long)st->size, st->nclusters);
        for (uint32_t c = 0; c < st->nclusters; c++) {
            fprintf(out, " {");
            const char *sep = "";
            for (uint32_t f = 0; f < st->nfields; f++)
                if (st->fields[f].cluster == (int)c) {
                    fprintf(out, "%s%llu", sep, (unsigned long long)st->fields[f].offset);
                    sep = ",";
                }
            fprintf(out, "}");
        }
        fprintf(out, " (field offsets)\n");
    }
}

static const char *conflict_name(ly_conflict_kind k)
{
    return k == LY_CONFLICT_OFFSET ? "disjoint parts"
         : k == LY_CONFLICT_TIME ? "disjoint times" : "reverse order";
}

static void regrouping(FILE *out, const ly_profile *p)
{
    char name[256], name2[256], ln[256];
    fprintf(out, "\nArray regrouping (significant single-object groups)\n");
    fprintf(out, "  %5s %8s %12s %10s %7s  %s\n", "class", "element", "bytes", "scheme",
            "l_d", "array");
    for (uint32_t a = 0; a < ly_narrays(p); a++) {
        const ly_array *x = ly_array_at(p, a);
        fprintf(out, "  %5d %8llu %12llu %10llu %6.1f%%  %s\n", x->cls,
                (unsigned long long)x->elem, (unsigned long long)x->memsize,
                (unsigned long long)x->scheme, share(p, ly_group_at(p, x->group)->w),
                group_name(p, x->group, name, sizeof name));
    }
    for (uint32_t c = 0; c < ly_nconflicts(p); c++) {
        const ly_conflict *k = ly_conflict_at(p, c);
        loop_name(p, k->loop, ln, sizeof ln);
        fprintf(out, "  conflict (Eq. 10): %s and %s, %s, in loop %s\n",
                group_name(p, ly_array_at(p, k->a)->group, name, sizeof name),
                group_name(p, ly_array_at(p, k->b)->group, name2, sizeof name2),
                conflict_name(k->kind), ln);
    }
    for (uint32_t r = 0; r < ly_nregroups(p); r++) {
        fprintf(out, "  advice %u: interleave", r);
        double aa_min = 1;
        for (uint32_t a = 0; a < ly_narrays(p); a++) {
            if (ly_array_at(p, a)->advice != (int)r)
                continue;
            fprintf(out, " %s", group_name(p, ly_array_at(p, a)->group, name, sizeof name));
            for (uint32_t b = 0; b < ly_narrays(p); b++)
                if (ly_array_at(p, b)->advice == (int)r && ly_aa(p, a, b) < aa_min)
                    aa_min = ly_aa(p, a, b);
        }
        fprintf(out, " into one array of structures (lowest AA, Eq. 11: %.2f)\n", aa_min);
    }
    if (!ly_nregroups(p))
        fprintf(out, "  no regrouping advice\n");
}

static int by_loop_weight(const void *a, const void *b)
{
    double x = ly_loop_weight(sort_profile, *(const int32_t *)a);
    double y = ly_loop_weight(sort_profile, *(const int32_t *)b);
    return x > y ? -1 : x < y;
}

static int by_offset(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A group's fields in one loop, "+OFF" each, once each, by offset: several
 * instructions (one stream each) often touch the same field. */
static void print_fields(FILE *out, uint64_t *fields, size_t n)
{
    if (n == 0)
        return;
    qsort(fields, n, sizeof *fields, by_offset);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || fields[i] != fields[i - 1])
            fprintf(out, "+%llu", (unsigned long long)fields[i]);
}

static void loops(FILE *out, const ly_profile *p, uint32_t top)
{
    char ln[256], name[256];
    uint64_t *fields = NULL;    /* one group's field offsets in the loop */
    size_t fields_cap = 0;
    const cfg *g = ly_cfg(p);
    fprintf(out, "\nLoops by weight (the paper's Tables 6 and 8; inclusive: with nested "
                 "loops and loop-free callees)\n");
    fprintf(out, "  %7s %9s  %-40s %s\n", "share", "inclusive", "loop",
            "fields (group+offset) and arrays");
    uint32_t nl = cfg_nloops(g);
    int32_t *order = malloc(((size_t)nl + 1) * sizeof *order);
    if (!order)
        return;
    for (uint32_t i = 0; i <= nl; i++)
        order[i] = (int32_t)i - 1;      /* -1: outside loops */
    sort_profile = p;
    qsort(order, (size_t)nl + 1, sizeof *order, by_loop_weight);
    for (uint32_t k = 0, shown = 0; k <= nl && shown < top; k++) {
        int32_t l = order[k];
        if (!(ly_loop_weight(p, l) > 0) || share(p, ly_loop_weight(p, l)) < 1)
            continue;
        loop_name(p, l, ln, sizeof ln);
        fprintf(out, "  %6.1f%% %8.1f%%  %-40s", share(p, ly_loop_weight(p, l)),
                share(p, ly_loop_inclusive(p, l)), ln);
        for (uint32_t i = 0; i < ly_nstructs(p); i++) {
            const ly_struct *st = ly_struct_at(p, i);
            int seen_group = 0;
            size_t nfields = 0;
            for (uint32_t s = 0; s < ly_nstreams(p); s++) {
                const ly_stream *x = ly_stream_at(p, s);
                if (x->group != st->group || x->loop != l)
                    continue;
                if (!seen_group) {
                    fprintf(out, " %s", group_name(p, st->group, name, sizeof name));
                    seen_group = 1;
                }
                if (st->size && x->stride > x->max_size &&
                    ARRAY_FIT(fields, fields_cap, nfields + 1) == 0)
                    fields[nfields++] = x->base_off % st->size;
            }
            print_fields(out, fields, nfields);
        }
        fprintf(out, "\n");
        shown++;
    }
    free(fields);
    free(order);
}

static void gains(FILE *out, const ly_profile *p, const ly_replay *r)
{
    char name[256];
    const ly_gain *b = ly_replay_base(r);
    unsigned nl = ly_replay_nlevels(r);
    fprintf(out, "\nPredicted gain (every access replayed through the cache model with the "
                 "advice applied), best first\n");
    fprintf(out, "  %-44s", "layout");
    for (unsigned k = 0; k < nl; k++)
        fprintf(out, " %12s", k == 0 ? "D1 misses" : k + 1 == nl ? "LL misses" : "L2 misses");
    fprintf(out, " %14s %8s\n", "latency", "change");
    fprintf(out, "  %-44s", "as recorded");
    for (unsigned k = 0; k < nl; k++)
        fprintf(out, " %12llu", (unsigned long long)b->misses[k]);
    fprintf(out, " %14.0f\n", b->latency);
    for (uint32_t i = 0; i < ly_replay_ngains(r); i++) {
        const ly_gain *x = ly_replay_gain(r, i);
        char what[300];
        if (x->kind == LY_GAIN_SPLIT)
            snprintf(what, sizeof what, "split %s",
                     group_name(p, ly_struct_at(p, x->which)->group, name, sizeof name));
        else if (x->kind == LY_GAIN_REGROUP)
            snprintf(what, sizeof what, "regrouping advice %u", x->which);
        else
            snprintf(what, sizeof what, "all advice together");
        fprintf(out, "  %-44s", what);
        for (unsigned k = 0; k < nl; k++)
            fprintf(out, " %12llu", (unsigned long long)x->misses[k]);
        fprintf(out, " %14.0f %+7.1f%%%s\n", x->latency,
                b->latency > 0 ? 100 * (x->latency - b->latency) / b->latency : 0,
                x->latency > b->latency ? "  (a predicted loss: not advised)" : "");
    }
}

int ly_report(FILE *out, const ly_profile *p, const ly_replay *r, uint32_t top)
{
    const ly_options *o = ly_opts(p);
    fprintf(out, "%llu accesses weighed by %s%s", (unsigned long long)ly_accesses(p),
            metric_name(o->metric), o->loads_only ? " (loads only)" : "");
    if (o->sample)
        fprintf(out, ", sampled 1 in %llu (random period)", (unsigned long long)o->sample);
    fprintf(out, "; %u loops in %u functions\n", cfg_nloops(ly_cfg(p)),
            cfg_nfunctions(ly_cfg(p)));
    if (r)
        gains(out, p, r);
    hot_data(out, p, top);
    hot_objects(out, p, top < 5 ? top : 5);
    splitting(out, p);
    regrouping(out, p);
    loops(out, p, top);
    return ferror(out) ? -1 : 0;
}
