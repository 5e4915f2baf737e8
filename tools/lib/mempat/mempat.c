/*
 * mempat.c: the MemPat algorithm (see mempat.h and docs/trace-mempat.md).
 *
 * Per instruction the accesses flow upwards through a small pipeline:
 *
 *   access -> run (level -1) -> level 0 -> level 1 -> ... -> top list
 *
 * A run grows while each access starts where the previous one ended. When
 * a run ends it becomes an item of level 0. The hot path (mempat_access()
 * in mempat.h) only checks a prediction of the next address: the run's
 * continuation, or the next element of level 0's stride of single accesses
 * ("stride mode", whose hits are folded in when the prediction fails).
 * Every level holds one intermediate pattern: a first item, the offset to
 * the next and the count k of lasting items (the paper's itr). An item of
 * the same shape at the same offset extends it (phase 2); any other item
 * commits the pattern as one item of the level above and starts a new
 * pattern with itself (phase 1). What leaves the last level is appended to
 * the instruction's list of committed patterns, printed as a complex
 * pattern when it has more than one member. mempat_finish() commits what
 * is still open, bottom up (phase 3).
 *
 * Items above the runs are compared by shape id: shapes are interned in one
 * table, so equal structure means equal id.
 */
#include "mempat/mempat.h"

#include <search.h>
#include <stdlib.h>
#include <string.h>

#define NO_SHAPE UINT32_MAX

/* The structure of one item, independent of its address. A run has child
 * NO_SHAPE; a stride (or repeat) has k lasting copies of child after it. */
typedef struct shape {
    uint32_t child;      /* element shape, NO_SHAPE for a run */
    uint32_t size;       /* run: bytes per access */
    uint64_t n;          /* run: accesses; stride: lasting items (k >= 1) */
    int64_t off;         /* stride: offset between items; run: 0 */
    int64_t span;        /* end - start of one item: size*n for a run */
    uint64_t accesses;   /* accesses in one item */
} shape;

typedef mempat_run run;

/* One level's intermediate pattern (phases 1 and 2). Level 0 takes runs
 * and keeps its first run's size and count inline, to compare without
 * interning; higher levels compare shape ids. */
typedef struct level {
    uint64_t start;      /* first access of the first item */
    uint64_t end;        /* byte after the last access of the last item */
    int64_t off;         /* offset between items, valid when k > 0 */
    uint64_t k;          /* lasting items so far (the paper's itr) */
    uint64_t first_n;    /* level 0: accesses of the first run */
    uint32_t first;      /* levels > 0: shape of the first item */
    uint32_t first_size; /* level 0: access size of the first run */
    int active;
} level;

/* A committed top-level pattern: the members of a complex pattern. */
typedef struct item {
    uint32_t shape;
    uint64_t start, end;
} item;

/* Misra-Gries heavy hitters over the deltas between consecutive accesses:
 * bounded memory, finds the dominant stride of an overflowed instruction.
 * Equal deltas in a row are merged before they enter (pending), which makes
 * the result independent of how the slow path happened to batch them. */
#define MG_SLOTS 4
typedef struct stride_count {
    int64_t delta[MG_SLOTS];
    uint64_t count[MG_SLOTS];
    int64_t pending_delta;
    uint64_t pending;        /* times pending_delta occurred in a row */
} stride_count;

/* Everything known about one (instruction, kind). */
typedef struct slot {
    level lv[MEMPAT_LEVELS];
    item *top;           /* committed patterns, NULL once overflowed */
    uint32_t ntop, cap_top;
    int overflowed;
    int finished;
    uint64_t instr;
    int access_kind;
    uint32_t size0;      /* size of the first access, 0 before any */
    uint64_t accesses;   /* counted as runs end */
    uint64_t min, max;
    uint64_t last_addr;  /* last access of the previous run, for deltas */
    stride_count sc;
    /* Level 0 commits the same stride again and again in a loop nest: the
     * last one's key and shape, to skip interning. */
    uint64_t cache_n, cache_k;
    int64_t cache_off;
    uint32_t cache_size, cache_shape;
} slot;

/* Key of the slot map (a tsearch tree: used once per block definition). */
typedef struct slot_key {
    uint64_t instr;
    int access_kind;
    uint32_t slot;
} slot_key;

struct mempat {
    run *runs;           /* the hot part of each slot, see mempat_run */
    slot *slots;
    uint32_t nslots, cap_slots;
    void *slot_tree;     /* slot_key nodes, by (instr, kind) */
    shape *shapes;
    uint32_t nshapes, cap_shapes;
    uint32_t *hash;      /* open addressing: shape id + 1, 0 = empty */
    uint32_t hash_mask;
    uint32_t max_patterns;
    int stride_mode;     /* predict strides of single accesses inline */
    int failed;
};

/* ------------------------------------------------------------------ */
/* Shapes                                                              */
/* ------------------------------------------------------------------ */

static uint64_t shape_hash(uint32_t child, uint32_t size, uint64_t n,
                           int64_t off)
{
    uint64_t h = child * 0x9E3779B97F4A7C15ull;
    h ^= (size + n * 0xC2B2AE3D27D4EB4Full) + (h << 6) + (h >> 2);
    h ^= ((uint64_t)off * 0x165667B19E3779F9ull) + (h << 6) + (h >> 2);
    return h ^ (h >> 29);
}

static int shape_grow(mempat *m)
{
    if (m->nshapes < m->cap_shapes &&
        (uint64_t)(m->nshapes + 1) * 2 <= (uint64_t)m->hash_mask + 1)
        return 0;
    if (m->nshapes == m->cap_shapes) {
        uint32_t cap = m->cap_shapes ? m->cap_shapes * 2 : 256;
        shape *s = realloc(m->shapes, cap * sizeof *s);
        if (!s)
            return -1;
        m->shapes = s;
        m->cap_shapes = cap;
    }
    if ((uint64_t)(m->nshapes + 1) * 2 > (uint64_t)m->hash_mask + 1) {
        uint32_t size = (m->hash_mask + 1) * 2;
        uint32_t *h = calloc(size, sizeof *h);
        if (!h)
            return -1;
        for (uint32_t id = 0; id < m->nshapes; id++) {
            const shape *s = &m->shapes[id];
            uint64_t i = shape_hash(s->child, s->size, s->n, s->off);
            while (h[i & (size - 1)])
                i++;
            h[i & (size - 1)] = id + 1;
        }
        free(m->hash);
        m->hash = h;
        m->hash_mask = size - 1;
    }
    return 0;
}

/* The id of a shape, added when new; NO_SHAPE when out of memory. */
static uint32_t intern(mempat *m, uint32_t child, uint32_t size, uint64_t n,
                       int64_t off)
{
    uint64_t i = shape_hash(child, size, n, off);
    for (;; i++) {
        uint32_t e = m->hash[i & m->hash_mask];
        if (!e)
            break;
        const shape *s = &m->shapes[e - 1];
        if (s->child == child && s->size == size && s->n == n && s->off == off)
            return e - 1;
    }
    if (shape_grow(m) < 0) {
        m->failed = 1;
        return NO_SHAPE;
    }
    uint32_t id = m->nshapes++;
    shape *s = &m->shapes[id];
    s->child = child;
    s->size = size;
    s->n = n;
    s->off = off;
    if (child == NO_SHAPE) {
        s->span = (int64_t)(size * n);
        s->accesses = n;
    } else {
        const shape *c = &m->shapes[child];
        s->span = (int64_t)n * (c->span + off) + c->span;
        s->accesses = (n + 1) * c->accesses;
    }
    i = shape_hash(child, size, n, off);
    while (m->hash[i & m->hash_mask])
        i++;
    m->hash[i & m->hash_mask] = id + 1;
    return id;
}

static uint32_t intern_run(mempat *m, uint32_t size, uint64_t n)
{
    return intern(m, NO_SHAPE, size, n, 0);
}

static uint32_t intern_stride(mempat *m, uint32_t child, int64_t off,
                              uint64_t k)
{
    if (child == NO_SHAPE)
        return NO_SHAPE;
    return intern(m, child, 0, k, off);
}

/* A repeat: every item starts where the first did. */
static int shape_is_rep(const mempat *m, const shape *s)
{
    return s->child != NO_SHAPE && m->shapes[s->child].span + s->off == 0;
}

/* The run at the bottom of a shape: its count tells Str from SeqStr. */
static const shape *shape_leaf(const mempat *m, const shape *s)
{
    while (s->child != NO_SHAPE)
        s = &m->shapes[s->child];
    return s;
}

static mempat_kind shape_kind(const mempat *m, uint32_t id)
{
    const shape *s = &m->shapes[id];
    if (s->child == NO_SHAPE)
        return s->n == 1 ? MEMPAT_FIX : MEMPAT_SEQ;
    if (shape_is_rep(m, s))
        return MEMPAT_REP;
    return shape_leaf(m, s)->n == 1 ? MEMPAT_STR : MEMPAT_SEQSTR;
}

/* ------------------------------------------------------------------ */
/* Summary of every access (exact count, min, max; heavy-hitter stride) */
/* ------------------------------------------------------------------ */

/* Weighted Misra-Gries update: delta was seen w more times. */
static void stride_add(stride_count *sc, int64_t delta, uint64_t w)
{
    int j, free_j = -1, min_j = 0;
    for (j = 0; j < MG_SLOTS; j++) {
        if (sc->count[j] && sc->delta[j] == delta) {
            sc->count[j] += w;
            return;
        }
        if (!sc->count[j] && free_j < 0)
            free_j = j;
        if (sc->count[j] < sc->count[min_j])
            min_j = j;
    }
    if (free_j >= 0) {
        sc->delta[free_j] = delta;
        sc->count[free_j] = w;
        return;
    }
    uint64_t dec = sc->count[min_j] < w ? sc->count[min_j] : w;
    for (j = 0; j < MG_SLOTS; j++)
        sc->count[j] -= dec;
    if (w > dec) {
        sc->delta[min_j] = delta;
        sc->count[min_j] = w - dec;
    }
}

/* delta occurred w more times in a row. */
static void stride_note(stride_count *sc, int64_t delta, uint64_t w)
{
    if (sc->pending && sc->pending_delta == delta) {
        sc->pending += w;
        return;
    }
    if (sc->pending)
        stride_add(sc, sc->pending_delta, sc->pending);
    sc->pending_delta = delta;
    sc->pending = w;
}

/* The counter holding the most. */
static int stride_top(const stride_count *sc)
{
    int best = 0;
    for (int j = 1; j < MG_SLOTS; j++)
        if (sc->count[j] > sc->count[best])
            best = j;
    return best;
}

/* The delta with the highest counter, if that counter holds at least a
 * tenth of the n deltas: a counter underestimates by at most n / 5, so a
 * stride making up 30% or more always qualifies, and scattered accesses
 * (no stride at all) do not pretend to have one. */
static int stride_dominant(stride_count sc, uint64_t n, int64_t *stride)
{
    if (sc.pending)
        stride_add(&sc, sc.pending_delta, sc.pending);
    int best = stride_top(&sc);
    *stride = 0;
    if (n == 0 || sc.count[best] * 10 < n)
        return 0;
    *stride = sc.delta[best];
    return 1;
}

/* A finished run enters the summary of its instruction. */
static void summarise_run(slot *s, const run *r)
{
    uint64_t last = r->next - r->size;
    if (s->accesses) {
        stride_note(&s->sc, (int64_t)(r->start - s->last_addr), 1);
    } else {
        s->min = r->start;
        s->max = last;
    }
    if (r->n > 1)
        stride_note(&s->sc, r->size, r->n - 1);
    if (r->start < s->min)
        s->min = r->start;
    if (last > s->max)
        s->max = last;
    s->last_addr = last;
    s->accesses += r->n;
}

/* ------------------------------------------------------------------ */
/* The levels: phases 1 and 2                                          */
/* ------------------------------------------------------------------ */

static void overflow(slot *s)
{
    free(s->top);
    s->top = NULL;
    s->ntop = s->cap_top = 0;
    s->overflowed = 1;
    for (int i = 0; i < MEMPAT_LEVELS; i++)
        s->lv[i].active = 0;
}

/* A pattern leaves the last level: it joins the committed list, or the
 * instruction overflows. */
static void top_push(mempat *m, slot *s, uint32_t shape_id, uint64_t start,
                     uint64_t end)
{
    if (shape_id == NO_SHAPE || s->ntop >= m->max_patterns) {
        overflow(s);
        return;
    }
    if (s->ntop == s->cap_top) {
        uint32_t cap = s->cap_top ? s->cap_top * 2 : 4;
        if (cap > m->max_patterns)
            cap = m->max_patterns;
        item *t = realloc(s->top, cap * sizeof *t);
        if (!t) {
            m->failed = 1;
            overflow(s);
            return;
        }
        s->top = t;
        s->cap_top = cap;
    }
    s->top[s->ntop++] = (item){ shape_id, start, end };
}

static void level_feed(mempat *m, slot *s, int i, uint32_t shape_id,
                       uint64_t start, uint64_t end);

/* Commits level i's intermediate pattern as one item of level i + 1. */
static void level_commit(mempat *m, slot *s, int i)
{
    level *L = &s->lv[i];
    uint32_t id;
    L->active = 0;
    if (i == 0) {
        /* Loop nests commit the same row pattern over and over. */
        if (s->cache_shape != NO_SHAPE && s->cache_size == L->first_size &&
            s->cache_n == L->first_n && s->cache_k == L->k &&
            s->cache_off == (L->k ? L->off : 0)) {
            id = s->cache_shape;
        } else {
            id = intern_run(m, L->first_size, L->first_n);
            if (L->k)
                id = intern_stride(m, id, L->off, L->k);
            s->cache_size = L->first_size;
            s->cache_n = L->first_n;
            s->cache_k = L->k;
            s->cache_off = L->k ? L->off : 0;
            s->cache_shape = id;
        }
    } else {
        id = L->k ? intern_stride(m, L->first, L->off, L->k) : L->first;
    }
    if (i + 1 == MEMPAT_LEVELS)
        top_push(m, s, id, L->start, L->end);
    else
        level_feed(m, s, i + 1, id, L->start, L->end);
}

/* Phase 1 (a new intermediate pattern from its first item) and phase 2
 * (compare the offset and the item with the lasting part) at level i > 0. */
static void level_feed(mempat *m, slot *s, int i, uint32_t shape_id,
                       uint64_t start, uint64_t end)
{
    level *L = &s->lv[i];
    if (s->overflowed)
        return;
    if (L->active) {
        int64_t off = (int64_t)(start - L->end);
        if (shape_id == L->first && (L->k == 0 || off == L->off)) {
            L->off = off;
            L->k++;
            L->end = end;
            return;
        }
        level_commit(m, s, i);
        if (s->overflowed)
            return;
    }
    *L = (level){ .start = start, .end = end, .first = shape_id,
                  .active = 1 };
}

/* A finished run enters level 0: the same two phases, comparing the run's
 * size and count inline. */
static void run_feed(mempat *m, slot *s, const run *r)
{
    level *L = &s->lv[0];
    summarise_run(s, r);
    if (s->overflowed)
        return;
    if (L->active) {
        int64_t off = (int64_t)(r->start - L->end);
        if (r->size == L->first_size && r->n == L->first_n &&
            (L->k == 0 || off == L->off)) {
            L->off = off;
            L->k++;
            L->end = r->next;
            return;
        }
        level_commit(m, s, 0);
        if (s->overflowed)
            return;
    }
    *L = (level){ .start = r->start, .end = r->next, .first_n = r->n,
                  .first_size = r->size, .active = 1 };
}

mempat_run *mempat_runs(mempat *m) { return m->runs; }

/* Folds the hits of stride mode into the state, as if each had gone
 * through the slow path, and returns to run mode with the last hit as the
 * open run. Each hit ended the open single-access run, which matched
 * level 0's stride (checked when stride mode began). */
static void leave_stride_mode(mempat *m, slot *s, run *r)
{
    uint64_t p = r->n, step = r->step, last;
    level *L = &s->lv[0];
    r->stride_mode = 0;
    r->n = 1;
    r->step = r->size;
    r->next = r->start + r->size;
    if (p == 0)                     /* no hit: the open run as it was */
        return;
    run_feed(m, s, r);              /* the run open when stride mode began */
    if (p > 1) {                    /* p - 1 more, in one step: an arithmetic
                                     * progression (never across address 0),
                                     * whose extremes are its ends */
        last = r->start + (p - 1) * step;
        stride_note(&s->sc, (int64_t)step, p - 1);
        if (last < s->min)
            s->min = last;
        if (last > s->max)
            s->max = last;
        s->last_addr = last;
        s->accesses += p - 1;
        L->k += p - 1;
        L->end = last + r->size;
    }
    r->start += p * step;
    r->next = r->start + r->size;
}

/* Opens a run at addr; predicts the next access with stride mode when the
 * run, staying a single access, would be one more element of level 0's
 * stride of single accesses. */
static void open_run(const mempat *m, slot *s, run *r, uint64_t addr,
                     uint32_t size)
{
    const level *L = &s->lv[0];
    r->start = addr;
    r->size = size;
    if (m->stride_mode && L->active && L->k && L->first_n == 1 && L->first_size == size &&
        (int64_t)(addr - L->end) == L->off && L->off != 0) {
        r->stride_mode = 1;
        r->step = size + (uint64_t)L->off;
        r->next = addr + r->step;
        r->n = 0;
    } else {
        r->stride_mode = 0;
        r->step = size;
        r->next = addr + size;
        r->n = 1;
    }
}

void mempat_access_slow(mempat *m, uint32_t id, uint64_t addr, uint32_t size)
{
    slot *s = &m->slots[id];
    run *r = &m->runs[id];
    if (s->finished)
        return;
    if (r->stride_mode) {
        leave_stride_mode(m, s, r);
        if (addr == r->next && size == r->size) {
            r->next += size;
            r->n++;
            return;
        }
    }
    if (r->n)
        run_feed(m, s, r);
    else
        s->size0 = size;
    open_run(m, s, r, addr, size);
}

/* Phase 3: whatever is not committed yet is committed, bottom up. */
static void slot_finish(mempat *m, slot *s, run *r)
{
    if (s->finished)
        return;
    if (r->stride_mode)
        leave_stride_mode(m, s, r);
    if (r->n)
        run_feed(m, s, r);
    for (int i = 0; i < MEMPAT_LEVELS && !s->overflowed; i++)
        if (s->lv[i].active)
            level_commit(m, s, i);
    s->finished = 1;
    r->next = 0;
    r->step = 0;
    r->size = 0;        /* no later access can match the prediction */
}

void mempat_finish(mempat *m)
{
    for (uint32_t i = 0; i < m->nslots; i++)
        slot_finish(m, &m->slots[i], &m->runs[i]);
}

/* ------------------------------------------------------------------ */
/* Slots                                                               */
/* ------------------------------------------------------------------ */

static int slot_key_cmp(const void *a, const void *b)
{
    const slot_key *x = a, *y = b;
    if (x->instr != y->instr)
        return x->instr < y->instr ? -1 : 1;
    return x->access_kind - y->access_kind;
}

mempat *mempat_new(uint32_t max_patterns)
{
    mempat *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->max_patterns = max_patterns ? max_patterns : 1;
    m->stride_mode = 1;
    m->hash_mask = 1023;
    m->hash = calloc(m->hash_mask + 1, sizeof *m->hash);
    if (!m->hash) {
        free(m);
        return NULL;
    }
    return m;
}

uint32_t mempat_slot(mempat *m, uint64_t instr, int access_kind)
{
    slot_key key = { instr, access_kind, 0 };
    slot_key **found = tfind(&key, &m->slot_tree, slot_key_cmp);
    if (found)
        return (*found)->slot;
    if (m->nslots == m->cap_slots) {
        uint32_t cap = m->cap_slots ? m->cap_slots * 2 : 1024;
        slot *s = realloc(m->slots, cap * sizeof *s);
        if (!s)
            goto oom;
        m->slots = s;
        run *r = realloc(m->runs, cap * sizeof *r);
        if (!r)
            goto oom;
        m->runs = r;
        m->cap_slots = cap;
    }
    slot_key *k = malloc(sizeof *k);
    if (!k)
        goto oom;
    *k = key;
    k->slot = m->nslots;
    if (!tsearch(k, &m->slot_tree, slot_key_cmp)) {
        free(k);
        goto oom;
    }
    slot *s = &m->slots[m->nslots];
    memset(s, 0, sizeof *s);
    memset(&m->runs[m->nslots], 0, sizeof m->runs[0]);
    s->instr = instr;
    s->access_kind = access_kind;
    s->cache_shape = NO_SHAPE;
    return m->nslots++;
oom:
    m->failed = 1;
    return UINT32_MAX;
}

void mempat_free(mempat *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nslots; i++)
        free(m->slots[i].top);
    free(m->slots);
    free(m->runs);
    tdestroy(m->slot_tree, free);
    free(m->shapes);
    free(m->hash);
    free(m);
}

int mempat_failed(const mempat *m) { return m->failed; }

void mempat_set_stride_mode(mempat *m, int on) { m->stride_mode = on; }

uint32_t mempat_count(const mempat *m) { return m->nslots; }

/* qsort's comparison needs the slots: passed through this for
 * mempat_order (qsort_r is GNU; the slots are const during the sort). */
static int order_cmp(const void *a, const void *b, void *arg)
{
    const slot *slots = arg;
    const slot *x = &slots[*(const uint32_t *)a];
    const slot *y = &slots[*(const uint32_t *)b];
    if (x->instr != y->instr)
        return x->instr < y->instr ? -1 : 1;
    return x->access_kind - y->access_kind;
}

uint32_t mempat_order(const mempat *m, uint32_t *order)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nslots; i++)
        if (m->slots[i].accesses)
            order[n++] = i;
    qsort_r(order, n, sizeof *order, order_cmp, m->slots);
    return n;
}

const char *mempat_kind_name(mempat_kind k)
{
    static const char *const names[] = {
        "Fix", "Seq", "Str", "SeqStr", "Rep", "Complex", "None"
    };
    return (unsigned)k <= MEMPAT_NONE ? names[k] : "None";
}

void mempat_get_info(const mempat *m, uint32_t id, mempat_info *out)
{
    const slot *s = &m->slots[id];
    out->instr = s->instr;
    out->access_kind = s->access_kind;
    out->size = s->size0;
    out->accesses = s->accesses;
    out->overflowed = s->overflowed;
    out->min = s->min;
    out->max = s->max;
    out->has_stride = stride_dominant(s->sc, s->accesses ? s->accesses - 1 : 0,
                                      &out->stride);
    if (s->overflowed || s->ntop > 1)
        out->kind = MEMPAT_COMPLEX;
    else if (s->ntop == 1)
        out->kind = shape_kind(m, s->top[0].shape);
    else
        out->kind = MEMPAT_NONE;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

/* The text is built in a growable buffer with hand-made number formatting,
 * not through stdio: python3's 60696 lines (10 MB) cost trace-mempat more
 * in open_memstream and fprintf than in their content. */
typedef struct text {
    char *p;
    size_t len, cap;
    int failed;          /* out of memory: the text is incomplete */
} text;

/* Makes room for n more bytes and the final NUL. 0, or -1 (failed). */
static int text_room(text *t, size_t n)
{
    if (t->failed)
        return -1;
    if (t->len + n + 1 <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 128;
    while (cap < t->len + n + 1)
        cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) {
        t->failed = 1;
        return -1;
    }
    t->p = p;
    t->cap = cap;
    return 0;
}

static void put_mem(text *t, const char *s, size_t n)
{
    if (text_room(t, n) == 0) {
        memcpy(t->p + t->len, s, n);
        t->len += n;
    }
}

static void put_str(text *t, const char *s) { put_mem(t, s, strlen(s)); }
static void put_char(text *t, char c) { put_mem(t, &c, 1); }

/* v in base 10 or 16 (lower case), as printf's %llu and %llx. */
static void put_base(text *t, uint64_t v, unsigned base)
{
    char digits[24], *d = digits + sizeof digits;
    do {
        *--d = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    put_mem(t, d, (size_t)(digits + sizeof digits - d));
}

static void put_u64(text *t, uint64_t v) { put_base(t, v, 10); }
static void put_hex(text *t, uint64_t v) { put_base(t, v, 16); }

static void put_i64(text *t, int64_t v)
{
    if (v < 0) {
        put_char(t, '-');
        put_u64(t, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(t, (uint64_t)v);
    }
}

/* The text, malloc'd (NULL when out of memory: then freed). */
static char *text_finish(text *t)
{
    if (text_room(t, 0) < 0) {
        free(t->p);
        return NULL;
    }
    t->p[t->len] = 0;
    return t->p;
}

/* "+4+" or "-8-": the paper only shows the positive form. */
static void print_offset(text *f, int64_t off)
{
    if (off < 0) {
        put_char(f, '-');
        put_u64(f, (uint64_t)0 - (uint64_t)off);
        put_char(f, '-');
    } else {
        put_char(f, '+');
        put_u64(f, (uint64_t)off);
        put_char(f, '+');
    }
}

static void print_tagged(const mempat *m, text *f, uint32_t id);

/* "8x2": a run's access size and count. */
static void print_run(text *f, const shape *s)
{
    put_u64(f, s->size);
    put_char(f, 'x');
    put_u64(f, s->n);
}

/* An element inside a stride: a run bare ("8x2", as the paper), anything
 * else with its kind ("REP2Seq:[1x5]", "SeqStr:[...]"). */
static void print_element(const mempat *m, text *f, uint32_t id)
{
    const shape *s = &m->shapes[id];
    if (s->child == NO_SHAPE)
        print_run(f, s);
    else
        print_tagged(m, f, id);
}

/* A pattern with its kind: Fix:[4x1], REP2Seq:[1x5], Str:[4x1,(+4+,4x1)*2],
 * SeqStr:[8x2,+16+,8x2] (one lasting item: no parentheses, no count). */
static void print_tagged(const mempat *m, text *f, uint32_t id)
{
    const shape *s = &m->shapes[id];
    mempat_kind k = shape_kind(m, id);
    if (k == MEMPAT_FIX || k == MEMPAT_SEQ) {
        put_str(f, mempat_kind_name(k));
        put_mem(f, ":[", 2);
        print_run(f, s);
        put_char(f, ']');
    } else if (k == MEMPAT_REP) {
        put_mem(f, "REP", 3);
        put_u64(f, s->n + 1);
        print_tagged(m, f, s->child);
    } else {
        put_str(f, mempat_kind_name(k));
        put_mem(f, ":[", 2);
        print_element(m, f, s->child);
        put_char(f, ',');
        if (s->n > 1)
            put_char(f, '(');
        print_offset(f, s->off);
        put_char(f, ',');
        print_element(m, f, s->child);
        if (s->n > 1) {
            put_mem(f, ")*", 2);
            put_u64(f, s->n);
        }
        put_char(f, ']');
    }
}

static void print_pattern(const mempat *m, text *f, const slot *s)
{
    mempat_info info;
    if (s->overflowed) {
        mempat_get_info(m, (uint32_t)(s - m->slots), &info);
        put_str(f, "Overflow:[count=");
        put_u64(f, info.accesses);
        put_str(f, ",min=");
        put_hex(f, info.min);
        put_str(f, ",max=");
        put_hex(f, info.max);
        if (info.has_stride) {
            put_str(f, ",stride=");
            put_i64(f, info.stride);
            put_char(f, ']');
        } else {
            put_str(f, ",stride=none]");
        }
        return;
    }
    if (s->ntop == 1) {
        print_tagged(m, f, s->top[0].shape);
        return;
    }
    put_char(f, '{');
    for (uint32_t i = 0; i < s->ntop; i++) {
        if (i) {
            put_char(f, ' ');
            print_offset(f, (int64_t)(s->top[i].start - s->top[i - 1].end));
            put_char(f, ' ');
        }
        print_tagged(m, f, s->top[i].shape);
    }
    put_char(f, '}');
}

char *mempat_pattern_text(const mempat *m, uint32_t id)
{
    text f = { 0 };
    print_pattern(m, &f, &m->slots[id]);
    return text_finish(&f);
}

char *mempat_line(const mempat *m, uint32_t id, const char *where)
{
    static const char kind_letter[MEMPAT_KINDS] = { '?', 'R', 'W', 'M' };
    const slot *s = &m->slots[id];
    text f = { 0 };
    int k = s->access_kind;
    put_char(&f, kind_letter[k > 0 && k < MEMPAT_KINDS ? k : 0]);
    put_u64(&f, s->size0);
    put_char(&f, '@');
    put_hex(&f, s->instr);
    put_char(&f, '=');
    print_pattern(m, &f, s);
    if (where) {
        put_char(&f, '\t');
        put_str(&f, where);
    }
    return text_finish(&f);
}
