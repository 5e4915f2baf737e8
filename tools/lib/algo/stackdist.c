/*
 * stackdist.c: Mattson's stack distances over a Fenwick tree of last-access
 * times (stackdist.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/stackdist.h"
#include "base/array.h"

#define NOBODY UINT64_MAX       /* owner of a time that is no line's last */
#define MIN_AXIS 4096           /* smallest time axis, a multiple of 64 */
#define SAMPLE_BITS 24          /* SHARDS: hash values compared below R*2^24 */

/* A slot of the line -> last-access-time hash (open addressing). */
typedef struct line_slot {
    uint64_t key;               /* line + 1; 0: empty */
    uint64_t time;              /* position of its mark on the time axis */
} line_slot;

struct stackdist {
    uint32_t line_bits;
    double rate;
    uint64_t threshold;         /* sampled when hash < threshold */
    line_slot *map;
    uint64_t map_cap;           /* power of two */
    uint64_t distinct;          /* lines in the map = live marks */
    uint64_t *bits;             /* one bit per time: a live mark */
    int32_t *tree;              /* Fenwick tree of marks per 64-time word,
                                 * 1-based: small enough to stay in cache */
    uint64_t *owner;            /* by time: the line whose last access it is */
    uint64_t axis;              /* positions on the time axis */
    uint64_t now;               /* next position */
    uint64_t *hist;             /* by sampled distance */
    size_t hist_cap;
    uint64_t cold;
    uint64_t offered, sampled;
    uint64_t *far;              /* far[d]: sampled accesses at distance >= d,
                                 * cold included; valid when far_valid */
    size_t far_len;
    int far_valid;
    int failed;
};

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

stackdist *sd_new(uint32_t line_bytes, double rate)
{
    if (!line_bytes || (line_bytes & (line_bytes - 1)) || !(rate > 0) ||
        rate > 1)
        return NULL;
    stackdist *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    while ((1u << s->line_bits) < line_bytes)
        s->line_bits++;
    s->rate = rate;
    s->threshold = (uint64_t)ceil(rate * (double)(1u << SAMPLE_BITS));
    s->map_cap = 1024;
    s->axis = MIN_AXIS;
    s->map = calloc(s->map_cap, sizeof *s->map);
    s->tree = calloc(s->axis / 64 + 1, sizeof *s->tree);
    s->bits = calloc(s->axis / 64, sizeof *s->bits);
    s->owner = malloc(s->axis * sizeof *s->owner);
    if (!s->map || !s->tree || !s->bits || !s->owner) {
        sd_free(s);
        return NULL;
    }
    return s;
}

void sd_free(stackdist *s)
{
    if (!s)
        return;
    free(s->map);
    free(s->tree);
    free(s->bits);
    free(s->owner);
    free(s->hist);
    free(s->far);
    free(s);
}

/* ---- the line map ---------------------------------------------------- */

static line_slot *map_find(line_slot *map, uint64_t cap, uint64_t key)
{
    uint64_t i = mix64(key) & (cap - 1);
    while (map[i].key && map[i].key != key)
        i = (i + 1) & (cap - 1);
    return &map[i];
}

static int map_grow(stackdist *s)
{
    uint64_t cap = s->map_cap * 2;
    line_slot *m = calloc(cap, sizeof *m);
    if (!m)
        return -1;
    for (uint64_t i = 0; i < s->map_cap; i++)
        if (s->map[i].key)
            *map_find(m, cap, s->map[i].key) = s->map[i];
    free(s->map);
    s->map = m;
    s->map_cap = cap;
    return 0;
}

/* ---- the marks ------------------------------------------------------ */

/* Marks are bits, 64 times to a word; a Fenwick tree counts the marks of
 * each word, so that a count walks log2(axis / 64) cached entries and one
 * popcount instead of log2(axis) scattered ones. */
static void tree_add(int32_t *tree, uint64_t nwords, uint64_t word, int32_t v)
{
    for (uint64_t i = word + 1; i <= nwords; i += i & -i)
        tree[i] += v;
}

/* Marks in words 0 .. word-1. */
static uint64_t tree_prefix(const int32_t *tree, uint64_t word)
{
    uint64_t sum = 0;
    for (uint64_t i = word; i; i -= i & -i)
        sum += (uint64_t)tree[i];
    return sum;
}

static void mark(stackdist *s, uint64_t t)
{
    s->bits[t / 64] |= 1ull << (t % 64);
    tree_add(s->tree, s->axis / 64, t / 64, 1);
}

static void unmark(stackdist *s, uint64_t t)
{
    s->bits[t / 64] &= ~(1ull << (t % 64));
    tree_add(s->tree, s->axis / 64, t / 64, -1);
}

/* Marks at times 0 .. t. */
static uint64_t marks_upto(const stackdist *s, uint64_t t)
{
    uint64_t w = t / 64, below = s->bits[w] & (~0ull >> (63 - t % 64));
    return tree_prefix(s->tree, w) + (uint64_t)__builtin_popcountll(below);
}

/* The axis is full: renumber the live marks 0 .. D-1 in time order and make
 * the axis at least twice D (so that D accesses pass before the next
 * compaction, which costs O(D)). The axis is a multiple of 64. */
static int compact(stackdist *s)
{
    uint64_t live = 0;
    for (uint64_t t = 0; t < s->now; t++) {
        uint64_t key = s->owner[t];
        if (key == NOBODY)
            continue;
        map_find(s->map, s->map_cap, key)->time = live;
        s->owner[live++] = key;
    }
    uint64_t axis = live * 2 > MIN_AXIS ? (live * 2 + 63) / 64 * 64 : MIN_AXIS;
    if (axis != s->axis) {
        int32_t *tree = realloc(s->tree, (axis / 64 + 1) * sizeof *tree);
        if (tree)
            s->tree = tree;
        uint64_t *bits = tree ? realloc(s->bits, axis / 64 * sizeof *bits) : NULL;
        if (bits)
            s->bits = bits;
        uint64_t *owner = bits ? realloc(s->owner, axis * sizeof *owner) : NULL;
        if (!owner)
            return -1;
        s->owner = owner;
        s->axis = axis;
    }
    /* Times 0 .. live-1 are marked; the tree is built in linear time. */
    uint64_t nwords = s->axis / 64;
    memset(s->bits, 0, nwords * sizeof *s->bits);
    for (uint64_t w = 0; w < live / 64; w++)
        s->bits[w] = ~0ull;
    if (live % 64)
        s->bits[live / 64] = ~0ull >> (64 - live % 64);
    memset(s->tree, 0, (nwords + 1) * sizeof *s->tree);
    for (uint64_t i = 1; i <= nwords; i++) {
        s->tree[i] += __builtin_popcountll(s->bits[i - 1]);
        uint64_t parent = i + (i & -i);
        if (parent <= nwords)
            s->tree[parent] += s->tree[i];
    }
    s->now = live;
    return 0;
}

/* ---- accesses ---------------------------------------------------------- */

/* One line: its distance (unscaled, in sampled lines) or SD_COLD. */
static uint64_t touch(stackdist *s, uint64_t line)
{
    if (s->now == s->axis && compact(s))
        return s->failed = 1, SD_SKIPPED;
    if ((s->distinct + 1) * 2 > s->map_cap && map_grow(s))
        return s->failed = 1, SD_SKIPPED;
    line_slot *slot = map_find(s->map, s->map_cap, line + 1);
    uint64_t d = SD_COLD;
    if (slot->key) {
        uint64_t p = slot->time;
        d = s->distinct - marks_upto(s, p);
        unmark(s, p);
        s->owner[p] = NOBODY;
    } else {
        slot->key = line + 1;
        s->distinct++;
    }
    slot->time = s->now;
    s->owner[s->now] = line + 1;
    mark(s, s->now++);
    return d;
}

static int count(stackdist *s, uint64_t d)
{
    s->far_valid = 0;
    if (d == SD_COLD) {
        s->cold++;
        return 0;
    }
    if (ARRAY_FIT(s->hist, s->hist_cap, d + 1) < 0)
        return -1;
    s->hist[d]++;
    return 0;
}

uint64_t sd_access(stackdist *s, uint64_t addr, uint32_t size)
{
    uint64_t first = addr >> s->line_bits;
    uint64_t last = (addr + (size ? size : 1) - 1) >> s->line_bits;
    s->offered++;
    if (s->failed)
        return SD_SKIPPED;
    uint64_t worst = SD_SKIPPED;
    int any = 0;
    for (uint64_t l = first; l <= last; l++) {
        if (s->rate < 1 &&
            (mix64(l) & ((1u << SAMPLE_BITS) - 1)) >= s->threshold)
            continue;
        uint64_t d = touch(s, l);
        if (s->failed)
            return SD_SKIPPED;
        if (!any || d == SD_COLD || (worst != SD_COLD && d > worst))
            worst = d;
        any = 1;
    }
    if (!any)
        return SD_SKIPPED;
    s->sampled++;
    if (count(s, worst)) {
        s->failed = 1;
        return SD_SKIPPED;
    }
    if (worst == SD_COLD || s->rate == 1)
        return worst;
    return (uint64_t)((double)worst / s->rate);
}

int sd_failed(const stackdist *s) { return s->failed; }
uint64_t sd_accesses(const stackdist *s) { return s->offered; }
uint64_t sd_sampled(const stackdist *s) { return s->sampled; }
uint64_t sd_distinct(const stackdist *s) { return s->distinct; }
double sd_rate(const stackdist *s) { return s->rate; }
uint32_t sd_line_bytes(const stackdist *s) { return 1u << s->line_bits; }

uint64_t sd_max_lines(const stackdist *s)
{
    return (uint64_t)ceil((double)s->distinct / s->rate);
}

/* far[d] = cold + accesses at distance >= d, d = 0 .. hist length. */
static int sum_far(stackdist *s)
{
    size_t n = s->hist_cap + 1;
    if (n > s->far_len) {
        uint64_t *f = realloc(s->far, n * sizeof *f);
        if (!f)
            return -1;
        s->far = f;
        s->far_len = n;
    }
    uint64_t acc = s->cold;
    s->far[s->hist_cap] = acc;
    for (size_t d = s->hist_cap; d-- > 0;) {
        acc += s->hist[d];
        s->far[d] = acc;
    }
    s->far_valid = 1;
    return 0;
}

double sd_miss_ratio(stackdist *s, uint64_t lines)
{
    if (!s->offered)
        return 0;
    if (!s->far_valid && sum_far(s))
        return -1;
    /* sampled distance d stands for d / R lines: a miss when d / R >= lines */
    double scaled = ceil((double)lines * s->rate);
    size_t d = scaled >= (double)s->hist_cap ? s->hist_cap : (size_t)scaled;
    double misses = (double)s->far[d];
    double expected = (double)s->offered * s->rate;   /* SHARDS-adj */
    if (s->rate == 1)
        expected = (double)s->sampled;
    double r = expected > 0 ? misses / expected : 0;
    return r > 1 ? 1 : r;
}
