/*
 * cacheprof.c: the per-access work of trace-cache (cacheprof.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cache/cacheprof.h"
#include "base/array.h"
#include "base/u64map.h"
#include "objects/objrel.h"

struct cacheprof {
    cacheprof_options o;
    cache_sim *sim;
    stackdist *sd;
    objrel *rel;                /* accesses, objects; a cp_insn per instruction */
    unsigned nlevels;
    cache_counts totals;
    uint64_t instructions;
    cp_group *group;            /* by group id */
    size_t ngroup_cap;
    cp_field *field;
    size_t nfield, nfield_cap;
    u64map field_index;         /* (group, offset) key -> index + 1 */
    cp_object *object;
    size_t nobject, nobject_cap;
    int failed;
};

/* The caller's bytes in each objmap record: the object's counts. */
typedef struct obj_extra {
    cache_counts c;
} obj_extra;

/* An object leaves the map: keep its counts if it was accessed. */
static void object_ended(void *ctx, obj_object *o)
{
    cacheprof *p = ctx;
    if (o->group->kind != OBJ_HEAP && o->group->kind != OBJ_STATIC)
        return;
    obj_extra *x = obj_user(o);
    if (!x->c.accesses || p->failed)
        return;
    if (ARRAY_FIT(p->object, p->nobject_cap, p->nobject + 1) < 0) {
        p->failed = 1;
        return;
    }
    cp_object *r = &p->object[p->nobject++];
    r->group = o->group->id;
    r->serial = o->serial;
    r->addr = o->addr;
    r->size = o->size;
    r->c = x->c;
    if (ARRAY_FIT(p->group, p->ngroup_cap, o->group->id + 1) == 0)
        p->group[o->group->id].objects++;
}

cacheprof *cp_new(const cacheprof_options *o)
{
    cacheprof *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->o = *o;
    objmap_options mo = { .group_depth = o->group_depth,
                          .user_size = sizeof(obj_extra),
                          .reader = o->reader, .on_end = object_ended,
                          .ctx = p };
    p->sim = cache_new(&o->cache);
    p->rel = objrel_new(&mo, sizeof(cp_insn));
    if (o->curve_line)
        p->sd = sd_new(o->curve_line, o->rate);
    if (!p->sim || !p->rel || (o->curve_line && !p->sd)) {
        cp_free(p);
        return NULL;
    }
    p->nlevels = cache_nlevels(p->sim);
    return p;
}

void cp_free(cacheprof *p)
{
    if (!p)
        return;
    cache_free(p->sim);
    sd_free(p->sd);
    objrel_free(p->rel);
    free(p->group);
    free(p->field);
    u64map_free(&p->field_index);
    free(p->object);
    free(p);
}

/* Charges one access's result to a set of counts. */
static inline void charge(cache_counts *c, unsigned level, unsigned nlevels,
                          uint32_t latency)
{
    c->accesses++;
    c->latency += latency;
    unsigned top = level < nlevels ? level : nlevels;
    for (unsigned k = 0; k < top; k++)
        c->misses[k]++;
}

static inline void charge_hist(uint64_t *hist, uint64_t d)
{
    if (d != SD_SKIPPED)
        hist[sd_bucket(d)]++;
}

/* The (group, offset) record; NULL when out of memory. */
static cp_field *field_of(cacheprof *p, uint32_t group, uint64_t offset)
{
    /* offsets of heap and static objects stay far below 2^40 */
    uint64_t key = ((uint64_t)group << 40) ^ offset;
    int added;
    void **slot = u64map_slot_of(&p->field_index, key, &added);
    if (!slot)
        return NULL;
    if (added) {
        if (ARRAY_FIT(p->field, p->nfield_cap, p->nfield + 1) < 0)
            return NULL;
        p->field[p->nfield].group = group;
        p->field[p->nfield].offset = offset;
        *slot = (void *)(uintptr_t)++p->nfield;
    }
    return &p->field[(uintptr_t)*slot - 1];
}

/* Data access j of an execution. */
static int data_access(cacheprof *p, const access_exec *x, uint32_t j)
{
    const mr_event *ev = x->ev;
    const mr_access *a = &x->acc[j];
    uint32_t insn = x->insn[j];
    cp_insn *in = objrel_access_user(x, j);
    obj_object *o = objrel_find(p->rel, x, j, a->addr);
    /* A modify is one access, counted with the reads as Cachegrind does
     * (its Dm events go through the Dr helper). */
    unsigned level = cache_access(p->sim, a->addr, a->size,
                                  a->kind == MR_STORE ? CACHE_WRITE : CACHE_READ);
    uint32_t latency = cache_latency(p->sim, level);
    uint64_t d = p->sd ? sd_access(p->sd, a->addr, a->size) : SD_SKIPPED;
    uint32_t gid = o->group->id;
    if (ARRAY_FIT(p->group, p->ngroup_cap, gid + 1) < 0)
        return -1;
    charge(&p->totals, level, p->nlevels, latency);
    charge(&in->c, level, p->nlevels, latency);
    charge(&p->group[gid].c, level, p->nlevels, latency);
    if (p->sd) {
        charge_hist(in->hist, d);
        charge_hist(p->group[gid].hist, d);
    }
    /* Only heap and static records carry our bytes (stack windows and the
     * unknown pseudo-object are objmap's own), and only their offsets are
     * fields. */
    if (o->group->kind == OBJ_HEAP || o->group->kind == OBJ_STATIC) {
        charge(&((obj_extra *)obj_user(o))->c, level, p->nlevels, latency);
        uint64_t off = a->addr - o->addr;
        if (p->o.field_limit && off > p->o.field_limit)
            off = p->o.field_limit;
        cp_field *f = field_of(p, gid, off);
        if (!f)
            return -1;
        charge(&f->c, level, p->nlevels, latency);
    }
    if (p->o.on_access) {
        const mr_instr_def *i = &ev->u.exec.def->instrs[a->instr];
        cp_access r = { .time = ev->time + a->instr, .tid = ev->tid,
                        .pc = i->addr, .insn = insn, .addr = a->addr,
                        .size = a->size, .kind = a->kind, .object = o,
                        .offset = a->addr - o->addr, .level = level,
                        .latency = latency, .distance = d };
        p->o.on_access(p->o.ctx, &r);
    }
    return 0;
}

/* A block execution (x: its accesses, NULL when it made none): fetches
 * (when simulated) interleaved with the data accesses of each
 * instruction. The reader does not batch here: x->repeat is 1. */
static int exec_event(cacheprof *p, const mr_event *ev, const access_exec *x)
{
    const mr_block_def *def = ev->u.exec.def;
    uint32_t n = x ? x->n : 0, j = 0;
    p->instructions += ev->u.exec.ninstrs;
    if (p->o.fetches) {
        for (uint32_t i = 0; i < ev->u.exec.ninstrs; i++) {
            cache_fetch(p->sim, def->instrs[i].addr, def->instrs[i].len);
            for (; j < n && x->acc[j].instr <= i; j++)
                if (data_access(p, x, j))
                    return -1;
        }
    }
    for (; j < n; j++)
        if (data_access(p, x, j))
            return -1;
    return 0;
}

int cp_event(cacheprof *p, const mr_event *ev)
{
    access_exec x;
    int rc = p->failed ? -1 : objrel_event(p->rel, ev, &x);
    if (rc < 0)
        return -1;
    if (ev->kind == MR_EV_EXEC && exec_event(p, ev, rc ? &x : NULL))
        return p->failed = 1, -1;
    return p->failed ? -1 : 0;
}

int cp_finish(cacheprof *p)
{
    objrel_finish(p->rel);
    if (ARRAY_FIT(p->group, p->ngroup_cap, objmap_ngroups(objrel_map(p->rel))) < 0)
        p->failed = 1;
    if (p->sd && sd_failed(p->sd))
        p->failed = 1;
    return p->failed ? -1 : 0;
}

const cache_sim *cp_sim(const cacheprof *p) { return p->sim; }
stackdist *cp_stackdist(const cacheprof *p) { return p->sd; }
const cache_counts *cp_totals(const cacheprof *p) { return &p->totals; }
uint64_t cp_instructions(const cacheprof *p) { return p->instructions; }

static const insn_table *insns_of(const cacheprof *p)
{
    return access_stream_insns(objrel_stream(p->rel));
}

uint32_t cp_ninsns(const cacheprof *p) { return insn_table_count(insns_of(p)); }
const cp_insn *cp_get_insn(const cacheprof *p, uint32_t i)
{
    return objrel_user(p->rel, i);
}
const insn_info *cp_insn_def(const cacheprof *p, uint32_t i)
{
    return insn_table_get(insns_of(p), i);
}

uint32_t cp_ngroups(const cacheprof *p) { return objmap_ngroups(objrel_map(p->rel)); }
const cp_group *cp_get_group(const cacheprof *p, uint32_t id)
{
    return &p->group[id];
}
const obj_group *cp_group_def(const cacheprof *p, uint32_t id)
{
    return objmap_group(objrel_map(p->rel), id);
}

uint64_t cp_nfields(const cacheprof *p) { return p->nfield; }
const cp_field *cp_get_field(const cacheprof *p, uint64_t i) { return &p->field[i]; }
uint64_t cp_nobjects(const cacheprof *p) { return p->nobject; }
const cp_object *cp_get_object(const cacheprof *p, uint64_t i)
{
    return &p->object[i];
}

double cp_hist_miss_ratio(const uint64_t *hist, unsigned k)
{
    uint64_t all = 0, miss = 0;
    for (unsigned b = 0; b < SD_BUCKETS; b++) {
        all += hist[b];
        if (b > k)   /* bucket b >= k+1 holds distances >= 2^k, and cold */
            miss += hist[b];
    }
    return all ? (double)miss / (double)all : -1;
}
