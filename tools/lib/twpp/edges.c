/* edges.c: TWPP+ read back from a .twpp file (see edges.h). */
#include "twpp/edges.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/sequitur.h"
#include "twpp/bytes.h"
#include "twpp/edgecode.h"
#include "twpp/file_internal.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void twpp_close_plus(twpp_file *f)
{
    free(f->points);
    free(f->loads);
    free(f->load_of);
}

/* One dictionary entry (see write_point in plus.c), checked against the
 * file's functions and symbols. */
static void read_point(twpp_cur *c, const twpp_file *f, twpp_point *pt)
{
    pt->fn = (uint32_t)cur_uv(c, f->m.nfunctions ? f->m.nfunctions - 1 : 0);
    pt->symbol = (uint32_t)cur_uv(c, f->m.nsymbols ? f->m.nsymbols - 1 : 0);
    pt->instr = (uint32_t)cur_uv(c, UINT16_MAX);
    pt->kind = (uint32_t)cur_uv(c, MR_MODIFY);
    pt->size = (uint32_t)cur_uv(c, UINT32_MAX);
    pt->line = (uint32_t)cur_uv(c, UINT32_MAX);
    pt->insn_addr = cur_uv(c, UINT64_MAX);
    pt->single = (int)cur_uv(c, 1);
    pt->addr = pt->single ? cur_uv(c, UINT64_MAX) : 0;
    pt->loads = cur_uv(c, UINT64_MAX);
    pt->stores = cur_uv(c, UINT64_MAX);
    pt->last_fc = pt->stores ? (uint32_t)cur_uv(c, UINT32_MAX) : 0;
    pt->last_bc = pt->stores ? (uint32_t)cur_uv(c, UINT32_MAX) : 0;
    if (pt->kind == 0 || (pt->loads && !(pt->kind & MR_LOAD)) ||
        (pt->stores && !(pt->kind & MR_STORE)) || (pt->stores && (!pt->last_fc || !pt->last_bc)))
        c->bad = 1;
}

static int read_points(twpp_file *f, const uint8_t *p, uint64_t n)
{
    twpp_cur c = { p, p + n, 0 };
    if (f->npoints > n / 10 + 1 || !(f->points = calloc((size_t)f->npoints + 1, sizeof *f->points)))
        return -1;
    for (uint32_t g = 0; g < f->npoints && !c.bad; g++)
        read_point(&c, f, &f->points[g]);
    return c.bad || c.p != c.end ? -1 : 0;
}

/* The load index: every point with loads, in increasing order, with its
 * chunk (the offset in the grammars section from the previous point's
 * chunk: 0, the same chunk, its grammars right after the previous
 * point's; else at the chunk's start), its grammars' length, its edges and
 * dropped edges. A chunk's length is where the next chunk starts (the
 * section's end for the last). */
static int read_index(twpp_file *f, const uint8_t *p, uint64_t n)
{
    twpp_cur c = { p, p + n, 0 };
    int64_t last = -1;
    if (f->nloads > n / 5 + 1 || !(f->loads = calloc((size_t)f->nloads + 1, sizeof *f->loads)) ||
        !(f->load_of = malloc(((size_t)f->npoints + 1) * sizeof *f->load_of)))
        return -1;
    memset(f->load_of, 0xff, ((size_t)f->npoints + 1) * sizeof *f->load_of);
    for (uint32_t i = 0; i < f->nloads && !c.bad; i++) {
        uint64_t gap = cur_uv(&c, f->npoints);
        uint64_t g = (last < 0 ? 0 : (uint64_t)last) + gap;
        uint64_t prev = i ? f->loads[i - 1].off - f->grammars_off : 0;
        uint64_t step = cur_uv(&c, f->grammars_len - prev), chunk = prev + step;
        uint64_t at = i && !step ? f->loads[i - 1].at + f->loads[i - 1].n : 0;
        uint64_t len = cur_uv(&c, UINT64_MAX);
        if (c.bad || g >= f->npoints || (last >= 0 && gap == 0) || at + len < at)
            return -1;
        twpp_point *pt = &f->points[g];
        pt->edges = cur_uv(&c, pt->loads);
        pt->dropped = cur_uv(&c, pt->loads - pt->edges);
        if (!pt->loads || (len == 0) != (pt->edges == 0))
            return -1;
        pt->grammar_bytes = len;
        f->loads[i] = (twpp_load_entry){ (uint32_t)g, f->grammars_off + chunk, 0, at, len };
        f->load_of[g] = i;
        last = (int64_t)g;
    }
    for (uint32_t i = 0; i < f->nloads && !c.bad; i++) {   /* each chunk ends where the next begins */
        uint64_t end = f->grammars_off + f->grammars_len;
        for (uint32_t k = i + 1; k < f->nloads; k++)
            if (f->loads[k].off != f->loads[i].off) {
                end = f->loads[k].off;
                break;
            }
        f->loads[i].len = end - f->loads[i].off;
    }
    for (uint32_t g = 0; g < f->npoints; g++)   /* every point with loads is indexed */
        if (f->points[g].loads && f->load_of[g] == UINT32_MAX)
            return -1;
    return c.bad || c.p != c.end ? -1 : 0;
}

/* A packed section read and parsed by fn; 0 or -1. */
static int read_section(twpp_file *f, uint64_t off, uint64_t len,
                        int (*fn)(twpp_file *, const uint8_t *, uint64_t))
{
    uint8_t *p = twpp_read_at(f, off, len), *raw = NULL;
    uint64_t n = 0;
    int rc = p && twpp_unpack(p, len, &raw, &n) == 0 ? fn(f, raw, n) : -1;
    free(p);
    free(raw);
    return rc;
}

int twpp_load_points(twpp_file *f, char *err, size_t errlen)
{
    if (!f->plus_loaded) {
        f->plus_loaded = 2;
        if (read_section(f, f->points_off, f->points_len, read_points) < 0)
            return fail(err, errlen, "corrupt access-point dictionary");
        if (read_section(f, f->index_off, f->index_len, read_index) < 0)
            return fail(err, errlen, "corrupt load index");
        f->plus_loaded = 1;
    }
    return f->plus_loaded == 1 ? 0 : fail(err, errlen, "corrupt access-point dictionary or load index");
}

uint32_t twpp_point_count(const twpp_file *f) { return f->plus_loaded == 1 ? f->npoints : 0; }
const twpp_point *twpp_file_point(const twpp_file *f, uint32_t g) { return &f->points[g]; }

/* Does pt match "FUNCTION:LINE"? */
static int at_line(const twpp_file *f, const twpp_point *pt, const char *spec)
{
    const char *colon = strrchr(spec, ':');
    char *end;
    if (!colon || colon == spec)
        return 0;
    unsigned long line = strtoul(colon + 1, &end, 10);
    const char *name = f->m.functions[pt->fn].name;
    return *end == 0 && colon[1] && line == pt->line && strlen(name) == (size_t)(colon - spec) &&
           !memcmp(name, spec, (size_t)(colon - spec));
}

int64_t twpp_find_loads(const twpp_file *f, const char *spec, uint32_t **out)
{
    char *end;
    unsigned long long n = strtoull(spec, &end, 10);
    int number = *spec >= '0' && *spec <= '9' && *end == 0;
    int64_t found = 0;
    if (!(*out = malloc(((size_t)twpp_point_count(f) + 1) * sizeof **out)))
        return -1;
    for (uint32_t g = 0; g < twpp_point_count(f); g++) {
        const twpp_point *pt = &f->points[g];
        if (pt->loads && (number ? n == (unsigned long long)g + 1 : at_line(f, pt, spec)))
            (*out)[found++] = g;
    }
    return found;
}

struct twpp_edge_iter {
    uint32_t point, npoints;
    uint64_t left;              /* edges still to come */
    uint64_t items;
    sq_grammar *g[TWPP_COLUMNS];
    sq_iter *it[TWPP_COLUMNS];
    twpp_rep rep[TWPP_COLUMNS];     /* repeat decoding per column */
    twpp_edge_state st;
};

void twpp_edges_close(twpp_edge_iter *it)
{
    if (!it)
        return;
    for (int k = 0; k < TWPP_COLUMNS; k++) {
        sq_iter_free(it->it[k]);
        sq_grammar_free(it->g[k]);
    }
    free(it);
}

/* The six grammars of a block (each must give exactly edges values:
 * checked as they are read). */
static int read_grammars(twpp_edge_iter *it, const uint8_t *p, uint64_t n, uint64_t edges)
{
    twpp_cur c = { p, p + n, 0 };
    char why[128];
    for (int k = 0; k < TWPP_COLUMNS && edges; k++) {
        uint64_t len = cur_uv(&c, (uint64_t)(c.end - c.p));
        if (c.bad || !(it->g[k] = sq_deserialize(c.p, len, why, sizeof why)) ||
            sq_expanded_length(it->g[k], 0) > edges || !(it->it[k] = sq_iter_new(it->g[k], 0)))
            return -1;
        it->items += sq_symbol_count(it->g[k]);
        c.p += len;
    }
    return c.p == c.end ? 0 : -1;
}

twpp_edge_iter *twpp_edges_open(twpp_file *f, uint32_t g, char *err, size_t errlen)
{
    if (twpp_load_points(f, err, errlen) < 0)
        return NULL;
    if (g >= f->npoints || f->load_of[g] == UINT32_MAX) {
        fail(err, errlen, "A%u is not a load point", g + 1);
        return NULL;
    }
    const twpp_load_entry *le = &f->loads[f->load_of[g]];
    twpp_edge_iter *it = calloc(1, sizeof *it);
    uint8_t *p = NULL, *raw = NULL;
    uint64_t rawn = 0;
    if (!it) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    it->point = g;
    it->npoints = f->npoints;
    it->left = f->points[g].edges;
    int ok = !it->left ||       /* no edges: no grammars */
             ((p = twpp_read_at(f, le->off, le->len)) && twpp_unpack(p, le->len, &raw, &rawn) == 0 &&
              le->at <= rawn && le->n <= rawn - le->at && read_grammars(it, raw + le->at, le->n, it->left) == 0);
    if (!ok) {
        fail(err, errlen, "corrupt dependence grammars of A%u", g + 1);
        twpp_edges_close(it);
        it = NULL;
    }
    free(p);
    free(raw);
    return it;
}

/* twpp_rep_get's source: column k's grammar. */
typedef struct column {
    sq_iter *it;
} column;

static int next_terminal(void *ctx, uint64_t *t)
{
    return sq_iter_next(((column *)ctx)->it, t) == 1;
}

/* After the last edge every column must be spent. */
static int all_spent(twpp_edge_iter *it)
{
    uint64_t t;
    for (int k = 0; k < TWPP_COLUMNS; k++)
        if (it->rep[k].m || sq_iter_next(it->it[k], &t) == 1)
            return 0;
    return 1;
}

int twpp_edges_next(twpp_edge_iter *it, twpp_edge *e)
{
    uint64_t col[TWPP_COLUMNS];
    if (!it->left)
        return 0;
    for (int k = 0; k < TWPP_COLUMNS; k++) {
        column src = { it->it[k] };
        if (twpp_rep_get(&it->rep[k], next_terminal, &src, &col[k]) < 0)
            return -1;
    }
    if (--it->left == 0 && !all_spent(it))
        return -1;
    return twpp_edge_decode(&it->st, it->point, col, e) < 0 || e->store.point >= it->npoints ? -1 : 1;
}

uint64_t twpp_edges_items(const twpp_edge_iter *it) { return it->items; }
