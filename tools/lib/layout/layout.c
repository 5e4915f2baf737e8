/*
 * layout.c: gathering streams with their weights, then LWPTool's analyses
 * (see layout.h and docs/trace-layout.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout.h"
#include "objects/objrel.h"
#include "base/array.h"
#include "base/u64map.h"

/* Per static instruction: the stream it fed last (most instructions touch
 * one group), to skip the map. */
typedef struct ly_insn {
    uint32_t group1;            /* group id + 1 of that stream, 0: none */
    uint32_t stream;
} ly_insn;

/* Per object: whether an access reached it (its lifetime then counts). */
typedef struct ly_obj {
    double w;                   /* its accesses' weight */
    uint64_t n;
    uint8_t touched;
} ly_obj;

/* Per (array, loop): Eq. 9's interval, times and direction. */
typedef struct ly_span {
    double w, o_min, o_max, o_tmin, o_tmax;
    uint64_t t_min, t_max, n;
} ly_span;

/* A group's window in the current instance of a loop (pitfall 11). */
typedef struct ly_window {
    uint32_t group;
    uint64_t t_first, t_last;
} ly_window;

/* The current instance of a loop: the groups it touched so far. */
typedef struct ly_inst {
    ly_window *w;
    size_t n, cap;
} ly_inst;

/* Two groups in the instances of one loop: how often their windows were
 * disjoint, and how often they overlapped. */
typedef struct ly_pair {
    uint64_t disjoint, overlap;
} ly_pair;

struct ly_profile {
    ly_options o;
    objrel *rel;
    cache_sim *cache;
    const cfg *g;               /* the caller's, from a first pass */
    int32_t *block_loop;        /* per block id: innermost loop + 1, 0 unknown */
    size_t blcap;
    u64map threads;             /* tid -> the loop its last block was in, + 2 */
    ly_inst *inst;              /* per loop: the groups of its current instance */
    u64map pairs;               /* (loop, group a, group b) -> ly_pair * */
    ly_stream *streams;
    size_t nstreams, scap;
    u64map stream_of;           /* insn << 32 | group -> stream + 1 */
    ly_group *groups;
    size_t gcap;
    uint32_t ngroups;
    double total;
    double latency;             /* of every access, whatever the metric */
    uint64_t weighed;
    uint64_t countdown, rng;    /* sampling */
    ly_struct *structs;
    size_t nstructs, stcap;
    ly_array *arrays;
    size_t narrays, acap;
    ly_conflict *conflicts;
    size_t nconflicts, ccap;
    double *aa;                 /* narrays x narrays */
    uint32_t nregroups;
    double *loop_w;             /* nloops + 1: [0] is outside loops */
    double *loop_incl;          /* the same, inclusive: nested loops and
                                 * loop-free callees counted too */
    cfg_ctx *ctx;               /* the call stacks, for loop_incl */
    int32_t caller_loop;        /* the current execution's caller loop */
    ly_object top[LY_TOP_OBJECTS];  /* the heaviest objects that ended */
    uint32_t ntop;
};

uint64_t ly_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---- sampling: geometric gaps of mean N (a fixed period aliases with
 * loops, pitfall 6.1.5) ---- */
static uint64_t next_rand(ly_profile *p)
{
    p->rng ^= p->rng << 13;
    p->rng ^= p->rng >> 7;
    p->rng ^= p->rng << 17;
    return p->rng;
}

static uint64_t next_gap(ly_profile *p)
{
    double u = ((next_rand(p) >> 11) + 0.5) / 9007199254740992.0;
    double gap = ceil(-log(u) * (double)p->o.sample);
    return gap < 1 ? 1 : (uint64_t)gap;
}

/* Keeps o among the heaviest objects (replacing the lightest when full). */
static void keep_top(ly_profile *p, const obj_object *o, const ly_obj *lo)
{
    uint32_t slot = p->ntop;
    if (p->ntop == LY_TOP_OBJECTS) {
        slot = 0;
        for (uint32_t i = 1; i < p->ntop; i++)
            if (p->top[i].w < p->top[slot].w)
                slot = i;
        if (p->top[slot].w >= lo->w)
            return;
    } else {
        p->ntop++;
    }
    p->top[slot] = (ly_object){o->group->id, o->serial, o->addr, o->size, lo->w, lo->n};
}

static void on_end(void *ctx, obj_object *o)
{
    ly_profile *p = ctx;
    if (!((ly_obj *)obj_user(o))->touched || o->group->id >= p->ngroups)
        return;
    keep_top(p, o, obj_user(o));
    ly_group *g = &p->groups[o->group->id];
    uint64_t end = o->freed ? o->free_time : UINT64_MAX;
    if (end > g->life_end)
        g->life_end = end;
}

ly_profile *ly_new(const ly_options *opts, const cfg *g)
{
    ly_profile *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->o = *opts;
    objmap_options mo = {opts->group_depth, sizeof(ly_obj), opts->reader, on_end, p};
    p->rel = objrel_new(&mo, sizeof(ly_insn));
    p->cache = cache_new(&opts->cache);
    p->g = g;
    p->inst = calloc((size_t)cfg_nloops(g) + 1, sizeof *p->inst);
    p->loop_incl = calloc((size_t)cfg_nloops(g) + 1, sizeof *p->loop_incl);
    p->ctx = cfg_ctx_new(g);
    p->rng = opts->seed * 2654435761u + 88172645463325252ULL;
    if (!p->rel || !p->cache || !p->inst || !p->loop_incl || !p->ctx) {
        ly_free(p);
        return NULL;
    }
    if (p->o.sample)
        p->countdown = next_gap(p);
    return p;
}

void ly_free(ly_profile *p)
{
    if (!p)
        return;
    objrel_free(p->rel);
    cache_free(p->cache);
    for (uint32_t l = 0; p->inst && l < cfg_nloops(p->g); l++)
        free(p->inst[l].w);
    free(p->inst);
    free(p->block_loop);
    free(p->loop_incl);
    cfg_ctx_free(p->ctx);
    u64map_free(&p->threads);
    for (size_t i = 0; i < p->pairs.cap; i++)
        if (p->pairs.slots[i].used)
            free(p->pairs.slots[i].value);
    u64map_free(&p->pairs);
    free(p->streams);
    u64map_free(&p->stream_of);
    free(p->groups);
    for (size_t i = 0; i < p->nstructs; i++) {
        free(p->structs[i].fields);
        free(p->structs[i].fa);
    }
    free(p->structs);
    free(p->arrays);
    free(p->conflicts);
    free(p->aa);
    free(p->loop_w);
    free(p);
}

static ly_stream *stream_for(ly_profile *p, ly_insn *in, uint32_t insn,
                             uint32_t group, uint64_t pc)
{
    if (in->group1 == group + 1)
        return &p->streams[in->stream];
    int added;
    void **slot = u64map_slot_of(&p->stream_of, (uint64_t)insn << 32 | group, &added);
    if (!slot)
        return NULL;
    if (added) {
        if (ARRAY_FIT(p->streams, p->scap, p->nstreams + 1) < 0)
            return NULL;
        ly_stream *s = &p->streams[p->nstreams];
        s->insn = insn;
        s->group = group;
        s->pc = pc;
        s->loop = cfg_loop_of(p->g, pc);
        s->min_size = UINT32_MAX;
        *slot = (void *)(uintptr_t)++p->nstreams;
    }
    in->group1 = group + 1;
    in->stream = (uint32_t)((uintptr_t)*slot - 1);
    return &p->streams[in->stream];
}

static ly_group *group_for(ly_profile *p, obj_group *og)
{
    if (ARRAY_FIT(p->groups, p->gcap, (size_t)og->id + 1) < 0)
        return NULL;
    if (og->id >= p->ngroups)
        p->ngroups = og->id + 1;
    ly_group *g = &p->groups[og->id];
    if (!g->g) {
        g->g = og;
        g->first_t = UINT64_MAX;
        g->life_start = UINT64_MAX;
    }
    return g;
}

static int in_instance(ly_profile *p, int32_t l, uint32_t gid, uint64_t t);

/* One weighed access to a heap or static object. */
static int record(ly_profile *p, const access_exec *x, uint32_t i, obj_object *o,
                  double w)
{
    ly_group *g = group_for(p, o->group);
    ly_obj *lo = obj_user(o);
    const mr_access *a = &x->acc[i];
    uint64_t off = a->addr - o->addr, t = access_time(x, i, 0);
    ly_stream *s = stream_for(p, objrel_access_user(x, i), x->insn[i], o->group->id,
                              x->ev->u.exec.def->instrs[a->instr].addr);
    if (!g || !s)
        return -1;
    if (!lo->touched) {
        lo->touched = 1;
        g->objects++;
        if (o->alloc_time < g->life_start)
            g->life_start = o->alloc_time;
    }
    if (o->size > g->max_size)
        g->max_size = o->size;
    g->w += w;
    g->n++;
    lo->w += w;
    lo->n++;
    if (t < g->first_t)
        g->first_t = t;
    g->last_t = t;
    double rel = o->size ? (double)off / (double)o->size : 0;
    if (!s->n) {
        s->kind = a->kind;
        s->base_off = off;
        s->o_min = s->o_max = s->o_tmin = rel;
        s->t_min = t;
        s->prev_off = off;
    } else if (off - s->prev_off != s->step) {
        /* a new step: the gcd may shrink (the same step again cannot
         * change it: the stride divides the last distance and the step) */
        s->step = off - s->prev_off;
        s->stride = ly_gcd(s->stride, off > s->base_off ? off - s->base_off
                                                        : s->base_off - off);
    }
    s->prev_off = off;
    s->n++;
    s->w += w;
    if (a->size < s->min_size)
        s->min_size = a->size;
    if (a->size > s->max_size)
        s->max_size = a->size;
    if (rel < s->o_min)
        s->o_min = rel;
    if (rel > s->o_max)
        s->o_max = rel;
    s->t_max = t;
    s->o_tmax = rel;
    /* inclusive: its own loop and the enclosing ones, or through the call
     * stack the loop it was called from */
    int32_t incl = s->loop >= 0 ? s->loop : p->caller_loop;
    p->loop_incl[incl + 1] += w;
    for (int32_t l = incl; l >= 0 && (l = cfg_loop_at(p->g, (uint32_t)l)->parent) >= 0;)
        p->loop_incl[l + 1] += w;
    return s->loop >= 0 ? in_instance(p, s->loop, o->group->id, t) : 0;
}

/* Ends the current instance of loop l: every pair of groups it touched
 * counts as disjoint or overlapping in time. */
static int flush_instance(ly_profile *p, int32_t l)
{
    ly_inst *in = &p->inst[l];
    for (size_t a = 0; a < in->n; a++)
        for (size_t b = 0; b < in->n; b++) {
            const ly_window *x = &in->w[a], *y = &in->w[b];
            if (x->group >= y->group || x->t_first == x->t_last ||
                y->t_first == y->t_last)
                continue;       /* one access is no window: it has no order */
            uint64_t key = (uint64_t)l << 40 ^ (uint64_t)x->group << 20 ^ y->group;
            int added;
            void **slot = u64map_slot_of(&p->pairs, key, &added);
            if (!slot || (added && !(*slot = calloc(1, sizeof(ly_pair)))))
                return -1;
            ly_pair *pr = *slot;
            if (x->t_last < y->t_first || y->t_last < x->t_first)
                pr->disjoint++;
            else
                pr->overlap++;
        }
    in->n = 0;
    return 0;
}

/* Follows the thread into the loop of the block it runs: every loop
 * entered from outside starts a new instance. */
static int enter_block(ly_profile *p, const mr_event *ev)
{
    const mr_block_def *def = ev->u.exec.def;
    if (ARRAY_FIT(p->block_loop, p->blcap, (size_t)def->id + 1) < 0)
        return -1;
    if (!p->block_loop[def->id])
        p->block_loop[def->id] = cfg_loop_of(p->g, def->addr) + 2;
    int32_t now = p->block_loop[def->id] - 2;
    int added;
    void **slot = u64map_slot_of(&p->threads, ev->tid, &added);
    if (!slot)
        return -1;
    int32_t before = added ? -1 : (int32_t)(uintptr_t)*slot - 2;
    *slot = (void *)(uintptr_t)(now + 2);
    if (now == before)
        return 0;
    for (int32_t l = now; l >= 0 && !cfg_loop_within(p->g, before, l);
         l = cfg_loop_at(p->g, (uint32_t)l)->parent)
        if (flush_instance(p, l) < 0)
            return -1;
    return 0;
}

/* The access at time t to group gid in loop l, for the instance windows. */
static int in_instance(ly_profile *p, int32_t l, uint32_t gid, uint64_t t)
{
    ly_inst *in = &p->inst[l];
    for (size_t i = in->n; i-- > 0;)
        if (in->w[i].group == gid) {
            in->w[i].t_last = t;
            return 0;
        }
    if (ARRAY_FIT(in->w, in->cap, in->n + 1) < 0)
        return -1;
    in->w[in->n++] = (ly_window){gid, t, t};
    return 0;
}

int ly_event(ly_profile *p, const mr_event *ev)
{
    if (ev->kind == MR_EV_EXEC && ev->u.exec.ninstrs && enter_block(p, ev) < 0)
        return -1;
    access_exec x;
    int n = objrel_event(p->rel, ev, &x);
    if (n <= 0)
        return n < 0 || cfg_ctx_event(p->ctx, ev) < 0 ? -1 : 0;
    p->caller_loop = cfg_ctx_caller_loop(p->ctx, ev->tid);
    for (uint32_t i = 0; i < x.n; i++) {
        const mr_access *a = &x.acc[i];
        unsigned level = cache_access(p->cache, a->addr, a->size ? a->size : 1,
                                      a->kind == MR_STORE ? CACHE_WRITE : CACHE_READ);
        p->latency += cache_latency(p->cache, level);
        if (p->o.loads_only && a->kind == MR_STORE)
            continue;           /* PEBS-LL sees loads; modifies load too */
        if (p->o.sample && --p->countdown)
            continue;
        if (p->o.sample)
            p->countdown = next_gap(p);
        double w = p->o.metric == LY_LATENCY ? cache_latency(p->cache, level)
                 : p->o.metric == LY_MISSES ? (level > 0) : 1;
        p->total += w;
        p->weighed++;
        obj_object *o = objrel_find(p->rel, &x, i, a->addr);
        if ((o->group->kind == OBJ_HEAP || o->group->kind == OBJ_STATIC) &&
            record(p, &x, i, o, w) < 0)
            return -1;
    }
    return cfg_ctx_event(p->ctx, ev);   /* a call's accesses are the caller's */
}

/* ---- structure splitting ---------------------------------------------------- */

/* Does stream s define a field (Eq. 5's rules): a non-unit, non-zero
 * stride, and at least min_n accesses (an outlier stream of a few
 * accesses, a loop-invariant index stepping with an outer loop, would
 * otherwise drag the gcd to its own stride). */
static int defines_field(const ly_stream *s, uint64_t min_n)
{
    return s->stride > s->max_size && s->n >= min_n;
}

uint64_t ly_struct_size(const ly_stream *const *s, uint32_t n, uint64_t min_n)
{
    uint64_t size = 0;
    for (uint32_t i = 0; i < n; i++)
        if (defines_field(s[i], min_n))
            size = ly_gcd(size, s[i]->stride);
    return size;
}

uint32_t ly_cluster(uint32_t n, const double *aff, const uint8_t *forbid,
                    double tau, int *cluster)
{
    for (uint32_t i = 0; i < n; i++)
        cluster[i] = (int)i;
    for (;;) {
        /* the two clusters of highest average affinity, if >= tau */
        double best = -1;
        int ba = -1, bb = -1;
        for (uint32_t a = 0; a < n; a++) {
            if (cluster[a] != (int)a)
                continue;       /* a cluster is named by its first item */
            for (uint32_t b = a + 1; b < n; b++) {
                if (cluster[b] != (int)b)
                    continue;
                double sum = 0;
                uint32_t pairs = 0;
                int banned = 0;
                for (uint32_t i = 0; i < n; i++)
                    for (uint32_t j = 0; j < n; j++)
                        if (cluster[i] == (int)a && cluster[j] == (int)b) {
                            sum += aff[i * n + j];
                            pairs++;
                            banned |= forbid && forbid[i * n + j];
                        }
                if (!banned && pairs && sum / pairs > best) {
                    best = sum / pairs;
                    ba = (int)a;
                    bb = (int)b;
                }
            }
        }
        if (ba < 0 || best < tau)
            break;
        for (uint32_t i = 0; i < n; i++)
            if (cluster[i] == bb)
                cluster[i] = ba;
    }
    /* renumber 0.. in order of first member */
    int *map = malloc((size_t)n * sizeof *map + 1);
    uint32_t k = 0;
    if (!map)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        map[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (map[cluster[i]] < 0)
            map[cluster[i]] = (int)k++;
        cluster[i] = map[cluster[i]];
    }
    free(map);
    return k;
}

void ly_affinity(uint32_t nl, uint32_t n, const double *w, double presence,
                 double *aff)
{
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            double ta = 0, tb = 0, common = 0;
            for (uint32_t l = 0; l < nl; l++) {
                ta += w[(size_t)l * n + a];
                tb += w[(size_t)l * n + b];
            }
            /* per-item numerators (pitfall 8): both items' weight in the
             * loops where both are present; slot 0 (outside loops) only in
             * the denominator */
            for (uint32_t l = 1; l < nl; l++) {
                double wa = w[(size_t)l * n + a], wb = w[(size_t)l * n + b];
                if (wa > 0 && wb > 0 && wa >= presence * ta && wb >= presence * tb)
                    common += wa + wb;
            }
            aff[(size_t)a * n + b] = a == b ? 1 : ta + tb > 0 ? common / (ta + tb) : 0;
        }
}

static int cmp_field(const void *a, const void *b)
{
    const ly_field *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Loop slot of a stream's loop: 0 outside loops, l + 1 otherwise. */
static uint32_t slot_of(int32_t loop) { return (uint32_t)(loop + 1); }

/* Fields, affinities and clusters of group gid, whose streams are ss[]. */
static int analyse_struct(ly_profile *p, uint32_t gid, ly_stream **ss, uint32_t n)
{
    uint64_t min_n = (uint64_t)ceil(p->o.presence * (double)p->groups[gid].n);
    uint64_t size = ly_struct_size((const ly_stream *const *)ss, n, min_n);
    if (ARRAY_FIT(p->structs, p->stcap, p->nstructs + 1) < 0)
        return -1;
    ly_struct *st = &p->structs[p->nstructs++];
    memset(st, 0, sizeof *st);
    st->group = gid;
    st->size = size;
    if (!size)
        return 0;
    st->size_mismatch = p->groups[gid].max_size % size != 0;
    size_t fcap = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!defines_field(ss[i], min_n))
            continue;
        uint64_t off = ss[i]->base_off % size;
        uint32_t f = 0;
        while (f < st->nfields && st->fields[f].offset != off)
            f++;
        if (f == st->nfields) {
            if (ARRAY_FIT(st->fields, fcap, st->nfields + 1) < 0)
                return -1;
            st->fields[st->nfields++] = (ly_field){off, 0, 0, 0, 0};
        }
        if (ss[i]->max_size > st->fields[f].size)
            st->fields[f].size = ss[i]->max_size;
    }
    qsort(st->fields, st->nfields, sizeof *st->fields, cmp_field);
    uint32_t nf = st->nfields, nl = cfg_nloops(p->g) + 1;
    for (uint32_t f = 0; f < nf; f++)      /* pitfall 3: a vector over fields */
        for (uint32_t h = 0; h < nf; h++)
            if (st->fields[h].offset > st->fields[f].offset &&
                st->fields[h].offset < st->fields[f].offset + st->fields[f].size)
                st->fields[f].multi = 1;
    /* per (loop, field) weights */
    double *lw = calloc((size_t)nl * nf + 1, sizeof *lw);
    st->fa = calloc((size_t)nf * nf + 1, sizeof *st->fa);
    int *cl = malloc(((size_t)nf + 1) * sizeof *cl);
    if (!lw || !st->fa || !cl) {
        free(lw);
        free(cl);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!defines_field(ss[i], min_n))
            continue;
        uint64_t off = ss[i]->base_off % size;
        uint32_t f = 0;
        while (st->fields[f].offset != off)
            f++;
        st->fields[f].w += ss[i]->w;
        lw[(size_t)slot_of(ss[i]->loop) * nf + f] += ss[i]->w;
    }
    ly_affinity(nl, nf, lw, p->o.presence, st->fa);
    st->nclusters = ly_cluster(nf, st->fa, NULL, p->o.tau, cl);
    for (uint32_t f = 0; f < nf; f++)
        st->fields[f].cluster = cl[f];
    st->split = st->nclusters > 1;
    free(lw);
    free(cl);
    return 0;
}

/* ---- array regrouping --------------------------------------------------------- */

/* active(a) within lifetime(b), both ways (extraction 2.3.1). */
static int lifetimes_cover(const ly_group *a, const ly_group *b)
{
    return a->first_t >= b->life_start && a->last_t <= b->life_end &&
           b->first_t >= a->life_start && b->last_t <= a->life_end;
}

static int add_conflict(ly_profile *p, uint32_t a, uint32_t b, int32_t loop,
                        ly_conflict_kind k)
{
    if (ARRAY_FIT(p->conflicts, p->ccap, p->nconflicts + 1) < 0)
        return -1;
    p->conflicts[p->nconflicts++] = (ly_conflict){a, b, loop, k};
    return 0;
}

/* Eq. 10's time test per loop instance: the two groups' windows were
 * disjoint in more instances of loop l than they overlapped. */
static int disjoint_in_time(const ly_profile *p, int32_t l, uint32_t ga, uint32_t gb)
{
    uint32_t lo = ga < gb ? ga : gb, hi = ga < gb ? gb : ga;
    const ly_pair *pr = u64map_get(&p->pairs, (uint64_t)l << 40 ^ (uint64_t)lo << 20 ^ hi);
    return pr && pr->disjoint > pr->overlap;
}

/* Conflicts of arrays a and b in the loops both touch (Eq. 10 and the
 * reverse-direction test); 1 if any. */
static int conflicts_of(ly_profile *p, uint32_t a, uint32_t b, const ly_span *sp,
                        uint32_t nl, const double *tot)
{
    int any = 0;
    for (uint32_t l = 1; l < nl; l++) {
        const ly_span *x = &sp[(size_t)a * nl + l], *y = &sp[(size_t)b * nl + l];
        if (!(x->w > 0 && y->w > 0 && x->w >= p->o.presence * tot[a] &&
              y->w >= p->o.presence * tot[b]))
            continue;
        int rc = 0;
        double dx = x->o_tmax - x->o_tmin, dy = y->o_tmax - y->o_tmin;
        if (x->o_max <= y->o_min || y->o_max <= x->o_min)
            rc = add_conflict(p, a, b, (int32_t)l - 1, LY_CONFLICT_OFFSET), any = 1;
        else if (disjoint_in_time(p, (int32_t)l - 1, p->arrays[a].group,
                                  p->arrays[b].group))
            rc = add_conflict(p, a, b, (int32_t)l - 1, LY_CONFLICT_TIME), any = 1;
        else if (dx * dy < 0)
            rc = add_conflict(p, a, b, (int32_t)l - 1, LY_CONFLICT_REVERSE), any = 1;
        if (rc < 0)
            return -1;
    }
    return any;
}

static void span_add(ly_span *s, const ly_stream *st)
{
    if (!s->n) {
        s->o_min = st->o_min;
        s->o_max = st->o_max;
        s->t_min = st->t_min;
        s->o_tmin = st->o_tmin;
    }
    s->w += st->w;
    s->n += st->n;
    if (st->o_min < s->o_min)
        s->o_min = st->o_min;
    if (st->o_max > s->o_max)
        s->o_max = st->o_max;
    if (st->t_min < s->t_min) {
        s->t_min = st->t_min;
        s->o_tmin = st->o_tmin;
    }
    if (st->t_max >= s->t_max) {
        s->t_max = st->t_max;
        s->o_tmax = st->o_tmax;
    }
}

static int analyse_arrays(ly_profile *p, ly_stream **by_group, const uint32_t *gstart)
{
    uint32_t na = (uint32_t)p->narrays, nl = cfg_nloops(p->g) + 1;
    ly_span *sp = calloc((size_t)na * nl + 1, sizeof *sp);
    double *tot = calloc((size_t)na + 1, sizeof *tot);
    uint8_t *forbid = calloc((size_t)na * na + 1, 1);
    int *cl = malloc(((size_t)na + 1) * sizeof *cl);
    p->aa = malloc(((size_t)na * na + 1) * sizeof *p->aa);
    int rc = -1;
    if (!sp || !tot || !forbid || !cl || !p->aa)
        goto out;
    for (uint32_t a = 0; a < na; a++) {
        uint32_t gid = p->arrays[a].group;
        for (uint32_t i = gstart[gid]; i < gstart[gid + 1]; i++) {
            span_add(&sp[(size_t)a * nl + slot_of(by_group[i]->loop)], by_group[i]);
            tot[a] += by_group[i]->w;
        }
    }
    for (uint32_t a = 0; a < na; a++)
        for (uint32_t b = 0; b < na; b++) {
            p->aa[a * na + b] = -1;
            const ly_array *x = &p->arrays[a], *y = &p->arrays[b];
            if (x->cls < 0 || x->cls != y->cls) {
                forbid[a * na + b] = 1;
                continue;
            }
            if (a == b) {
                p->aa[a * na + b] = 1;
                continue;
            }
            int c = a < b ? conflicts_of(p, a, b, sp, nl, tot) : forbid[b * na + a];
            if (c < 0)
                goto out;
            if (c) {
                forbid[a * na + b] = 1;
                continue;
            }
            double common = 0;          /* Eq. 11 */
            for (uint32_t l = 1; l < nl; l++) {
                const ly_span *u = &sp[(size_t)a * nl + l], *v = &sp[(size_t)b * nl + l];
                if (u->w > 0 && v->w > 0 && u->w >= p->o.presence * tot[a] &&
                    v->w >= p->o.presence * tot[b])
                    common += u->w + v->w;
            }
            p->aa[a * na + b] = tot[a] + tot[b] > 0 ? common / (tot[a] + tot[b]) : 0;
        }
    double *aff = malloc(((size_t)na * na + 1) * sizeof *aff);
    if (!aff)
        goto out;
    for (size_t i = 0; i < (size_t)na * na; i++)
        aff[i] = p->aa[i] < 0 ? 0 : p->aa[i];
    uint32_t k = ly_cluster(na, aff, forbid, p->o.tau, cl);
    free(aff);
    /* clusters of two arrays or more are the advice, numbered from 0 */
    for (uint32_t c = 0; c < k; c++) {
        uint32_t members = 0;
        for (uint32_t a = 0; a < na; a++)
            members += cl[a] == (int)c;
        for (uint32_t a = 0; a < na && members > 1; a++)
            if (cl[a] == (int)c)
                p->arrays[a].advice = (int)p->nregroups;
        p->nregroups += members > 1;
    }
    rc = 0;
out:
    free(sp);
    free(tot);
    free(forbid);
    free(cl);
    return rc;
}

static int cmp_stream_group(const void *a, const void *b)
{
    const ly_stream *x = *(ly_stream *const *)a, *y = *(ly_stream *const *)b;
    return x->group != y->group ? (x->group < y->group ? -1 : 1)
                                : (x->pc < y->pc ? -1 : x->pc > y->pc);
}

static int by_weight(const void *a, const void *b)
{
    const ly_object *x = a, *y = b;
    return x->w > y->w ? -1 : x->w < y->w;
}

int ly_finish(ly_profile *p)
{
    objrel_finish(p->rel);
    qsort(p->top, p->ntop, sizeof *p->top, by_weight);
    uint32_t nl = cfg_nloops(p->g);
    for (uint32_t l = 0; l < nl; l++)
        if (flush_instance(p, (int32_t)l) < 0)
            return -1;
    if (!(p->loop_w = calloc((size_t)nl + 1, sizeof *p->loop_w)))
        return -1;
    ly_stream **by = malloc((p->nstreams + 1) * sizeof *by);
    uint32_t *gstart = calloc((size_t)p->ngroups + 2, sizeof *gstart);
    if (!by || !gstart) {
        free(by);
        free(gstart);
        return -1;
    }
    for (size_t i = 0; i < p->nstreams; i++) {
        ly_stream *s = &p->streams[i];
        p->loop_w[slot_of(s->loop)] += s->w;
        by[i] = s;
        gstart[s->group + 1]++;
    }
    if (p->nstreams)
        qsort(by, p->nstreams, sizeof *by, cmp_stream_group);
    for (uint32_t gi = 0; gi < p->ngroups; gi++)
        gstart[gi + 1] += gstart[gi];
    int rc = 0;
    for (uint32_t gi = 0; gi < p->ngroups && !rc; gi++) {
        ly_group *g = &p->groups[gi];
        if (!g->g || !(p->total > 0) || g->w / p->total < p->o.hot)
            continue;           /* Eq. 1: not significant */
        uint32_t n = gstart[gi + 1] - gstart[gi];
        rc = analyse_struct(p, gi, by + gstart[gi], n);
        const ly_struct *st = &p->structs[p->nstructs - 1];
        if (rc || g->objects != 1 || st->split)
            continue;           /* regrouping: one object per group, whole
                                 * (a structure to split is not regrouped) */
        uint64_t elem = st->size;
        if (!elem) {            /* a primitive array: the gcd of its
                                 * streams' strides and access sizes */
            for (uint32_t i = gstart[gi]; i < gstart[gi + 1]; i++)
                elem = ly_gcd(ly_gcd(elem, by[i]->stride), by[i]->max_size);
        }
        if (!elem || ARRAY_FIT(p->arrays, p->acap, p->narrays + 1) < 0) {
            rc = elem ? -1 : 0;
            continue;
        }
        p->arrays[p->narrays++] = (ly_array){gi, elem, g->max_size,
                                             g->max_size / elem, -1, -1};
    }
    /* classification: storage kind and scheme equal, lifetimes covering */
    int ncls = 0;
    for (uint32_t a = 0; a < p->narrays && !rc; a++) {
        ly_array *x = &p->arrays[a];
        for (uint32_t b = 0; b < a && x->cls < 0; b++) {
            ly_array *y = &p->arrays[b];
            if (p->groups[x->group].g->kind == p->groups[y->group].g->kind &&
                x->scheme == y->scheme &&
                lifetimes_cover(&p->groups[x->group], &p->groups[y->group]))
                x->cls = y->cls;
        }
        if (x->cls < 0)
            x->cls = ncls++;
    }
    if (!rc)
        rc = analyse_arrays(p, by, gstart);
    free(by);
    free(gstart);
    return rc;
}

const ly_options *ly_opts(const ly_profile *p) { return &p->o; }
const cfg *ly_cfg(const ly_profile *p) { return p->g; }
double ly_total(const ly_profile *p) { return p->total; }
uint64_t ly_accesses(const ly_profile *p) { return p->weighed; }
uint32_t ly_ngroups(const ly_profile *p) { return p->ngroups; }
const ly_group *ly_group_at(const ly_profile *p, uint32_t id) { return &p->groups[id]; }
uint32_t ly_nobjects(const ly_profile *p) { return p->ntop; }
const ly_object *ly_object_at(const ly_profile *p, uint32_t i) { return &p->top[i]; }
uint32_t ly_nstreams(const ly_profile *p) { return (uint32_t)p->nstreams; }
const ly_stream *ly_stream_at(const ly_profile *p, uint32_t i) { return &p->streams[i]; }
uint32_t ly_nstructs(const ly_profile *p) { return (uint32_t)p->nstructs; }
const ly_struct *ly_struct_at(const ly_profile *p, uint32_t i) { return &p->structs[i]; }
uint32_t ly_narrays(const ly_profile *p) { return (uint32_t)p->narrays; }
const ly_array *ly_array_at(const ly_profile *p, uint32_t i) { return &p->arrays[i]; }
uint32_t ly_nconflicts(const ly_profile *p) { return (uint32_t)p->nconflicts; }
const ly_conflict *ly_conflict_at(const ly_profile *p, uint32_t i) { return &p->conflicts[i]; }
uint32_t ly_nregroups(const ly_profile *p) { return p->nregroups; }
double ly_latency(const ly_profile *p) { return p->latency; }

uint64_t ly_misses(const ly_profile *p, unsigned k)
{
    if (k >= cache_nlevels(p->cache))
        return 0;
    const cache_level_stats *st = cache_stats(p->cache, k);
    return st->misses[CACHE_READ] + st->misses[CACHE_WRITE];
}

double ly_loop_weight(const ly_profile *p, int32_t l) { return p->loop_w[slot_of(l)]; }
double ly_loop_inclusive(const ly_profile *p, int32_t l) { return p->loop_incl[slot_of(l)]; }

double ly_aa(const ly_profile *p, uint32_t a, uint32_t b)
{
    return p->aa ? p->aa[(size_t)a * p->narrays + b] : -1;
}
