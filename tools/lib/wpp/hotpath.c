/*
 * hotpath.c: Larus's hot subpaths on a grammar (see hotpath.h).
 */
#include "wpp/hotpath.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* A marker in a shortened body: the middle of a long rule, which no
 * subpath of max_len symbols can cross. Terminals are below 2^63. */
#define CUT UINT64_MAX

static uint64_t add_sat(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* A counted subpath: its terminals live in the table's arena, so an entry
 * is 24 bytes however long the path (an inline hot_path is 280, and a
 * large grammar has millions of distinct subpaths). */
typedef struct path_entry {
    uint64_t executions;
    uint64_t off;               /* first terminal in path_table.arena */
    uint32_t length;            /* 0: empty slot */
} path_entry;

/* The count table: open addressing over path entries. */
typedef struct path_table {
    path_entry *slots;
    size_t mask, used;
    uint64_t *arena;            /* the entries' terminals, back to back */
    size_t arena_len, arena_cap;
} path_table;

static uint64_t path_hash(const uint64_t *s, uint32_t len)
{
    uint64_t h = len * UINT64_C(0x9E3779B97F4A7C15);
    for (uint32_t i = 0; i < len; i++) {
        h = (h ^ s[i]) * UINT64_C(0xBF58476D1CE4E5B9);
        h ^= h >> 31;
    }
    return h;
}

static path_entry *table_slot(path_entry *slots, size_t mask, const uint64_t *arena,
                              const uint64_t *s, uint32_t len)
{
    size_t i = path_hash(s, len) & mask;
    while (slots[i].length &&
           (slots[i].length != len ||
            memcmp(arena + slots[i].off, s, len * sizeof *s) != 0))
        i = (i + 1) & mask;
    return &slots[i];
}

static int table_grow(path_table *t)
{
    size_t cap = t->slots ? (t->mask + 1) * 2 : 1024;
    path_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; t->slots && i <= t->mask; i++) {
        path_entry *p = &t->slots[i];
        if (p->length)
            *table_slot(slots, cap - 1, t->arena, t->arena + p->off, p->length) = *p;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = cap - 1;
    return 0;
}

/* Adds count occurrences of the subpath s[0..len). */
static int table_add(path_table *t, const uint64_t *s, uint32_t len, uint64_t count)
{
    if ((t->used + 1) * 2 > (t->slots ? t->mask + 1 : 0) && table_grow(t) < 0)
        return -1;
    path_entry *p = table_slot(t->slots, t->mask, t->arena, s, len);
    if (!p->length) {
        /* s may point into the shortened body, never into the arena, so
         * growing the arena cannot move it. */
        if (ARRAY_FIT(t->arena, t->arena_cap, t->arena_len + len) < 0)
            return -1;
        memcpy(t->arena + t->arena_len, s, len * sizeof *s);
        p->off = t->arena_len;
        p->length = len;
        t->arena_len += len;
        t->used++;
    }
    p->executions = add_sat(p->executions, count);
    return 0;
}

/* Per rule: its first and last (max_len - 1) terminals. */
typedef struct ends {
    uint64_t *head, *tail;      /* rule r's at [r * w], w = max_len - 1 */
    uint32_t w;
} ends;

/* Fills head and tail of every rule, children first. */
static void compute_ends(const sq_grammar *g, ends *e)
{
    const uint32_t *order = sq_bottom_up(g);
    for (uint32_t k = 0; k < sq_rule_count(g); k++) {
        uint32_t r = order[k], len = sq_rule_length(g, r), got = 0;
        const uint64_t *body = sq_rule_body(g, r);
        uint64_t *head = e->head + (size_t)r * e->w, *tail = e->tail + (size_t)r * e->w;
        for (uint32_t i = 0; i < len && got < e->w; i++) {
            if (!sq_is_rule(body[i])) {
                head[got++] = sq_code_value(body[i]);
                continue;
            }
            uint32_t c = (uint32_t)sq_code_value(body[i]);
            uint64_t clen = sq_expanded_length(g, c);
            for (uint64_t j = 0; j < clen && j < e->w && got < e->w; j++)
                head[got++] = e->head[(size_t)c * e->w + j];
        }
        /* The tail fills from its end: tail[w - 1] is the last terminal. */
        got = 0;
        for (uint32_t i = len; i-- > 0 && got < e->w;) {
            if (!sq_is_rule(body[i])) {
                tail[e->w - 1 - got++] = sq_code_value(body[i]);
                continue;
            }
            uint32_t c = (uint32_t)sq_code_value(body[i]);
            uint64_t clen = sq_expanded_length(g, c);
            for (uint64_t j = 0; j < clen && j < e->w && got < e->w; j++)
                tail[e->w - 1 - got++] = e->tail[(size_t)c * e->w + e->w - 1 - j];
        }
    }
}

/* How many times each rule occurs in rule 0's expansion, parents first. */
static void compute_occurrences(const sq_grammar *g, uint64_t *occ)
{
    const uint32_t *order = sq_bottom_up(g);
    occ[0] = 1;
    for (uint32_t k = sq_rule_count(g); k-- > 0;) {
        uint32_t r = order[k];
        const uint64_t *body = sq_rule_body(g, r);
        for (uint32_t i = 0; i < sq_rule_length(g, r); i++)
            if (sq_is_rule(body[i])) {
                uint32_t c = (uint32_t)sq_code_value(body[i]);
                occ[c] = add_sat(occ[c], occ[r]);
            }
    }
}

/* A rule's body with each referenced rule shortened: terminals, and for
 * each the body position it came from. */
typedef struct shortened {
    uint64_t *sym;
    uint32_t *from;
    size_t len, cap_sym, cap_from;
} shortened;

static int push(shortened *s, uint64_t sym, uint32_t from)
{
    if (ARRAY_FIT(s->sym, s->cap_sym, s->len + 1) < 0 ||
        ARRAY_FIT(s->from, s->cap_from, s->len + 1) < 0)
        return -1;
    s->sym[s->len] = sym;
    s->from[s->len++] = from;
    return 0;
}

/* Writes rule r's shortened body: a referenced rule of at most 2w
 * terminals whole (its head, then the rest of its tail), a longer one as
 * head, CUT, tail. */
static int shorten(const sq_grammar *g, const ends *e, uint32_t r, shortened *s)
{
    const uint64_t *body = sq_rule_body(g, r);
    s->len = 0;
    for (uint32_t i = 0; i < sq_rule_length(g, r); i++) {
        if (!sq_is_rule(body[i])) {
            if (push(s, sq_code_value(body[i]), i) < 0)
                return -1;
            continue;
        }
        uint32_t c = (uint32_t)sq_code_value(body[i]);
        uint64_t clen = sq_expanded_length(g, c), w = e->w;
        const uint64_t *head = e->head + (size_t)c * w, *tail = e->tail + (size_t)c * w;
        uint64_t nhead = clen < w ? clen : w;
        for (uint64_t j = 0; j < nhead; j++)
            if (push(s, head[j], i) < 0)
                return -1;
        if (clen <= w)
            continue;
        if (clen > 2 * w && push(s, CUT, i) < 0)
            return -1;
        uint64_t rest = clen > 2 * w ? w : clen - w;
        for (uint64_t j = w - rest; j < w; j++)
            if (push(s, tail[j], i) < 0)
                return -1;
    }
    return 0;
}

/* Counts the subpaths owned by rule r: single terminals of its body, and
 * runs of 2..max_len crossing a boundary between its body symbols. */
static int count_rule(const shortened *s, uint32_t max_len, uint64_t occ, path_table *t,
                      const sq_grammar *g, uint32_t r)
{
    const uint64_t *body = sq_rule_body(g, r);
    for (uint32_t i = 0; i < sq_rule_length(g, r); i++)
        if (!sq_is_rule(body[i])) {
            uint64_t v = sq_code_value(body[i]);
            if (table_add(t, &v, 1, occ) < 0)
                return -1;
        }
    for (size_t p = 0; p < s->len; p++) {
        for (size_t len = 2; len <= max_len && p + len <= s->len; len++) {
            size_t end = p + len - 1;
            if (s->sym[end] == CUT || s->sym[p] == CUT)
                break;
            if (s->from[p] != s->from[end] && table_add(t, s->sym + p, (uint32_t)len, occ) < 0)
                return -1;
        }
    }
    return 0;
}

/* Most costly first, then longest, then by terminals (qsort_r's context
 * is the arena). */
static int by_cost(const void *a, const void *b, void *arena)
{
    const path_entry *x = a, *y = b;
    uint64_t cx = mul_sat(x->length, x->executions), cy = mul_sat(y->length, y->executions);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    if (x->length != y->length)
        return x->length > y->length ? -1 : 1;
    const uint64_t *sx = (const uint64_t *)arena + x->off, *sy = (const uint64_t *)arena + y->off;
    return memcmp(sx, sy, x->length * sizeof *sx);
}

int hot_paths(const sq_grammar *g, uint32_t max_len, uint64_t min_cost, size_t limit,
              hot_path **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (max_len < 1 || max_len > HOT_MAX_LEN)
        return -1;
    uint32_t nrules = sq_rule_count(g);
    ends e = { .w = max_len > 1 ? max_len - 1 : 1 };
    e.head = malloc(sizeof *e.head * nrules * e.w);
    e.tail = malloc(sizeof *e.tail * nrules * e.w);
    uint64_t *occ = calloc(nrules, sizeof *occ);
    path_table t = { 0 };
    shortened s = { 0 };
    int rc = e.head && e.tail && occ ? 0 : -1;
    if (rc == 0) {
        compute_ends(g, &e);
        compute_occurrences(g, occ);
    }
    for (uint32_t r = 0; rc == 0 && r < nrules; r++)
        if (shorten(g, &e, r, &s) < 0 || count_rule(&s, max_len, occ[r], &t, g, r) < 0)
            rc = -1;
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && t.slots && i <= t.mask; i++) {
        path_entry *p = &t.slots[i];
        if (p->length && mul_sat(p->length, p->executions) >= min_cost)
            t.slots[kept++] = *p;   /* compacts in place: kept <= i */
    }
    if (rc == 0) {
        qsort_r(t.slots, kept, sizeof *t.slots, by_cost, t.arena);
        *n = kept < limit ? kept : limit;
        if (*n && !(*out = malloc(*n * sizeof **out)))
            rc = -1, *n = 0;
        for (size_t i = 0; i < *n; i++) {
            const path_entry *p = &t.slots[i];
            hot_path *h = &(*out)[i];
            h->length = p->length;
            h->executions = p->executions;
            h->cost = mul_sat(p->length, p->executions);
            memcpy(h->symbols, t.arena + p->off, p->length * sizeof *h->symbols);
        }
    }
    free(t.slots);
    free(t.arena);
    free(e.head);
    free(e.tail);
    free(occ);
    free(s.sym);
    free(s.from);
    return rc;
}
