/*
 * cache.c: the hierarchy of cache.h. Each level is an array of tags (line
 * numbers, so that a tag names its line whatever the set count), assoc per
 * set. Under LRU a set is kept most recently used first, so a hit on the
 * MRU line costs one compare and the victim is always the last way; PLRU
 * and random keep ways in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/cache.h"

#define EMPTY UINT64_MAX   /* tag of an invalid way: no line number is this */

/* One level's state. */
typedef struct level {
    uint64_t *tags;          /* sets * assoc line numbers, EMPTY when invalid */
    uint64_t *plru;          /* PLRU: one tree of assoc-1 bits per set */
    uint64_t set_mask;       /* sets - 1 */
    uint64_t rng;            /* random policy: xorshift64 state */
    uint64_t seed;           /* its start, restored by cache_reset */
    uint32_t assoc;
    uint32_t line_bits;      /* log2(line) */
    uint32_t tree_depth;     /* PLRU: log2(assoc) */
    uint8_t policy;
    cache_level_stats st;
} level;

struct cache_sim {
    cache_config cfg;
    level lv[CACHE_MAX_LEVELS];   /* data levels */
    level i1;
    unsigned n;                   /* data levels in use */
    int has_i1;
    uint32_t cg_max_size;         /* Cachegrind mode: data sizes cut to this */
    uint32_t latency[CACHE_MAX_LEVELS + 1];   /* by result level */
};

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static uint32_t log2u(uint64_t v)
{
    uint32_t b = 0;
    while (v > 1) {
        v >>= 1;
        b++;
    }
    return b;
}

/* The problem with one level's geometry, or NULL. */
static const char *check_level(const cache_level_config *l, char *buf,
                               size_t len)
{
    const char *n = l->name[0] ? l->name : "cache";
    if (!is_pow2(l->line))
        snprintf(buf, len, "%s: line size %u is not a power of two", n, l->line);
    else if (l->assoc == 0)
        snprintf(buf, len, "%s: associativity must be at least 1", n);
    else if (l->size < l->line)
        snprintf(buf, len, "%s: size %llu is smaller than a line (%u bytes)",
                 n, (unsigned long long)l->size, l->line);
    else if (l->assoc > l->size / l->line)
        snprintf(buf, len, "%s: associativity %u is larger than the %llu lines "
                 "of the cache", n, l->assoc,
                 (unsigned long long)(l->size / l->line));
    else if (l->size % ((uint64_t)l->assoc * l->line))
        snprintf(buf, len, "%s: size %llu is not a multiple of associativity "
                 "x line size (%llu)", n, (unsigned long long)l->size,
                 (unsigned long long)l->assoc * l->line);
    else if (!is_pow2(l->size / ((uint64_t)l->assoc * l->line)))
        snprintf(buf, len, "%s: set count %llu (size / (associativity x line)) "
                 "is not a power of two", n,
                 (unsigned long long)(l->size / ((uint64_t)l->assoc * l->line)));
    else if (l->policy > CACHE_RANDOM)
        snprintf(buf, len, "%s: unknown replacement policy %u", n, l->policy);
    else if (l->policy == CACHE_PLRU && (!is_pow2(l->assoc) || l->assoc > 64))
        snprintf(buf, len, "%s: pseudo-LRU needs a power-of-two associativity "
                 "of at most 64, not %u", n, l->assoc);
    else
        return NULL;
    return buf;
}

/* What the Cachegrind-compatible model additionally requires, or NULL. */
static const char *check_cachegrind(const cache_config *cfg, char *buf,
                                    size_t len)
{
    if (cfg->nlevels != 2 || !cfg->i1.size)
        return "the Cachegrind-compatible model needs exactly I1, D1 and LL";
    if (cfg->inclusive)
        return "the Cachegrind-compatible model is not inclusive";
    const cache_level_config *all[3] = { &cfg->i1, &cfg->level[0], &cfg->level[1] };
    for (int i = 0; i < 3; i++) {
        if (all[i]->policy != CACHE_LRU) {
            snprintf(buf, len, "%s: the Cachegrind-compatible model is LRU only",
                     all[i]->name);
            return buf;
        }
        if (all[i]->line < 16) {   /* Cachegrind's MIN_LINE_SIZE */
            snprintf(buf, len, "%s: line size %u is below Cachegrind's minimum "
                     "of 16", all[i]->name, all[i]->line);
            return buf;
        }
    }
    return NULL;
}

const char *cache_config_check(const cache_config *cfg, char *buf, size_t len)
{
    const char *e;
    if (cfg->nlevels < 1 || cfg->nlevels > CACHE_MAX_LEVELS) {
        snprintf(buf, len, "%u data levels: 1 to %d are possible", cfg->nlevels,
                 CACHE_MAX_LEVELS);
        return buf;
    }
    for (uint32_t k = 0; k < cfg->nlevels; k++) {
        if ((e = check_level(&cfg->level[k], buf, len)))
            return e;
        if (k && cfg->level[k].line < cfg->level[k - 1].line) {
            snprintf(buf, len, "%s: line size %u is smaller than %s's %u",
                     cfg->level[k].name, cfg->level[k].line,
                     cfg->level[k - 1].name, cfg->level[k - 1].line);
            return buf;
        }
    }
    if (cfg->i1.size) {
        if ((e = check_level(&cfg->i1, buf, len)))
            return e;
        if (cfg->nlevels > 1 && cfg->level[1].line < cfg->i1.line) {
            snprintf(buf, len, "%s: line size %u is smaller than %s's %u",
                     cfg->level[1].name, cfg->level[1].line, cfg->i1.name,
                     cfg->i1.line);
            return buf;
        }
    }
    if (!cfg->cachegrind || !(e = check_cachegrind(cfg, buf, len)))
        return NULL;
    if (e != buf)   /* always in buf, so callers may print either */
        snprintf(buf, len, "%s", e);
    return buf;
}

static int level_init(level *L, const cache_level_config *lc, uint64_t seed)
{
    uint64_t sets = lc->size / ((uint64_t)lc->assoc * lc->line);
    memset(L, 0, sizeof *L);
    L->assoc = lc->assoc;
    L->line_bits = log2u(lc->line);
    L->set_mask = sets - 1;
    L->policy = lc->policy;
    L->tree_depth = log2u(lc->assoc);
    L->rng = L->seed = seed;
    if (!(L->tags = malloc(sets * lc->assoc * sizeof *L->tags)))
        return -1;
    memset(L->tags, 0xff, sets * lc->assoc * sizeof *L->tags);
    if (L->policy == CACHE_PLRU && !(L->plru = calloc(sets, sizeof *L->plru)))
        return -1;
    return 0;
}

static void level_reset(level *L)
{
    memset(L->tags, 0xff, (L->set_mask + 1) * L->assoc * sizeof *L->tags);
    if (L->plru)
        memset(L->plru, 0, (L->set_mask + 1) * sizeof *L->plru);
    memset(&L->st, 0, sizeof L->st);
    L->rng = L->seed;
}

cache_sim *cache_new(const cache_config *cfg)
{
    char buf[160];
    if (cache_config_check(cfg, buf, sizeof buf))
        return NULL;
    cache_sim *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cfg = *cfg;
    c->n = cfg->nlevels;
    uint32_t min_line = UINT32_MAX;
    for (unsigned k = 0; k < c->n; k++) {
        if (level_init(&c->lv[k], &cfg->level[k], 0x9e3779b97f4a7c15ull + k)) {
            cache_free(c);
            return NULL;
        }
        c->latency[k] = cfg->level[k].latency;
        if (cfg->level[k].line < min_line)
            min_line = cfg->level[k].line;
    }
    c->latency[c->n] = cfg->memory_latency;
    if (cfg->i1.size) {
        c->has_i1 = 1;
        if (level_init(&c->i1, &cfg->i1, 0x2545f4914f6cdd1dull)) {
            cache_free(c);
            return NULL;
        }
        if (cfg->i1.line < min_line)
            min_line = cfg->i1.line;
    }
    c->cg_max_size = min_line;
    return c;
}

void cache_free(cache_sim *c)
{
    if (!c)
        return;
    for (unsigned k = 0; k < CACHE_MAX_LEVELS; k++) {
        free(c->lv[k].tags);
        free(c->lv[k].plru);
    }
    free(c->i1.tags);
    free(c->i1.plru);
    free(c);
}

void cache_reset(cache_sim *c)
{
    for (unsigned k = 0; k < c->n; k++)
        level_reset(&c->lv[k]);
    if (c->has_i1)
        level_reset(&c->i1);
}

/* ---- replacement ---------------------------------------------------- */

/* PLRU: points the tree of a set away from way w. A node's bit says on
 * which side the next victim is (0 left, 1 right). */
static void plru_touch(level *L, uint64_t set, uint32_t w)
{
    uint64_t bits = L->plru[set];
    uint32_t node = 1;
    for (uint32_t d = L->tree_depth; d-- > 0;) {
        uint32_t dir = (w >> d) & 1;
        bits = (bits & ~(1ull << node)) | ((uint64_t)!dir << node);
        node = 2 * node + dir;
    }
    L->plru[set] = bits;
}

static uint32_t plru_victim(const level *L, uint64_t set)
{
    uint64_t bits = L->plru[set];
    uint32_t node = 1, w = 0;
    for (uint32_t d = 0; d < L->tree_depth; d++) {
        uint32_t dir = (bits >> node) & 1;
        w = (w << 1) | dir;
        node = 2 * node + dir;
    }
    return w;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* LRU lookup of line in its set, MRU first: 1 on a hit; on a miss the line
 * is installed as MRU and *victim gets the line pushed out (or EMPTY). */
static inline int lookup_lru(level *L, uint64_t line, uint64_t *victim)
{
    uint64_t *set = &L->tags[(line & L->set_mask) * L->assoc];
    if (set[0] == line)
        return 1;
    uint32_t a = L->assoc, i;
    for (i = 1; i < a && set[i] != line; i++)
        ;
    int hit = i < a;
    if (!hit) {
        i = a - 1;
        *victim = set[i];
    }
    for (; i > 0; i--)   /* short: a loop beats a memmove call */
        set[i] = set[i - 1];
    set[0] = line;
    return hit;
}

/* PLRU and random: ways stay in place; invalid ways are filled first. */
static int lookup_placed(level *L, uint64_t line, uint64_t *victim)
{
    uint64_t s = line & L->set_mask;
    uint64_t *set = &L->tags[s * L->assoc];
    uint32_t a = L->assoc, w, free_way = a;
    for (w = 0; w < a; w++) {
        if (set[w] == line)
            break;
        if (set[w] == EMPTY && free_way == a)
            free_way = w;
    }
    int hit = w < a;
    if (!hit) {
        if (free_way < a)
            w = free_way;
        else if (L->policy == CACHE_PLRU)
            w = plru_victim(L, s);
        else
            w = (uint32_t)(xorshift(&L->rng) % a);
        *victim = set[w];
        set[w] = line;
    }
    if (L->policy == CACHE_PLRU)
        plru_touch(L, s, w);
    return hit;
}

static inline int lookup(level *L, uint64_t line, uint64_t *victim)
{
    return L->policy == CACHE_LRU ? lookup_lru(L, line, victim)
                                  : lookup_placed(L, line, victim);
}

/* Removes line from L if there (inclusion), keeping an LRU set's order:
 * the hole moves to the end, where the next victim is taken. */
static void invalidate(level *L, uint64_t line)
{
    uint64_t *set = &L->tags[(line & L->set_mask) * L->assoc];
    for (uint32_t w = 0; w < L->assoc; w++) {
        if (set[w] != line)
            continue;
        if (L->policy == CACHE_LRU) {
            memmove(set + w, set + w + 1, (L->assoc - 1 - w) * sizeof *set);
            set[L->assoc - 1] = EMPTY;
        } else {
            set[w] = EMPTY;
        }
        L->st.back_invalidations++;
        return;
    }
}

/* Removes every line of [first << bits, (first + 1) << bits) from L. */
static void invalidate_range(level *L, uint64_t first, uint32_t bits)
{
    uint64_t lo = (first << bits) >> L->line_bits;
    uint64_t hi = ((first + 1) << bits) >> L->line_bits;
    for (uint64_t l = lo; l < hi; l++)
        invalidate(L, l);
}

/* Level k (>= 1) evicted its line `victim`: with inclusion, the levels
 * above it and I1 lose it too. */
static void evicted(cache_sim *c, unsigned k, uint64_t victim)
{
    if (victim == EMPTY)
        return;
    c->lv[k].st.evictions++;
    if (!c->cfg.inclusive || k == 0)
        return;
    for (unsigned j = 0; j < k; j++)
        invalidate_range(&c->lv[j], victim, c->lv[k].line_bits);
    if (c->has_i1)
        invalidate_range(&c->i1, victim, c->lv[k].line_bits);
}

/* The line of addr looked up from level k down: the level that had it. */
static unsigned walk(cache_sim *c, unsigned k, uint64_t addr)
{
    for (; k < c->n; k++) {
        level *L = &c->lv[k];
        uint64_t victim = EMPTY;
        if (lookup(L, addr >> L->line_bits, &victim))
            return k;
        if (victim != EMPTY)
            evicted(c, k, victim);
    }
    return c->n;
}

/* Counts one access served at `served` that entered data level `from`:
 * every level it reached saw an access, every level it passed a miss. */
static void count(cache_sim *c, unsigned from, unsigned served, cache_op op)
{
    unsigned last = served < c->n ? served : c->n - 1;
    for (unsigned j = from; j <= last; j++) {
        c->lv[j].st.accesses[op]++;
        c->lv[j].st.misses[op] += j < served;
    }
}

/* ---- the Cachegrind-compatible model --------------------------------- */

/* cg_sim.c's reference: both lines of a straddling access looked up (both
 * updated), one miss if either missed. */
static int cg_miss(level *L, uint64_t addr, uint32_t size)
{
    uint64_t b1 = addr >> L->line_bits, b2 = (addr + size - 1) >> L->line_bits;
    uint64_t v;
    int miss = !lookup_lru(L, b1, &v);
    if (b2 != b1)
        miss |= !lookup_lru(L, b2, &v);
    return miss;
}

/* Cachegrind's I1/D1 then LL: the result level (0, 1 LL, 2 memory). */
static unsigned cg_ref(cache_sim *c, level *l1, uint64_t addr, uint32_t size,
                       cache_op op)
{
    level *ll = &c->lv[1];
    l1->st.accesses[op]++;
    if (!cg_miss(l1, addr, size))
        return 0;
    l1->st.misses[op]++;
    ll->st.accesses[op]++;
    if (!cg_miss(ll, addr, size))
        return 1;
    ll->st.misses[op]++;
    return 2;
}

/* ---- accesses --------------------------------------------------------- */

unsigned cache_access(cache_sim *c, uint64_t addr, uint32_t size, cache_op op)
{
    if (size == 0)
        size = 1;
    if (c->cfg.cachegrind)
        return cg_ref(c, &c->lv[0], addr,
                      size < c->cg_max_size ? size : c->cg_max_size, op);
    level *L0 = &c->lv[0];
    uint64_t line = addr >> L0->line_bits;
    uint64_t last = (addr + size - 1) >> L0->line_bits;
    /* The common case first: one line, D1's most recently used. */
    if (line == last && L0->policy == CACHE_LRU &&
        L0->tags[(line & L0->set_mask) * L0->assoc] == line) {
        L0->st.accesses[op]++;
        return 0;
    }
    unsigned served = walk(c, 0, addr);
    /* A straddling access: the deepest level any of its lines came from. */
    for (uint64_t l = line + 1; l <= last; l++) {
        unsigned s = walk(c, 0, l << L0->line_bits);
        if (s > served)
            served = s;
    }
    count(c, 0, served, op);
    return served;
}

/* One line of a fetch through I1, then from level 1 down. */
static unsigned fetch_line(cache_sim *c, uint64_t addr)
{
    uint64_t victim = EMPTY;
    if (lookup(&c->i1, addr >> c->i1.line_bits, &victim))
        return 0;
    if (victim != EMPTY)
        c->i1.st.evictions++;
    return c->n > 1 ? walk(c, 1, addr) : c->n;
}

unsigned cache_fetch(cache_sim *c, uint64_t addr, uint32_t len)
{
    if (len == 0)
        len = 1;
    if (!c->has_i1)
        return cache_access(c, addr, len, CACHE_FETCH);
    if (c->cfg.cachegrind)
        return cg_ref(c, &c->i1, addr, len, CACHE_FETCH);
    uint32_t b = c->i1.line_bits;
    unsigned served = fetch_line(c, addr);
    for (uint64_t l = (addr >> b) + 1; l <= (addr + len - 1) >> b; l++) {
        unsigned s = fetch_line(c, l << b);
        if (s > served)
            served = s;
    }
    c->i1.st.accesses[CACHE_FETCH]++;
    c->i1.st.misses[CACHE_FETCH] += served > 0;
    if (served > 0)
        count(c, 1, served, CACHE_FETCH);
    return served;
}

uint32_t cache_latency(const cache_sim *c, unsigned level)
{
    return c->latency[level <= c->n ? level : c->n];
}

unsigned cache_nlevels(const cache_sim *c) { return c->n; }

const cache_config *cache_get_config(const cache_sim *c) { return &c->cfg; }

const cache_level_stats *cache_stats(const cache_sim *c, unsigned k)
{
    return &c->lv[k < c->n ? k : c->n - 1].st;
}

const cache_level_stats *cache_i1_stats(const cache_sim *c)
{
    return &c->i1.st;
}

int cache_holds(const cache_sim *c, int k, uint64_t addr)
{
    const level *L = k < 0 ? &c->i1 : &c->lv[k];
    if (k < 0 ? !c->has_i1 : (unsigned)k >= c->n)
        return 0;
    uint64_t line = addr >> L->line_bits;
    const uint64_t *set = &L->tags[(line & L->set_mask) * L->assoc];
    for (uint32_t w = 0; w < L->assoc; w++)
        if (set[w] == line)
            return 1;
    return 0;
}
