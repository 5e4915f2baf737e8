/* edges.c: TWPP+ read back from a .twpp file (see edges.h). */
#include "twpp/edges.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/sequitur.h"
#include "twpp/bytes.h"
#include "twpp/column.h"
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

/* Edges decoded per batch: the six columns' values side by side. */
#define EDGE_BATCH 1024

struct twpp_edge_iter {
    uint32_t point, npoints;
    uint64_t left;              /* edges not decoded yet */
    uint64_t items;
    sq_grammar *g[TWPP_COLUMNS];
    twpp_column col[TWPP_COLUMNS];
    size_t n, at;               /* the current batch's edges, and the next one to hand out */
    int bad;                    /* the columns did not decode: every call fails */
    int skip_load;              /* columns 0 and 1 not read (twpp_edges_skip_load) */
    twpp_edge_state st;
    /* last, left uninitialised (zeroing them cost more than decoding
     * small points): */
    uint64_t vals[TWPP_COLUMNS][EDGE_BATCH];
    twpp_edge edges[EDGE_BATCH];    /* the current batch */
};

void twpp_edges_close(twpp_edge_iter *it)
{
    if (!it)
        return;
    for (int k = 0; k < TWPP_COLUMNS; k++) {
        twpp_column_free(&it->col[k]);
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
            sq_expanded_length(it->g[k], 0) > edges || twpp_column_init(&it->col[k], it->g[k]) < 0)
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
    twpp_edge_iter *it = malloc(sizeof *it);
    uint8_t *p = NULL, *raw = NULL;
    uint64_t rawn = 0;
    if (!it) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    memset(it, 0, offsetof(twpp_edge_iter, vals));
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

/* Decodes the next batch of edges, column by column. 0, or -1 when the
 * columns run dry, are left over after the last edge, or decode to an
 * edge out of range (corrupt). */
static int decode_batch(twpp_edge_iter *it)
{
    size_t want = it->left < EDGE_BATCH ? (size_t)it->left : EDGE_BATCH;
    int first = it->skip_load ? 2 : 0;
    for (int k = first; k < TWPP_COLUMNS; k++)
        if (twpp_column_values(&it->col[k], it->vals[k], want) != (int64_t)want)
            return -1;
    for (size_t i = 0; i < want; i++) {
        uint64_t col[TWPP_COLUMNS] = { first ? 0 : it->vals[0][i], first ? 0 : it->vals[1][i],
                                       it->vals[2][i], it->vals[3][i], it->vals[4][i], it->vals[5][i] };
        int rc = first ? twpp_edge_decode_store(&it->st, it->point, col, &it->edges[i])
                       : twpp_edge_decode(&it->st, it->point, col, &it->edges[i]);
        if (rc < 0 || it->edges[i].store.point >= it->npoints)
            return -1;
    }
    it->left -= want;
    for (int k = first; k < TWPP_COLUMNS && !it->left; k++)   /* after the last edge: all spent */
        if (!twpp_column_spent(&it->col[k]))
            return -1;
    it->n = want;
    it->at = 0;
    return 0;
}

/* Edges decoded and not handed out yet: 1, or 0 at the end, -1 on a
 * corrupt column (the iterator stays bad). */
static int ensure_edges(twpp_edge_iter *it)
{
    if (it->bad)
        return -1;
    if (it->at < it->n)
        return 1;
    if (!it->left)
        return 0;
    if (decode_batch(it) < 0) {
        it->bad = 1;
        return -1;
    }
    return 1;
}

int64_t twpp_edges_batch(twpp_edge_iter *it, const twpp_edge **e)
{
    int rc = ensure_edges(it);
    if (rc <= 0)
        return rc;
    *e = it->edges + it->at;
    size_t n = it->n - it->at;
    it->at = it->n;
    return (int64_t)n;
}

int twpp_edges_next(twpp_edge_iter *it, twpp_edge *e)
{
    int rc = ensure_edges(it);
    if (rc <= 0)
        return rc;
    *e = it->edges[it->at++];
    return 1;
}

void twpp_edges_skip_load(twpp_edge_iter *it) { it->skip_load = it->n == 0; }

uint64_t twpp_edges_items(const twpp_edge_iter *it) { return it->items; }
