/*
 * cachereport.c: trace-cache's text output (cachereport.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cachereport.h"
#include "algo/cache_config.h"
#include "base/array.h"
#include "base/symbolize.h"
#include "objects/groupname.h"

struct cr_names {
    const mr_reader *r;
    char **name;        /* by group id, made on first use */
    size_t cap;
};

cr_names *cr_names_new(const mr_reader *r)
{
    cr_names *n = calloc(1, sizeof *n);
    if (n)
        n->r = r;
    return n;
}

void cr_names_free(cr_names *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->cap; i++)
        free(n->name[i]);
    free(n->name);
    free(n);
}

const char *cr_group_name(cr_names *n, const obj_group *g)
{
    if (ARRAY_FIT(n->name, n->cap, g->id + 1) < 0)
        return NULL;
    if (!n->name[g->id]) {
        char buf[SYM_BUF];
        obj_group_name(n->r, g, buf, sizeof buf);
        n->name[g->id] = strdup(buf);
    }
    return n->name[g->id];
}

const char *cr_level_name(const cache_sim *sim, unsigned level)
{
    const cache_config *cfg = cache_get_config(sim);
    return level < cfg->nlevels ? cfg->level[level].name : "mem";
}

static double pct(uint64_t part, uint64_t all)
{
    return all ? 100.0 * (double)part / (double)all : 0;
}

/* The per-level lines: accesses, misses, miss rate, and the split. */
static void print_levels(FILE *out, const cacheprof *p)
{
    const cache_sim *sim = cp_sim(p);
    const cache_config *cfg = cache_get_config(sim);
    fprintf(out, "%-4s %14s %12s %8s %14s %12s %14s %12s\n", "", "accesses",
            "misses", "miss%", "fetches", "fetch-miss", "data", "data-miss");
    for (int k = -1; k < (int)cfg->nlevels; k++) {
        if (k < 0 && !cfg->i1.size)
            continue;
        const cache_level_stats *st = k < 0 ? cache_i1_stats(sim)
                                            : cache_stats(sim, (unsigned)k);
        uint64_t acc = 0, miss = 0;
        for (int op = 0; op < CACHE_NOPS; op++) {
            acc += st->accesses[op];
            miss += st->misses[op];
        }
        uint64_t dacc = st->accesses[CACHE_READ] + st->accesses[CACHE_WRITE];
        uint64_t dmiss = st->misses[CACHE_READ] + st->misses[CACHE_WRITE];
        fprintf(out, "%-4s %14" PRIu64 " %12" PRIu64 " %7.3f%% %14" PRIu64
                " %12" PRIu64 " %14" PRIu64 " %12" PRIu64 "\n",
                k < 0 ? cfg->i1.name : cfg->level[k].name, acc, miss,
                pct(miss, acc), st->accesses[CACHE_FETCH],
                st->misses[CACHE_FETCH], dacc, dmiss);
    }
}

/* Sorting records by latency, most first. */
typedef struct ranked {
    uint64_t key;
    uint64_t index;
} ranked;

static int by_key_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void print_counts(FILE *out, const cache_counts *c, unsigned nlevels)
{
    fprintf(out, "%12" PRIu64 " %7.2f%% %7.2f%% %8.2f", c->accesses,
            pct(c->misses[0], c->accesses),
            pct(c->misses[nlevels - 1], c->accesses),
            c->accesses ? (double)c->latency / (double)c->accesses : 0);
}

static const char counts_head[] = "    accesses   L1miss%  LLmiss%  avg-lat";

static void worst_instructions(FILE *out, const cacheprof *p,
                               const mr_reader *r, unsigned top, ranked *rk)
{
    static const char kinds[] = "?LSM";
    unsigned nl = cache_nlevels(cp_sim(p));
    uint32_t n = cp_ninsns(p), m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (cp_get_insn(p, i)->c.accesses)
            rk[m++] = (ranked){ cp_get_insn(p, i)->c.latency, i };
    qsort(rk, m, sizeof *rk, by_key_desc);
    fprintf(out, "\nWorst instructions by latency (of %" PRIu32 "):\n"
            "%12s %-4s%s %14s  %s\n", m, "pc", "kind", counts_head,
            "latency", "where");
    for (uint32_t i = 0; i < m && i < top; i++) {
        const insn_info *d = cp_insn_def(p, (uint32_t)rk[i].index);
        const cp_insn *in = cp_get_insn(p, (uint32_t)rk[i].index);
        char where[SYM_BUF];
        fprintf(out, "%12" PRIx64 " %c%-3u", d->addr, kinds[d->kind & 3], d->size);
        print_counts(out, &in->c, nl);
        fprintf(out, " %14" PRIu64 "  %s\n", in->c.latency,
                sym_where(r, d->addr, where, sizeof where));
    }
}

static int worst_groups(FILE *out, const cacheprof *p, cr_names *names,
                        unsigned top, ranked *rk)
{
    unsigned nl = cache_nlevels(cp_sim(p));
    uint32_t n = cp_ngroups(p), m = 0;
    for (uint32_t g = 0; g < n; g++)
        if (cp_get_group(p, g)->c.accesses)
            rk[m++] = (ranked){ cp_get_group(p, g)->c.latency, g };
    qsort(rk, m, sizeof *rk, by_key_desc);
    fprintf(out, "\nWorst groups by latency (of %" PRIu32 "):\n%5s %8s%s %14s  %s\n",
            m, "group", "objects", counts_head, "latency", "name");
    for (uint32_t i = 0; i < m && i < top; i++) {
        const cp_group *g = cp_get_group(p, (uint32_t)rk[i].index);
        const char *name = cr_group_name(names, cp_group_def(p, (uint32_t)rk[i].index));
        if (!name)
            return -1;
        fprintf(out, "%5" PRIu64 " %8" PRIu64, rk[i].index, g->objects);
        print_counts(out, &g->c, nl);
        fprintf(out, " %14" PRIu64 "  %s\n", g->c.latency, name);
    }
    return 0;
}

static int worst_objects(FILE *out, const cacheprof *p, cr_names *names,
                         unsigned top)
{
    unsigned nl = cache_nlevels(cp_sim(p));
    uint64_t n = cp_nobjects(p);
    ranked *rk = malloc((n ? n : 1) * sizeof *rk);
    if (!rk)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        rk[i] = (ranked){ cp_get_object(p, i)->c.latency, i };
    qsort(rk, n, sizeof *rk, by_key_desc);
    fprintf(out, "\nWorst objects by latency (of %" PRIu64 "):\n%-12s %10s%s %14s  %s\n",
            n, "group#serial", "size", counts_head, "latency", "group name");
    for (uint64_t i = 0; i < n && i < top; i++) {
        const cp_object *o = cp_get_object(p, rk[i].index);
        const char *name = cr_group_name(names, cp_group_def(p, o->group));
        if (!name) {
            free(rk);
            return -1;
        }
        char id[40];
        snprintf(id, sizeof id, "%" PRIu32 "#%" PRIu64, o->group, o->serial);
        fprintf(out, "%-12s %10" PRIu64, id, o->size);
        print_counts(out, &o->c, nl);
        fprintf(out, " %14" PRIu64 "  %s\n", o->c.latency, name);
    }
    free(rk);
    return 0;
}

static void print_curve(FILE *out, const cacheprof *p)
{
    stackdist *sd = cp_stackdist(p);
    if (!sd)
        return;
    fprintf(out, "\nMiss-ratio curve, fully associative LRU (%s, %" PRIu64
            " distinct lines%s):\n%12s %14s %10s\n",
            sd_rate(sd) < 1 ? "SHARDS-sampled" : "exact", sd_distinct(sd),
            sd_rate(sd) < 1 ? " sampled" : "", "lines", "bytes", "miss%");
    uint64_t max = sd_max_lines(sd);
    uint32_t lb = sd_line_bytes(sd);
    uint64_t lines = 1;
    while ((double)lines * sd_rate(sd) < 1)   /* below 1/R lines: unknown */
        lines *= 2;
    for (;; lines *= 2) {
        fprintf(out, "%12" PRIu64 " %14" PRIu64 " %9.3f%%\n", lines,
                lines * lb, 100 * sd_miss_ratio(sd, lines));
        if (lines >= max)
            break;
    }
}

int cr_report(FILE *out, const cacheprof *p, const mr_reader *r, cr_names *names,
              unsigned top)
{
    char desc[1024];
    const cache_sim *sim = cp_sim(p);
    const cache_counts *t = cp_totals(p);
    fprintf(out, "Cache: %s\n\n", cache_config_describe(cache_get_config(sim),
                                                        desc, sizeof desc));
    print_levels(out, p);
    fprintf(out, "\ninstructions executed %" PRIu64 "; data accesses %" PRIu64
            "; latency %" PRIu64 " cycles (%.2f per access)\n",
            cp_instructions(p), t->accesses, t->latency,
            t->accesses ? (double)t->latency / (double)t->accesses : 0);
    size_t n = cp_ninsns(p) > cp_ngroups(p) ? cp_ninsns(p) : cp_ngroups(p);
    ranked *rk = malloc((n ? n : 1) * sizeof *rk);
    if (!rk)
        return -1;
    worst_instructions(out, p, r, top, rk);
    int rc = worst_groups(out, p, names, top, rk);
    free(rk);
    if (rc || worst_objects(out, p, names, top))
        return -1;
    print_curve(out, p);
    return ferror(out) ? -1 : 0;
}

void cr_access_header(FILE *out)
{
    fputs("# time\ttid\tpc\tkind\tsize\taddress\tlevel\tlatency\tdistance"
          "\tgroup\tobject\toffset\n", out);
}

void cr_access_line(FILE *out, const cache_sim *sim, cr_names *n,
                    const cp_access *a)
{
    static const char kinds[] = "?LSM";
    char dist[24];
    if (a->distance == SD_COLD)
        strcpy(dist, "cold");
    else if (a->distance == SD_SKIPPED)
        strcpy(dist, "-");
    else
        snprintf(dist, sizeof dist, "%" PRIu64, a->distance);
    const char *g = cr_group_name(n, a->object->group);
    fprintf(out, "%" PRIu64 "\t%" PRIu32 "\t0x%" PRIx64 "\t%c\t%" PRIu32
            "\t0x%" PRIx64 "\t%s\t%" PRIu32 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n",
            a->time, a->tid, a->pc, kinds[a->kind & 3], a->size, a->addr,
            cr_level_name(sim, a->level), a->latency, dist, g ? g : "?",
            a->object->serial, a->offset);
}
