/* fromtwpp.c: redundant loads and stores from TWPP+ edges (fromtwpp.h). */
#include "redundancy/fromtwpp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/u64map.h"
#include "redundancy/replay.h"
#include "twpp/edges.h"

#define GRANULE_BITS 3          /* 8-byte granules, as twpp/deps.h */

/* A growable list of instance keys fc << 32 | bc. */
typedef struct keys {
    uint64_t *v;
    size_t n, cap;
} keys;

/* What is learnt about one access point. */
typedef struct pstate {
    uint64_t redundant;         /* load instances with SN > 1 */
    uint64_t recovered;         /* edges recovered for its loads */
    uint64_t executions;        /* store point: executions (instances) */
    keys first;                 /* store point: instances with a recorded SN = 1 edge */
    keys first_recovered;       /* ... with a recovered SN = 1 edge */
    keys recorded;              /* single load point with dropped edges: its
                                 * loads' instances with a recorded edge, in order */
    size_t cursor;              /* the next of those the replay meets */
} pstate;

/* The last single-address store in one granule, during the replay. */
typedef struct slot {
    uint64_t serial;            /* replay order of the store */
    uint32_t point;
    uint64_t key;               /* its instance */
    uint32_t loads;             /* recovered loads of it here */
} slot;

/* The recovery's state. */
typedef struct recovery {
    const twpp_file *f;
    pstate *ps;
    u64map points_of;           /* fn << 32 | symbol -> 1 + index into list */
    uint32_t *list;             /* runs of the replayed points, ended by UINT32_MAX */
    size_t nlist, list_cap;
    u64map granules;            /* granule -> 1 + index into slots */
    slot *slots;
    size_t nslots, slots_cap;
    uint64_t serial;            /* single-address stores replayed */
    uint64_t ambiguous;         /* recovered loads whose SN the file leaves open */
} recovery;

static int add_key(keys *k, uint64_t key)
{
    if (ARRAY_FIT(k->v, k->cap, k->n + 1) < 0)
        return -1;
    k->v[k->n++] = key;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts k: a least-significant-digit radix sort by 16-bit digits,
 * skipping the digits every key shares (qsort took a tenth of the time on
 * gzip's 2.7 M keys). 0, or -1 when out of memory. */
static int sort_keys(keys *k)
{
    if (k->n < 2)
        return 0;
    if (k->n < 4096) {                  /* the digit counts would cost more */
        qsort(k->v, k->n, sizeof *k->v, by_key);
        return 0;
    }
    uint64_t *tmp = malloc(k->n * sizeof *tmp), *src = k->v, *dst = tmp;
    size_t *count = calloc(1u << 16, sizeof *count);
    if (!tmp || !count) {
        free(tmp);
        free(count);
        return -1;
    }
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (size_t i = 0; i < k->n; i++) {
        all_or |= k->v[i];
        all_and &= k->v[i];
    }
    for (int shift = 0; shift < 64; shift += 16) {
        if (((all_or ^ all_and) >> shift & 0xffff) == 0)
            continue;                   /* every key has this digit */
        memset(count, 0, (1u << 16) * sizeof *count);
        for (size_t i = 0; i < k->n; i++)
            count[src[i] >> shift & 0xffff]++;
        size_t at = 0;
        for (size_t d = 0; d < (1u << 16); d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < k->n; i++)
            dst[count[src[i] >> shift & 0xffff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k->v)
        memcpy(k->v, src, k->n * sizeof *k->v);
    free(tmp);
    free(count);
    return 0;
}

/* Drops repeats from k (sorted). */
static void unique_keys(keys *k)
{
    size_t u = k->n ? 1 : 0;
    for (size_t i = 1; i < k->n; i++)
        if (k->v[i] != k->v[u - 1])
            k->v[u++] = k->v[i];
    k->n = u;
}

/* Times key is in k (sorted). */
static size_t count_key(const keys *k, uint64_t key)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < k->n && k->v[lo + n] == key)
        n++;
    return n;
}

static uint64_t key_of(const twpp_instance *x) { return (uint64_t)x->fc << 32 | x->bc; }

/* Reads load point g's recorded edges. */
static int read_edges(twpp_file *f, recovery *r, uint32_t g, redund_twpp_stats *st,
                      char *err, size_t errlen)
{
    const twpp_point *pt = twpp_file_point(f, g);
    int keep = pt->single && pt->dropped;
    twpp_edge_iter *it = twpp_edges_open(f, g, err, errlen);
    if (!it)
        return -1;
    if (!keep)
        twpp_edges_skip_load(it);
    const twpp_edge *e;
    int64_t rc;
    int oom = 0;
    while (!oom && (rc = twpp_edges_batch(it, &e)) > 0) {
        st->edges += (uint64_t)rc;
        for (int64_t i = 0; i < rc && !oom; i++) {
            if (e[i].sn > 1)
                r->ps[g].redundant++;
            else
                oom = add_key(&r->ps[e[i].store.point].first, key_of(&e[i].store)) < 0;
            if (keep && !oom)
                oom = add_key(&r->ps[g].recorded, key_of(&e[i].load)) < 0;
        }
    }
    twpp_edges_close(it);
    if (oom)
        snprintf(err, errlen, "out of memory");
    else if (rc < 0)
        snprintf(err, errlen, "corrupt dependence edges of A%u", g + 1);
    return oom || rc < 0 ? -1 : 0;
}

/* Context of by_place (qsort has none). */
static const twpp_file *sort_file;

/* Points by function, symbol, then access order: the instruction, then
 * for the accesses of one instruction (a store then a load of one
 * location happens) the point's number, given in the order of the
 * accesses at the symbol's first execution. */
static int by_place(const void *a, const void *b)
{
    uint32_t ga = *(const uint32_t *)a, gb = *(const uint32_t *)b;
    const twpp_point *x = twpp_file_point(sort_file, ga);
    const twpp_point *y = twpp_file_point(sort_file, gb);
    uint64_t kx[4] = { x->fn, x->symbol, x->instr, ga };
    uint64_t ky[4] = { y->fn, y->symbol, y->instr, gb };
    for (int i = 0; i < 4; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* The points the replay looks at (single-address points, to recover
 * edges; store points, to count their executions) of each (function,
 * symbol), in access order: runs in list ended by UINT32_MAX, found
 * through points_of. */
static int index_singles(recovery *r, uint8_t *marked)
{
    const twpp_file *f = r->f;
    uint32_t n = twpp_point_count(f), k = 0;
    uint32_t *g = malloc(((size_t)n + 1) * sizeof *g);
    if (!g || ARRAY_FIT(r->list, r->list_cap, 2 * (size_t)n + 1) < 0) {
        free(g);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        if (twpp_file_point(f, i)->single || twpp_file_point(f, i)->stores)
            g[k++] = i;
    sort_file = f;
    qsort(g, k, sizeof *g, by_place);
    for (uint32_t i = 0; i < k; i++) {
        const twpp_point *pt = twpp_file_point(f, g[i]);
        const twpp_point *q = i ? twpp_file_point(f, g[i - 1]) : NULL;
        if (!q || q->fn != pt->fn || q->symbol != pt->symbol) {   /* a new run */
            int added;
            if (q)
                r->list[r->nlist++] = UINT32_MAX;
            void **v = u64map_slot_of(&r->points_of, (uint64_t)pt->fn << 32 | pt->symbol, &added);
            if (!v) {
                free(g);
                return -1;
            }
            *v = (void *)(uintptr_t)(r->nlist + 1);
            marked[pt->symbol] = 1;
        }
        r->list[r->nlist++] = g[i];
    }
    if (k)
        r->list[r->nlist++] = UINT32_MAX;
    free(g);
    return 0;
}

/* A single-address store: the last one in its granules. */
static int replay_store(recovery *r, uint32_t g, const twpp_point *pt, uint64_t key)
{
    uint64_t serial = ++r->serial, last = pt->addr + (pt->size ? pt->size - 1 : 0);
    for (uint64_t gr = pt->addr >> GRANULE_BITS; gr <= last >> GRANULE_BITS; gr++) {
        int added;
        void **v = u64map_slot_of(&r->granules, gr, &added);
        if (!v)
            return -1;
        if (added) {
            if (ARRAY_FIT(r->slots, r->slots_cap, r->nslots + 1) < 0)
                return -1;
            *v = (void *)(uintptr_t)++r->nslots;
        }
        r->slots[(uintptr_t)*v - 1] = (slot){ serial, g, key, 0 };
    }
    return 0;
}

/* A single-address load: recorded, recovered, or of unwritten memory. */
static int replay_load(recovery *r, uint32_t g, const twpp_point *pt, uint64_t key)
{
    pstate *p = &r->ps[g];
    if (p->cursor < p->recorded.n && p->recorded.v[p->cursor] == key) {
        p->cursor++;
        return 0;
    }
    if (!pt->dropped)
        return 0;
    slot *best = NULL;
    uint64_t last = pt->addr + (pt->size ? pt->size - 1 : 0);
    for (uint64_t gr = pt->addr >> GRANULE_BITS; gr <= last >> GRANULE_BITS; gr++) {
        void *v = u64map_get(&r->granules, gr);
        slot *s = v ? &r->slots[(uintptr_t)v - 1] : NULL;
        if (s && (!best || s->serial > best->serial))
            best = s;
    }
    if (!best)
        return 0;               /* memory no store wrote */
    p->recovered++;
    pstate *s = &r->ps[best->point];
    const twpp_point *st = twpp_file_point(r->f, best->point);
    uint64_t spans = ((st->addr + (st->size ? st->size - 1 : 0)) >> GRANULE_BITS) -
                     (st->addr >> GRANULE_BITS) + 1;
    size_t firsts = count_key(&s->first, best->key);
    /* A recorded edge of this store instance with SN 1 was the first load
     * of one of its granules; which one, the file does not say. With one
     * granule it was this one; with several, only when every granule has
     * one (else this is taken as the first here, and counted ambiguous). */
    if (firsts && firsts < spans && !best->loads)
        r->ambiguous++;
    if (best->loads++ || firsts >= spans)
        p->redundant++;
    else if (add_key(&s->first_recovered, best->key) < 0)
        return -1;
    return 0;
}

static int replayed(void *ctx, uint32_t fn, uint32_t fc, uint32_t symbol, uint32_t bc)
{
    recovery *r = ctx;
    void *v = u64map_get(&r->points_of, (uint64_t)fn << 32 | symbol);
    if (!v)
        return 0;
    uint64_t key = (uint64_t)fc << 32 | bc;
    for (size_t i = (uintptr_t)v - 1; r->list[i] != UINT32_MAX; i++) {
        uint32_t g = r->list[i];
        const twpp_point *pt = twpp_file_point(r->f, g);
        if ((pt->kind & MR_LOAD) && pt->loads && pt->single && replay_load(r, g, pt, key) < 0)
            return -1;
        if ((pt->kind & MR_STORE) && pt->stores) {
            r->ps[g].executions++;
            if (pt->single && replay_store(r, g, pt, key) < 0)
                return -1;
        }
    }
    return 0;
}

/* Replays control flow: recovers the dropped edges, counts the store
 * points' executions. */
static int recover(twpp_file *f, recovery *r, char *err, size_t errlen)
{
    uint8_t *marked = calloc((size_t)twpp_file_model(f)->nsymbols + 1, 1);
    int rc = -1;
    if (!marked || twpp_load_symbols(f, err, errlen) < 0)
        goto done;
    if (index_singles(r, marked) < 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t g = 0; g < twpp_point_count(f); g++)
        if (sort_keys(&r->ps[g].first) < 0) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    rc = redund_replay(f, marked, replayed, r, err, errlen);
    if (rc > 0)
        snprintf(err, errlen, "out of memory");
done:
    if (!marked)
        snprintf(err, errlen, "out of memory");
    free(marked);
    return rc ? -1 : 0;
}

/* The file's function name and line of pt, malloc'd. */
static char *where_of(const twpp_file *f, const twpp_point *pt)
{
    const char *name = twpp_file_model(f)->functions[pt->fn].name;
    char *s = malloc(strlen(name) + 16);
    if (s && pt->line)
        sprintf(s, "%s:%u", name, pt->line);
    else if (s)
        strcpy(s, name);
    return s;
}

/* The entry of pt's instruction (address, kind) in out, made with this
 * point's size and name if new (points are numbered in order of first
 * execution: the first is the instruction's first access). NULL: no memory. */
static redund_insn *entry_of(const twpp_file *f, u64map *at, redund_result *out,
                             const twpp_point *pt)
{
    int added;
    void **v = u64map_slot_of(at, pt->insn_addr << 2 | pt->kind, &added);
    if (!v)
        return NULL;
    if (!added)
        return &out->insns[(uintptr_t)*v - 1];
    redund_insn *x = &out->insns[out->n];
    *v = (void *)(uintptr_t)++out->n;
    *x = (redund_insn){ .addr = pt->insn_addr, .size = pt->size, .kind = (uint8_t)pt->kind,
                        .where = where_of(f, pt) };
    return x->where ? x : NULL;
}

/* The points' counts summed per instruction (address, kind). */
static int per_instruction(recovery *r, redund_result *out)
{
    const twpp_file *f = r->f;
    u64map at = { 0 };
    uint32_t n = twpp_point_count(f);
    memset(out, 0, sizeof *out);
    if (!(out->insns = calloc((size_t)n + 1, sizeof *out->insns)))
        return -1;
    for (uint32_t g = 0; g < n; g++) {
        const twpp_point *pt = twpp_file_point(f, g);
        pstate *p = &r->ps[g];
        redund_insn *x = entry_of(f, &at, out, pt);
        if (!x)
            goto oom;
        unique_keys(&p->first);                 /* sorted before the replay */
        if (sort_keys(&p->first_recovered) < 0)
            goto oom;
        unique_keys(&p->first_recovered);
        uint64_t read = p->first.n + p->first_recovered.n;
        for (size_t i = 0; i < p->first_recovered.n; i++)    /* counted twice? */
            read -= count_key(&p->first, p->first_recovered.v[i]) > 0;
        x->loads += pt->loads;
        x->redundant_loads += p->redundant;
        x->unwritten_loads += pt->loads - pt->edges - pt->dropped;
        x->stores += p->executions;
        x->redundant_stores += p->executions - read;
    }
    u64map_free(&at);
    redund_result_sort(out);
    return 0;
oom:
    u64map_free(&at);
    redund_result_free(out);
    return -1;
}

int redund_from_twpp(twpp_file *f, redund_result *out, redund_twpp_stats *st, char *err,
                     size_t errlen)
{
    recovery r = { .f = f };
    int rc = -1;
    memset(st, 0, sizeof *st);
    if (twpp_load_points(f, err, errlen) < 0)
        return -1;
    uint32_t n = twpp_point_count(f);
    if (!(r.ps = calloc((size_t)n + 1, sizeof *r.ps))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t g = 0; g < n; g++) {
        const twpp_point *pt = twpp_file_point(f, g);
        st->dropped += pt->dropped;
        if (pt->edges && read_edges(f, &r, g, st, err, errlen) < 0)
            goto done;
    }
    if (recover(f, &r, err, errlen) < 0)
        goto done;
    for (uint32_t g = 0; g < n; g++) {
        st->recovered += r.ps[g].recovered;
        st->disagree += r.ps[g].recovered != twpp_file_point(f, g)->dropped;
    }
    st->ambiguous = r.ambiguous;
    if (per_instruction(&r, out) < 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    rc = 0;
done:
    for (uint32_t g = 0; g < n; g++) {
        free(r.ps[g].first.v);
        free(r.ps[g].first_recovered.v);
        free(r.ps[g].recorded.v);
    }
    free(r.ps);
    u64map_free(&r.points_of);
    u64map_free(&r.granules);
    free(r.list);
    free(r.slots);
    return rc;
}
