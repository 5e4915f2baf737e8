/* objreport.c: the object profile as text. */
#include "objects/objreport.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "objects/objstore.h"
#include "objects/groupname.h"
#include "base/symbolize.h"

/* A dead object worth listing: a copy, since its record is recycled. */
typedef struct top_object {
    const obj_group *group; /* groups live as long as the map */
    uint64_t serial, addr, size, alloc_time, free_time;
    int freed;
    uint64_t loads, stores, offsets;
} top_object;

/* The report's memory: the hottest dead objects seen so far. */
struct objreport {
    unsigned top;
    top_object *v;          /* the hottest so far, unsorted */
    unsigned n;
};

static uint64_t heat(const top_object *t) { return t->loads + t->stores; }

objreport *objreport_new(unsigned top)
{
    objreport *rep = calloc(1, sizeof *rep);
    if (!rep || !(rep->v = calloc(top ? top : 1, sizeof *rep->v))) {
        free(rep);
        return NULL;
    }
    rep->top = top;
    return rep;
}

void objreport_free(objreport *rep)
{
    if (rep)
        free(rep->v);
    free(rep);
}

void objreport_object(void *ctx, const obj_object *o, const obj_stats *s)
{
    objreport *rep = ctx;
    top_object t = { o->group, o->serial, o->addr, o->size, o->alloc_time,
                     o->free_time, o->freed, s->loads, s->stores,
                     obj_stats_offsets(s) };
    if (!heat(&t) || !rep->top)
        return;
    if (rep->n < rep->top) {
        rep->v[rep->n++] = t;
        return;
    }
    unsigned coldest = 0;
    for (unsigned i = 1; i < rep->n; i++)
        if (heat(&rep->v[i]) < heat(&rep->v[coldest]))
            coldest = i;
    if (heat(&t) > heat(&rep->v[coldest]))
        rep->v[coldest] = t;
}

static int by_heat_desc(const void *a, const void *b)
{
    uint64_t x = heat(a), y = heat(b);
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Group ids ordered by accesses, hottest first. */
static objprof *sort_prof;
static int group_desc(const void *a, const void *b)
{
    objmap *m = objprof_map(sort_prof);
    uint64_t x = objprof_group_stats(sort_prof, objmap_group(m, *(const uint32_t *)a))->accesses;
    uint64_t y = objprof_group_stats(sort_prof, objmap_group(m, *(const uint32_t *)b))->accesses;
    return x < y ? 1 : x > y ? -1 : 0;
}

static const char *kind_word(int kind)
{
    static const char *w[] = { "heap", "static", "stack", "unknown" };
    return w[kind & 3];
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The three hottest offsets of a group, "+8 (60%), +0 (40%)". */
static void hot_offsets(const obj_gstats *gs, char *buf, size_t n)
{
    uint64_t best[3] = { 0 }, cnt[3] = { 0 }, total = 0;
    for (uint64_t b = 0; b < gs->nheat; b++) {
        uint64_t c = gs->heat[b].loads + gs->heat[b].stores;
        total += c;
        for (int k = 0; k < 3; k++)
            if (c > cnt[k]) {
                memmove(&cnt[k + 1], &cnt[k], (2 - k) * sizeof *cnt);
                memmove(&best[k + 1], &best[k], (2 - k) * sizeof *best);
                cnt[k] = c;
                best[k] = b < OBJ_EXACT_OFFSETS
                              ? b
                              : OBJ_EXACT_OFFSETS + (b - OBJ_EXACT_OFFSETS) * OBJ_LINE;
                break;
            }
    }
    size_t used = 0;
    buf[0] = 0;
    if (cnt[0] && pct(cnt[0], total) < 2.0) {
        /* An array walked everywhere: no field stands out. */
        snprintf(buf, n, "spread out (no offset has 2%%)");
        return;
    }
    for (int k = 0; k < 3 && cnt[k]; k++) {
        int w = snprintf(buf + used, n - used, "%s+%" PRIu64 " (%.0f%%)",
                         k ? ", " : "", best[k], pct(cnt[k], total));
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
}

void objreport_print(objreport *rep, objprof *p, const mr_reader *r,
                     const char *trace, FILE *out)
{
    objmap *m = objprof_map(p);
    const objmap_stats *ms = objmap_get_stats(m);
    uint64_t accesses, loads, stores, by_kind[4] = { 0 };
    objprof_totals(p, &accesses, &loads, &stores);
    uint32_t ng = objmap_ngroups(m);
    uint32_t *order = malloc((ng ? ng : 1) * sizeof *order);
    if (!order)
        return;
    for (uint32_t i = 0; i < ng; i++) {
        order[i] = i;
        obj_group *g = objmap_group(m, i);
        by_kind[g->kind] += objprof_group_stats(p, g)->accesses;
    }
    fprintf(out, "Object profile of %s\n", trace);
    if (mr_reader_truncated(r))
        fprintf(out, "  (the trace is truncated: the profile covers the run up to "
                     "where it ends)\n");
    fprintf(out, "  accesses %" PRIu64 " (loads %" PRIu64 ", stores %" PRIu64
                 "; a modify counts as both)\n", accesses, loads, stores);
    fprintf(out, "  heap %.1f%%, static %.1f%%, stack %.1f%%, unknown %.1f%%\n",
            pct(by_kind[0], accesses), pct(by_kind[1], accesses),
            pct(by_kind[2], accesses), pct(by_kind[3], accesses));
    fprintf(out, "  objects: %" PRIu64 " heap, %" PRIu64 " static (at most %" PRIu64
                 " live at once); %u groups\n", ms->heap_objects, ms->static_objects,
            ms->peak_live, ng);
    if (ms->stray_frees || ms->lost_frees)
        fprintf(out, "  frees of unknown blocks %" PRIu64 ", blocks reused "
                     "without a recorded free %" PRIu64 "\n",
                ms->stray_frees, ms->lost_frees);

    sort_prof = p;
    qsort(order, ng, sizeof *order, group_desc);
    fprintf(out, "\nHottest groups (allocation site or symbol)\n");
    fprintf(out, "  %12s %6s %8s %10s  %-7s %-28s %s\n", "accesses", "%",
            "objects", "max size", "kind", "group", "hottest offsets");
    for (uint32_t k = 0; k < ng && k < rep->top; k++) {
        obj_group *g = objmap_group(m, order[k]);
        obj_gstats *gs = objprof_group_stats(p, g);
        if (!gs->accesses)
            break;
        char name[SYM_BUF], offs[128];
        obj_group_name(r, g, name, sizeof name);
        hot_offsets(gs, offs, sizeof offs);
        fprintf(out, "  %12" PRIu64 " %5.1f%% %8" PRIu64 " %10" PRIu64
                     "  %-7s %-28s %s\n", gs->accesses, pct(gs->accesses, accesses),
                g->nobjects, g->max_size, kind_word(g->kind), name, offs);
    }
    free(order);

    qsort(rep->v, rep->n, sizeof *rep->v, by_heat_desc);
    fprintf(out, "\nHottest objects\n");
    fprintf(out, "  %12s %10s %10s %8s %8s  %-28s %s\n", "accesses", "loads",
            "stores", "size", "offsets", "group#object", "lifetime");
    for (unsigned k = 0; k < rep->n; k++) {
        const top_object *t = &rep->v[k];
        char name[SYM_BUF], life[64];
        obj_group_name(r, t->group, name, sizeof name);
        size_t len = strlen(name);
        snprintf(name + len, sizeof name - len, "#%" PRIu64, t->serial);
        if (t->freed)
            snprintf(life, sizeof life, "%" PRIu64 "..%" PRIu64, t->alloc_time,
                     t->free_time);
        else
            snprintf(life, sizeof life, "%" PRIu64 "..never freed", t->alloc_time);
        fprintf(out, "  %12" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
                     " %8" PRIu64 "  %-28s %s\n", heat(t), t->loads, t->stores,
                t->size, t->offsets, name, t->group->kind == OBJ_STATIC ? "static" : life);
    }
}
