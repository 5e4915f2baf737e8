/*
 * replay.c: the advice applied to every access's address and replayed
 * through the cache model (see replay.h).
 */
#include <stdlib.h>
#include <string.h>
#include "layout/replay.h"
#include "objects/objrel.h"

#define REGION(tag) ((uint64_t)(tag) << 44)     /* above any user address */
#define SPLIT_TAG 0x10          /* + cluster */
#define REGROUP_TAG 0x800       /* + regrouping */

struct ly_replay {
    const ly_profile *p;
    objrel *rel;
    uint32_t nsims;             /* [0] unchanged (the analysis pass's figures,
                                 * no model of its own), then the suggestions */
    cache_sim **sims;
    ly_gain *gains;             /* per sim */
    ly_gain **order;            /* suggestions, best first */
    int32_t *split_of;          /* group -> struct index, -1 */
    int32_t *array_of;          /* group -> array index in a regrouping, -1 */
    uint64_t *prefix, *width;   /* per array: its place in its regrouping's
                                 * element, and that element's size */
};

/* The field owning byte f of a structure: the last field at or below it
 * (the first field for bytes before every field). */
static uint32_t owner(const ly_struct *st, uint64_t f)
{
    uint32_t k = 0;
    while (k + 1 < st->nfields && st->fields[k + 1].offset <= f)
        k++;
    return k;
}

uint64_t ly_remap_split(const ly_struct *st, uint64_t base, uint64_t addr)
{
    uint64_t off = addr - base, e = off / st->size, f = off % st->size;
    uint32_t o = owner(st, f);
    const ly_field *of = &st->fields[o];
    int k = of->cluster;
    uint64_t pos = 0, csize = 0;
    for (uint32_t i = 0; i < st->nfields; i++)
        if (st->fields[i].cluster == k) {
            if (i < o)
                pos += st->fields[i].size;
            csize += st->fields[i].size;
        }
    uint64_t d = f >= of->offset ? f - of->offset : f;
    if (of->size && d >= of->size)
        d %= of->size;
    return REGION(SPLIT_TAG + k) + base + e * csize + pos + d;
}

/* Where array `array` of regrouping `advice` sits in the interleaved
 * element (*prefix), and that element's size (*total). */
static void regroup_place(const ly_profile *p, uint32_t advice, uint32_t array,
                          uint64_t *prefix, uint64_t *total)
{
    *prefix = *total = 0;
    for (uint32_t i = 0; i < ly_narrays(p); i++) {
        const ly_array *a = ly_array_at(p, i);
        if (a->advice != (int)advice)
            continue;
        if (i < array)
            *prefix += a->elem;
        *total += a->elem;
    }
}

static uint64_t regroup_addr(uint32_t advice, uint64_t elem, uint64_t prefix,
                             uint64_t total, uint64_t off)
{
    return REGION(REGROUP_TAG + advice) + (off / elem) * total + prefix + off % elem;
}

uint64_t ly_remap_regroup(const ly_profile *p, uint32_t advice, uint32_t array,
                          uint64_t base, uint64_t addr)
{
    uint64_t prefix, total;
    regroup_place(p, advice, array, &prefix, &total);
    return regroup_addr(advice, ly_array_at(p, array)->elem, prefix, total, addr - base);
}

ly_replay *ly_replay_new(const ly_profile *p)
{
    ly_replay *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->p = p;
    uint32_t nsplit = 0, ng = ly_ngroups(p);
    for (uint32_t i = 0; i < ly_nstructs(p); i++)
        nsplit += ly_struct_at(p, i)->split;
    uint32_t nsug = nsplit + ly_nregroups(p);
    r->nsims = 1 + nsug + (nsug > 1);
    objmap_options mo = {ly_opts(p)->group_depth, 0, ly_opts(p)->reader, NULL, NULL};
    r->rel = objrel_new(&mo, 0);
    r->sims = calloc(r->nsims, sizeof *r->sims);
    r->gains = calloc(r->nsims, sizeof *r->gains);
    r->order = calloc(r->nsims, sizeof *r->order);
    r->split_of = malloc(((size_t)ng + 1) * sizeof *r->split_of);
    r->array_of = malloc(((size_t)ng + 1) * sizeof *r->array_of);
    r->prefix = calloc((size_t)ly_narrays(p) + 1, sizeof *r->prefix);
    r->width = calloc((size_t)ly_narrays(p) + 1, sizeof *r->width);
    if (!r->rel || !r->sims || !r->gains || !r->order || !r->split_of || !r->array_of ||
        !r->prefix || !r->width) {
        ly_replay_free(r);
        return NULL;
    }
    for (uint32_t i = 1; i < r->nsims; i++)
        if (!(r->sims[i] = cache_new(&ly_opts(p)->cache))) {
            ly_replay_free(r);
            return NULL;
        }
    for (uint32_t g = 0; g < ng; g++)
        r->split_of[g] = r->array_of[g] = -1;
    uint32_t s = 1;
    r->gains[0].kind = LY_GAIN_ALL;
    for (uint32_t i = 0; i < ly_nstructs(p); i++)
        if (ly_struct_at(p, i)->split) {
            r->split_of[ly_struct_at(p, i)->group] = (int32_t)i;
            r->gains[s++] = (ly_gain){.kind = LY_GAIN_SPLIT, .which = i};
        }
    for (uint32_t a = 0; a < ly_narrays(p); a++)
        if (ly_array_at(p, a)->advice >= 0) {
            r->array_of[ly_array_at(p, a)->group] = (int32_t)a;
            regroup_place(p, (uint32_t)ly_array_at(p, a)->advice, a, &r->prefix[a],
                          &r->width[a]);
        }
    for (uint32_t k = 0; k < ly_nregroups(p); k++)
        r->gains[s++] = (ly_gain){.kind = LY_GAIN_REGROUP, .which = k};
    if (nsug > 1)
        r->gains[s++] = (ly_gain){.kind = LY_GAIN_ALL};
    return r;
}

void ly_replay_free(ly_replay *r)
{
    if (!r)
        return;
    for (uint32_t i = 1; r->sims && i < r->nsims; i++)
        cache_free(r->sims[i]);
    free(r->sims);
    free(r->gains);
    free(r->order);
    free(r->split_of);
    free(r->array_of);
    free(r->prefix);
    free(r->width);
    objrel_free(r->rel);
    free(r);
}

/* The address of an access in sim s's layout. */
static uint64_t remap(const ly_replay *r, uint32_t s, const obj_object *o,
                      uint64_t addr)
{
    const ly_gain *g = &r->gains[s];
    uint32_t gid = o->group->id;
    if (s == 0 || gid >= ly_ngroups(r->p))
        return addr;
    int32_t st = r->split_of[gid], ar = r->array_of[gid];
    if (st >= 0 && (g->kind == LY_GAIN_ALL || (g->kind == LY_GAIN_SPLIT && g->which == (uint32_t)st)))
        return ly_remap_split(ly_struct_at(r->p, (uint32_t)st), o->addr, addr);
    if (ar >= 0) {
        uint32_t adv = (uint32_t)ly_array_at(r->p, (uint32_t)ar)->advice;
        if (g->kind == LY_GAIN_ALL || (g->kind == LY_GAIN_REGROUP && g->which == adv))
            return regroup_addr(adv, ly_array_at(r->p, (uint32_t)ar)->elem, r->prefix[ar],
                                r->width[ar], addr - o->addr);
    }
    return addr;
}

int ly_replay_event(ly_replay *r, const mr_event *ev)
{
    access_exec x;
    int n = objrel_event(r->rel, ev, &x);
    if (n <= 0 || r->nsims == 1)
        return n;               /* nothing to replay: the map only */
    for (uint32_t i = 0; i < x.n; i++) {
        const mr_access *a = &x.acc[i];
        obj_object *o = objrel_find(r->rel, &x, i, a->addr);
        int mapped = o->group->kind == OBJ_HEAP || o->group->kind == OBJ_STATIC;
        cache_op op = a->kind == MR_STORE ? CACHE_WRITE : CACHE_READ;
        uint32_t size = a->size ? a->size : 1;
        mapped = mapped && o->group->id < ly_ngroups(r->p) &&
                 (r->split_of[o->group->id] >= 0 || r->array_of[o->group->id] >= 0);
        for (uint32_t s = 1; s < r->nsims; s++) {
            uint64_t addr = mapped ? remap(r, s, o, a->addr) : a->addr;
            unsigned level = cache_access(r->sims[s], addr, size, op);
            r->gains[s].latency += cache_latency(r->sims[s], level);
        }
    }
    return 0;
}

static int by_latency(const void *a, const void *b)
{
    const ly_gain *x = *(ly_gain *const *)a, *y = *(ly_gain *const *)b;
    return x->latency < y->latency ? -1 : x->latency > y->latency;
}

void ly_replay_finish(ly_replay *r)
{
    objrel_finish(r->rel);
    unsigned nl = ly_replay_nlevels(r);
    for (unsigned k = 0; k < nl && k < CACHE_MAX_LEVELS; k++)
        r->gains[0].misses[k] = ly_misses(r->p, k);
    r->gains[0].latency = ly_latency(r->p);
    for (uint32_t s = 1; s < r->nsims; s++)
        for (unsigned k = 0; k < nl && k < CACHE_MAX_LEVELS; k++) {
            const cache_level_stats *st = cache_stats(r->sims[s], k);
            r->gains[s].misses[k] = st->misses[CACHE_READ] + st->misses[CACHE_WRITE];
        }
    for (uint32_t s = 1; s < r->nsims; s++)
        r->order[s - 1] = &r->gains[s];
    if (r->nsims > 1)
        qsort(r->order, r->nsims - 1, sizeof *r->order, by_latency);
}

const ly_gain *ly_replay_base(const ly_replay *r) { return &r->gains[0]; }
uint32_t ly_replay_ngains(const ly_replay *r) { return r->nsims - 1; }
const ly_gain *ly_replay_gain(const ly_replay *r, uint32_t i) { return r->order[i]; }
unsigned ly_replay_nlevels(const ly_replay *r)
{
    return ly_opts(r->p)->cache.nlevels;
}

ly_replay *ly_replay_file(const ly_profile *p, const char *path, char **err)
{
    *err = NULL;
    ly_replay *r = ly_replay_new(p);
    if (!r)
        return NULL;
    if (ly_replay_ngains(r)) {
        mr_reader *in = mr_reader_open(path, err);
        mr_event ev;
        if (!in) {
            ly_replay_free(r);
            return NULL;
        }
        /* a truncated trace ends where the analysis pass's did */
        while (mr_next(in, &ev) > 0)
            if (ly_replay_event(r, &ev) < 0) {
                mr_reader_close(in);
                ly_replay_free(r);
                return NULL;
            }
        mr_reader_close(in);
    }
    ly_replay_finish(r);
    return r;
}
