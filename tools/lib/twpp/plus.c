/* plus.c: TWPP+ while a trace is read, and its sections (see plus.h). */
#include "twpp/plus.h"

#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "algo/sequitur.h"
#include "base/array.h"
#include "base/u64map.h"
#include "stream/access.h"
#include "twpp/deps.h"
#include "twpp/edgecode.h"
#include "twpp/file_internal.h"

#define EDGE_CHUNK 16384         /* a point's buffered groups are zstd'd in chunks of this */

/* A point while building: the public entry, its machine instruction,
 * its buffered edges and, after finish, its block of six serialized
 * grammars. The buffer holds groups: an edge's six column values
 * (edgecode.h) as varints and how many more edges repeat them (a loop's
 * edges mostly do: same deltas, same store point); the group being
 * counted is in last and repeats until flushed. */
typedef struct point {
    twpp_point pub;
    uint32_t insn;
    uint64_t unwritten;         /* loads that read memory no store wrote */
    twpp_edge_state st;
    uint64_t last[TWPP_COLUMNS];
    uint64_t repeats;           /* edges equal to last not yet in the buffer */
    int grouped;                /* last holds a group */
    twpp_buf edges;             /* groups not yet packed */
    twpp_buf packed;            /* chunks: varint packed length, raw length, zstd frame */
    twpp_buf block;
} point;

/* The addresses one machine instruction touched: one, or more. */
typedef struct insn_rec {
    uint64_t addr;
    uint32_t size;
    uint8_t seen, multi;
} insn_rec;

/* A symbol's access points for its full executions in one function. */
typedef struct sym_cache {
    const mr_block_def *def;
    uint32_t fn, n;
    uint32_t *g;                /* NULL: not made */
} sym_cache;

struct twpp_plus {
    access_stream *stream;      /* instruction numbers and their records */
    twpp_deps *deps;            /* the exact last-writer pass */
    u64map point_of;            /* hash of (fn, symbol, instr, kind) -> point + 1 */
    point *points;
    size_t points_cap;
    uint32_t npoints;
    sym_cache *cache;
    size_t cache_cap;
    uint32_t *scratch;          /* points of a partial execution */
    size_t scratch_cap;
    twpp_plus_counts counts;
    uint64_t grammar_symbols;
    ZSTD_CCtx *cctx;            /* for the edge chunks */
    ZSTD_DCtx *dctx;
};

twpp_plus *twpp_plus_new(void)
{
    twpp_plus *p = calloc(1, sizeof *p);
    if (!p || !(p->stream = access_stream_new(sizeof(insn_rec))) || !(p->deps = twpp_deps_new())) {
        twpp_plus_free(p);
        return NULL;
    }
    return p;
}

void twpp_plus_free(twpp_plus *p)
{
    if (!p)
        return;
    access_stream_free(p->stream);
    twpp_deps_free(p->deps);
    u64map_free(&p->point_of);
    for (uint32_t i = 0; i < p->npoints; i++) {
        free(p->points[i].edges.p);
        free(p->points[i].packed.p);
        free(p->points[i].block.p);
    }
    free(p->points);
    for (size_t i = 0; i < p->cache_cap; i++)
        free(p->cache[i].g);
    free(p->cache);
    free(p->scratch);
    ZSTD_freeCCtx(p->cctx);
    ZSTD_freeDCtx(p->dctx);
    free(p);
}

/* 64-bit mix of a point's key. */
static uint64_t point_hash(uint32_t fn, uint32_t symbol, uint32_t instr, uint32_t kind)
{
    uint64_t h = ((uint64_t)fn << 32 | symbol) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)instr << 2 | kind) * 0xC2B2AE3D27D4EB4Full;
    return h ^ h >> 29;
}

/* The point of access i of x at w, made at its first sight; UINT32_MAX
 * when out of memory. */
static uint32_t intern_point(twpp_plus *p, const twpp_where *w, const access_exec *x, uint32_t i)
{
    const mr_access *a = &x->acc[i];
    for (uint64_t key = point_hash(w->fn, w->symbol, a->instr, a->kind);; key++) {
        int added;
        void **slot = u64map_slot_of(&p->point_of, key, &added);
        if (!slot)
            return UINT32_MAX;
        if (!added) {
            const twpp_point *q = &p->points[(uintptr_t)*slot - 1].pub;
            if (q->fn == w->fn && q->symbol == w->symbol && q->instr == a->instr && q->kind == a->kind)
                return (uint32_t)((uintptr_t)*slot - 1);
            continue;           /* another point's hash: probe on */
        }
        if (ARRAY_FIT(p->points, p->points_cap, p->npoints + 1) < 0)
            return UINT32_MAX;
        const insn_info *in = insn_table_get(access_stream_insns(p->stream), x->insn[i]);
        p->points[p->npoints] = (point){ .pub = { .fn = w->fn, .symbol = w->symbol, .instr = a->instr,
                                                  .kind = a->kind, .size = a->size,
                                                  .insn_addr = in ? in->addr : 0 },
                                         .insn = x->insn[i] };
        *slot = (void *)(uintptr_t)++p->npoints;
        return p->npoints - 1;
    }
}

/* The points of x's accesses: a full execution's from its symbol's
 * cache (made at the first), a partial one's looked up. NULL: no memory. */
static const uint32_t *points_of(twpp_plus *p, const twpp_where *w, const access_exec *x)
{
    const mr_block_def *def = x->ev->u.exec.def;
    uint32_t exit = x->ev->u.exec.exit;
    int full = exit < def->nexits && x->n == def->exits[exit].naccesses;
    sym_cache *c = NULL;
    if (full) {
        size_t had = p->cache_cap;
        if (ARRAY_FIT(p->cache, p->cache_cap, (size_t)w->symbol + 1) < 0)
            return NULL;
        memset(p->cache + had, 0, (p->cache_cap - had) * sizeof *p->cache);
        c = &p->cache[w->symbol];
        if (c->g && c->def == def && c->fn == w->fn && c->n == x->n)
            return c->g;
        if (c->g)
            c = NULL;           /* held by another function or definition: look up */
    }
    uint32_t *g = c ? malloc(x->n * sizeof *g) : NULL;
    if (c && !g)
        return NULL;
    if (!c) {
        if (ARRAY_FIT(p->scratch, p->scratch_cap, x->n) < 0)
            return NULL;
        g = p->scratch;
    }
    for (uint32_t i = 0; i < x->n; i++)
        if ((g[i] = intern_point(p, w, x, i)) == UINT32_MAX) {
            free(c ? g : NULL);
            return NULL;
        }
    if (c)
        *c = (sym_cache){ def, w->fn, x->n, g };
    return g;
}

/* Writes the group in last, if any, to the buffer. */
static void flush_group(twpp_plus *p, point *pt)
{
    if (!pt->grouped)
        return;
    /* room for a whole group at once, then the varints written in place:
     * this runs once per group, most of a build's buffering */
    if (ARRAY_FIT(pt->edges.p, pt->edges.cap, pt->edges.n + (TWPP_COLUMNS + 1) * 10) < 0) {
        pt->edges.err = 1;
        return;
    }
    uint8_t *q = pt->edges.p + pt->edges.n;
    for (int k = 0; k <= TWPP_COLUMNS; k++) {
        uint64_t v = k < TWPP_COLUMNS ? pt->last[k] : pt->repeats;
        for (; v >= 0x80; v >>= 7)
            *q++ = (uint8_t)(v | 0x80);
        *q++ = (uint8_t)v;
    }
    pt->edges.n = (size_t)(q - pt->edges.p);
    pt->repeats = 0;
    pt->grouped = 0;
    if (pt->edges.n < EDGE_CHUNK || pt->edges.err)
        return;
    /* a full chunk zstd'd: a loop's edges repeat with short periods (two
     * stores taking turns) that the groups miss and zstd does not */
    size_t cap = ZSTD_compressBound(pt->edges.n);
    uint8_t *z = malloc(cap);
    if (!p->cctx)
        p->cctx = ZSTD_createCCtx();    /* one context for all: making one per chunk cost a fifth */
    size_t zn = z && p->cctx ? ZSTD_compressCCtx(p->cctx, z, cap, pt->edges.p, pt->edges.n, 1) : 0;
    if (!z || !p->cctx || ZSTD_isError(zn))
        pt->edges.err = 1;
    else {
        buf_uv(&pt->packed, zn);
        buf_uv(&pt->packed, pt->edges.n);
        buf_bytes(&pt->packed, z, zn);
        pt->edges.err |= pt->packed.err;
        pt->edges.n = 0;
    }
    free(z);
}

/* A load by point g: its edge buffered, or counted as unwritten. */
static int load(twpp_plus *p, point *pt, const twpp_instance *in, const mr_access *a)
{
    twpp_edge e;
    int r = twpp_deps_load(p->deps, in, a->addr, a->size, &e);
    pt->pub.loads++;
    if (r < 0)
        return -1;
    if (r == 0) {
        pt->unwritten++;
        return 0;
    }
    uint64_t col[TWPP_COLUMNS];
    twpp_edge_encode(&pt->st, &e, col);
    pt->pub.edges++;
    if (pt->grouped && !memcmp(col, pt->last, sizeof col)) {
        pt->repeats++;
        return 0;
    }
    flush_group(p, pt);
    memcpy(pt->last, col, sizeof col);
    pt->grouped = 1;
    return pt->edges.err ? -1 : 0;
}

int twpp_plus_exec(twpp_plus *p, const twpp_where *w, const mr_event *ev)
{
    access_exec x;
    int r = access_stream_exec(p->stream, ev, &x);
    if (r <= 0)
        return r;
    const uint32_t *g = points_of(p, w, &x);
    if (!g)
        return -1;
    for (uint32_t i = 0; i < x.n; i++) {
        const mr_access *a = &x.acc[i];
        insn_rec *ir = access_user(&x, i);
        if (!ir->seen)
            *ir = (insn_rec){ a->addr, a->size, 1, 0 };
        else if (ir->addr != a->addr || ir->size != a->size)
            ir->multi = 1;
        point *pt = &p->points[g[i]];
        twpp_instance in = { g[i], w->fc, w->bc };
        if ((a->kind & MR_LOAD) && load(p, pt, &in, a) < 0)
            return -1;
        if (a->kind & MR_STORE) {
            if (twpp_deps_store(p->deps, &in, a->addr, a->size) < 0)
                return -1;
            pt->pub.stores++;
            pt->pub.last_fc = w->fc;
            pt->pub.last_bc = w->bc;
        }
    }
    return 0;
}

/* twpp_rep's emit: one terminal into a Sequitur builder. */
static int append(void *sq, uint64_t terminal)
{
    return sq_append(sq, terminal);
}

/* Point pt's kept edges as six Sequitur grammars in pt->block: per
 * column (repeats coded as copies, edgecode.h) a varint length and
 * sq_serialize's blob. */
/* Turning one point's buffered groups into its six columns. */
typedef struct feeder {
    twpp_plus *p;
    point *pt;
    int keep_all;
    sequitur *sq[TWPP_COLUMNS];
    twpp_rep rep[TWPP_COLUMNS];
    twpp_edge_state in, out;
    uint64_t kept, seen;
} feeder;

/* Feeds the groups in [q, q + n) (whole groups: a chunk never splits
 * one); the edges kept go through the repeat coders into Sequitur. */
static int feed_groups(feeder *fd, const uint8_t *q, size_t n)
{
    twpp_cur c = { q, q + n, 0 };
    int rc = 0;
    while (c.p < c.end && rc == 0) {
        uint64_t col[TWPP_COLUMNS], repeats;
        for (int k = 0; k < TWPP_COLUMNS; k++)
            col[k] = cur_uv(&c, UINT64_MAX);
        repeats = cur_uv(&c, UINT64_MAX);
        if (c.bad)
            return -1;
        if (fd->keep_all || !fd->pt->pub.single) {
            /* nothing of this point is dropped: the kept edges' columns
             * are the buffered ones, no need to decode and encode again */
            for (uint64_t r = 0; r <= repeats && rc == 0; r++) {
                for (int k = 0; k < TWPP_COLUMNS && rc == 0; k++)
                    rc = twpp_rep_put(&fd->rep[k], col[k], append, fd->sq[k]);
            }
            fd->seen += repeats + 1;
            fd->kept += repeats + 1;
            continue;
        }
        for (uint64_t r = 0; r <= repeats && rc == 0; r++, fd->seen++) {
            twpp_edge e;
            uint64_t out_col[TWPP_COLUMNS];
            if (c.bad || twpp_edge_decode(&fd->in, (uint32_t)(fd->pt - fd->p->points), col, &e) < 0)
                return -1;
            if (!fd->keep_all && fd->pt->pub.single && fd->p->points[e.store.point].pub.single)
                continue;       /* both ends at one known address: control flow recovers it */
            twpp_edge_encode(&fd->out, &e, out_col);
            for (int k = 0; k < TWPP_COLUMNS && rc == 0; k++)
                rc = twpp_rep_put(&fd->rep[k], out_col[k], append, fd->sq[k]);
            fd->kept++;
        }
    }
    return rc;
}

/* Feeds the point's packed chunks, then its last raw one. */
static int feed_point(feeder *fd)
{
    point *pt = fd->pt;
    twpp_cur c = { pt->packed.p, pt->packed.p + pt->packed.n, 0 };
    uint8_t *raw = NULL;
    int rc = 0;
    while (c.p < c.end && rc == 0) {
        uint64_t zn = cur_uv(&c, (uint64_t)(c.end - c.p)), rn = cur_uv(&c, EDGE_CHUNK * 2);
        if (!fd->p->dctx)
            fd->p->dctx = ZSTD_createDCtx();
        if (c.bad || !fd->p->dctx || (!raw && !(raw = malloc(EDGE_CHUNK * 2))) ||
            ZSTD_decompressDCtx(fd->p->dctx, raw, rn, c.p, zn) != rn)
            rc = -1;
        else
            rc = feed_groups(fd, raw, rn);
        c.p += zn;
    }
    free(raw);
    return rc ? rc : feed_groups(fd, pt->edges.p, pt->edges.n);
}

/* Point pt's kept edges as six Sequitur grammars in pt->block: per
 * column (repeats coded as copies, edgecode.h) a varint length and
 * sq_serialize's blob. */
static int make_grammars(twpp_plus *p, point *pt, int keep_all)
{
    feeder fd = { .p = p, .pt = pt, .keep_all = keep_all };
    int rc = 0;
    flush_group(p, pt);
    for (int k = 0; k < TWPP_COLUMNS && rc == 0; k++)
        rc = (fd.sq[k] = sq_new()) ? 0 : -1;
    if (rc == 0)
        rc = feed_point(&fd);
    if (fd.seen != pt->pub.edges)
        rc = -1;
    for (int k = 0; k < TWPP_COLUMNS && rc == 0; k++)
        rc = twpp_rep_flush(&fd.rep[k], append, fd.sq[k]);
    for (int k = 0; k < TWPP_COLUMNS && rc == 0 && fd.kept; k++) {
        sq_grammar *gr = sq_finish(fd.sq[k]);
        void *blob = NULL;
        size_t len = 0;
        rc = gr && sq_serialize(gr, &blob, &len) == 0 ? 0 : -1;
        if (rc == 0) {
            p->grammar_symbols += sq_symbol_count(gr);
            pt->pub.grammar_symbols += sq_symbol_count(gr);
            buf_uv(&pt->block, len);
            buf_bytes(&pt->block, blob, len);
            rc = pt->block.err ? -1 : 0;
        }
        free(blob);
        sq_grammar_free(gr);
    }
    for (int k = 0; k < TWPP_COLUMNS; k++)
        sq_free(fd.sq[k]);
    pt->pub.dropped = pt->pub.edges - fd.kept;
    pt->pub.grammar_bytes = pt->block.n;
    pt->pub.edges = fd.kept;
    free(pt->edges.p);
    free(pt->packed.p);
    pt->edges = pt->packed = (twpp_buf){ 0 };
    return rc;
}

int twpp_plus_finish(twpp_plus *p, const mr_reader *r, int keep_all)
{
    twpp_plus_counts *c = &p->counts;
    for (uint32_t g = 0; g < p->npoints; g++) {
        point *pt = &p->points[g];
        const insn_rec *ir = access_stream_user(p->stream, pt->insn);
        pt->pub.single = ir->seen && !ir->multi;
        pt->pub.addr = pt->pub.single ? ir->addr : 0;
        const mr_symbol *s = r ? mr_reader_symbol(r, pt->pub.insn_addr) : NULL;
        pt->pub.line = s ? s->line : 0;
    }
    for (uint32_t g = 0; g < p->npoints; g++) {
        point *pt = &p->points[g];
        c->points++;
        c->load_points += pt->pub.loads > 0;
        c->store_points += pt->pub.stores > 0;
        c->loads += pt->pub.loads;
        c->stores += pt->pub.stores;
        c->unwritten += pt->unwritten;
        c->single_loads += pt->pub.loads && pt->pub.single;
        c->single_stores += pt->pub.stores && pt->pub.single;
        if (pt->pub.loads && make_grammars(p, pt, keep_all) < 0)
            return -1;
        c->edges += pt->pub.edges;
        c->dropped += pt->pub.dropped;
    }
    c->accesses = c->loads + c->stores;
    twpp_deps_scan(p->deps, &c->scan_sum, &c->scan_max);
    twpp_deps_free(p->deps);    /* the shadow memory is no longer needed */
    p->deps = NULL;
    return 0;
}

void twpp_plus_count(const twpp_plus *p, twpp_plus_counts *c) { *c = p->counts; }
uint32_t twpp_plus_point_count(const twpp_plus *p) { return p->npoints; }
const twpp_point *twpp_plus_point(const twpp_plus *p, uint32_t g) { return &p->points[g].pub; }

/* The dictionary entry of pt (layout in docs/trace-twpp.md). */
static void write_point(twpp_buf *b, const twpp_point *pt, const uint32_t *rank)
{
    buf_uv(b, rank ? rank[pt->fn] : pt->fn);
    buf_uv(b, pt->symbol);
    buf_uv(b, pt->instr);
    buf_uv(b, pt->kind);
    buf_uv(b, pt->size);
    buf_uv(b, pt->line);
    buf_uv(b, pt->insn_addr);
    buf_uv(b, (uint64_t)pt->single);
    if (pt->single)
        buf_uv(b, pt->addr);
    buf_uv(b, pt->loads);
    buf_uv(b, pt->stores);
    if (pt->stores) {
        buf_uv(b, pt->last_fc);
        buf_uv(b, pt->last_bc);
    }
}

int twpp_plus_write(const twpp_plus *p, const uint32_t *rank, twpp_buf *points,
                    twpp_buf *index, twpp_buf *grammars, twpp_plus_sizes *sz)
{
    uint32_t last = 0;
    twpp_buf chunk = {0};       /* the grammars of consecutive load points */
    uint64_t chunk_at = 0, prev_chunk = 0;
    for (uint32_t g = 0; g < p->npoints; g++) {
        const point *pt = &p->points[g];
        write_point(points, &pt->pub, rank);
        if (!pt->pub.loads)
            continue;
        if (chunk.n && chunk.n + pt->block.n > TWPP_GRAMMAR_CHUNK) {
            twpp_pack(grammars, &chunk);        /* small grammars packed together (their */
            chunk_at = grammars->n;             /* headers repeat), a big one alone */
            chunk.n = 0;
        }
        buf_uv(index, g - last);    /* load points in increasing order, as gaps */
        buf_uv(index, chunk_at - prev_chunk);   /* its chunk (0: the previous point's, */
        prev_chunk = chunk_at;                  /* its grammars right after that point's) */
        buf_uv(index, pt->block.n);
        buf_uv(index, pt->pub.edges);
        buf_uv(index, pt->pub.dropped);
        buf_bytes(&chunk, pt->block.p, pt->block.n);
        sz->edges_raw += pt->pub.edges * TWPP_COLUMNS * 4;
        last = g;
    }
    if (chunk.n)
        twpp_pack(grammars, &chunk);
    free(chunk.p);
    sz->grammars = grammars->n;
    sz->grammar_symbols = p->grammar_symbols;
    return points->err || index->err || grammars->err ? -1 : 0;
}
