/* file.c: writing and reading the .twpp file (see file.h). */
#include "twpp/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/array.h"
#include "twpp/bytes.h"
#include "twpp/file_internal.h"
#include "twpp/lzw.h"
#include "twpp/symtab.h"
#include "twpp/timestamps.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- writing ------------------------------------------------------------ */

/* Functions in file order: most calls first, ties by first call. */
static const twpp_model *sort_model;
static int by_calls(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t cx = sort_model->functions[x].calls, cy = sort_model->functions[y].calls;
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return (x > y) - (x < y);
}

/* A dictionary [chains, (len, symbols)...]: the counts as they are, each
 * symbol as the zigzag delta from the symbol before it (chains run
 * through symbols first executed together: small deltas). */
static void write_dict(twpp_buf *b, const twpp_seq *d)
{
    const uint32_t *p = d->v + 1, *end = d->v + d->n;
    int64_t prev = 0;
    buf_uv(b, d->v[0]);
    for (; p < end; p += 1 + p[0]) {
        buf_uv(b, p[0]);
        for (uint32_t k = 1; k <= p[0]; k++) {
            buf_sv(b, (int64_t)p[k] - prev);
            prev = p[k];
        }
    }
}

/* Function f's block; adds its parts to sz. */
static void write_function(twpp_buf *b, const twpp_function *f, uint32_t nsymbols, twpp_sizes *sz)
{
    size_t at = b->n;
    buf_uv(b, f->npaths);
    buf_uv(b, f->ntraces);
    buf_uv(b, f->ndicts);
    buf_uv(b, f->raw_unique_blocks);
    buf_uv(b, f->raw_blocks);
    for (uint32_t p = 0; p < f->npaths; p++) {
        buf_uv(b, f->paths[p].trace);
        buf_uv(b, f->paths[p].dict);
        buf_uv(b, f->paths[p].calls);
    }
    sz->paths += b->n - at;
    at = b->n;
    for (uint32_t t = 0; t < f->ntraces; t++)
        if (twpp_ts_write(b, &f->traces[t], nsymbols) < 0)
            b->err = 1;
    sz->traces += b->n - at;
    at = b->n;
    for (uint32_t d = 0; d < f->ndicts; d++)
        write_dict(b, &f->dicts[d]);
    sz->dicts += b->n - at;
}

/* The DCG in preorder per thread, file function indices. */
static void write_dcg(twpp_buf *b, const twpp_model *m, const uint32_t *rank)
{
    for (uint32_t i = 0; i < m->nthreads; i++) {
        const twpp_thread *t = &m->threads[i];
        buf_uv(b, t->tid);
        buf_uv(b, t->nnodes);
        for (uint64_t k = 0; k < t->nnodes; k++) {
            buf_uv(b, rank[t->fn[k]]);
            buf_uv(b, t->path[k]);
        }
    }
}

/* The smaller of zstd and LZW of raw into *out; sets the codec. */
static int compress_dcg(const twpp_buf *raw, twpp_buf *out, twpp_sizes *sz)
{
    size_t zcap = ZSTD_compressBound(raw->n);
    uint8_t *z = malloc(zcap + 1), *l = NULL;
    size_t zn = z ? ZSTD_compress(z, zcap, raw->p, raw->n, 19) : 0, ln = 0;
    int rc = -1;
    if (z && !ZSTD_isError(zn) && lzw_compress(raw->p, raw->n, &l, &ln) == 0) {
        sz->dcg_zstd = zn;
        sz->dcg_lzw = ln;
        sz->dcg_codec = zn <= ln ? TWPP_CODEC_ZSTD : TWPP_CODEC_LZW;
        buf_bytes(out, zn <= ln ? z : l, zn <= ln ? zn : ln);
        rc = out->err ? -1 : 0;
    }
    free(z);
    free(l);
    return rc;
}

/* A section as stored: a codec byte (TWPP_PACK_RAW or TWPP_PACK_ZSTD),
 * the raw length, then the bytes, zstd'd when that is smaller. Chunks of
 * function blocks and of dependence grammars are packed on their own, so
 * that each is still read alone. */
void twpp_pack(twpp_buf *out, const twpp_buf *raw)
{
    size_t cap = ZSTD_compressBound(raw->n);
    uint8_t *z = raw->err ? NULL : malloc(cap + 1);
    size_t zn = z ? ZSTD_compress(z, cap, raw->p, raw->n, TWPP_ZSTD_LEVEL) : 0;
    int zstd = z && !ZSTD_isError(zn) && zn < raw->n;
    uint8_t codec = zstd ? TWPP_PACK_ZSTD : TWPP_PACK_RAW;
    if (raw->err || (!z && raw->n))
        out->err = 1;
    buf_bytes(out, &codec, 1);
    buf_uv(out, raw->n);
    buf_bytes(out, zstd ? z : raw->p, zstd ? zn : raw->n);
    free(z);
}

/* Everything after the fixed header and function table, with offsets. */
typedef struct layout {
    twpp_buf names, symbols, dcg, blocks;   /* names: the packed function table */
    twpp_buf points, index, grammars;       /* TWPP+: dictionary and index packed */
    uint64_t *fn_off, *fn_len;  /* function i's chunk (offset from the first, length) */
    uint64_t *fn_at, *fn_raw;   /* and its block within the unpacked chunk */
} layout;

/* TWPP+'s sections into L. */
static int lay_out_plus(const twpp_plus *plus, const uint32_t *rank, layout *L, twpp_sizes *sz)
{
    twpp_buf points = {0}, index = {0};
    int rc = plus ? twpp_plus_write(plus, rank, &points, &index, &L->grammars, &sz->plus) : 0;
    twpp_pack(&L->points, &points);
    twpp_pack(&L->index, &index);
    sz->plus.points = L->points.n;
    sz->plus.index = L->index.n;
    free(points.p);
    free(index.p);
    return rc || L->points.err || L->index.err || L->grammars.err ? -1 : 0;
}

/* Frees f's compacted traces' symbols, keeping their lengths. */
static void release_traces(twpp_function *f)
{
    for (uint32_t t = 0; t < f->ntraces; t++) {
        free(f->traces[t].v);
        f->traces[t].v = NULL;
    }
}

/* release: m itself, whose compacted traces' symbols are freed once
 * written (NULL: kept). */
static int lay_out(const twpp_model *m, twpp_model *release, const uint32_t *order,
                   const uint32_t *rank, layout *L, twpp_sizes *sz)
{
    twpp_buf raw = {0}, part = {0};
    twpp_symtab_write(&part, m->symbols, m->nsymbols);
    twpp_pack(&L->symbols, &part);
    part.n = 0;
    twpp_buf one = {0};
    uint32_t first = 0;         /* the first function of the chunk being filled */
    for (uint32_t i = 0; i <= m->nfunctions; i++) {
        one.n = 0;
        if (i < m->nfunctions)
            write_function(&one, &m->functions[order[i]], m->nsymbols, sz);
        if (i < m->nfunctions && release)
            release_traces(&release->functions[order[i]]);
        /* small blocks share a chunk (zstd needs context), but a block
         * that would take the chunk past TWPP_CHUNK starts a new one, so
         * that reading a small function never unpacks a big one */
        if (part.n && (i == m->nfunctions || part.n + one.n > TWPP_CHUNK)) {
            uint64_t at = L->blocks.n;
            twpp_pack(&L->blocks, &part);
            for (; first < i; first++) {
                L->fn_off[first] = at;
                L->fn_len[first] = L->blocks.n - at;
            }
            part.n = 0;
        }
        if (i < m->nfunctions) {
            L->fn_at[i] = part.n;
            L->fn_raw[i] = one.n;
            buf_bytes(&part, one.p, one.n);
            part.err |= one.err;
        }
    }
    free(one.p);
    sz->blocks = L->blocks.n;
    free(part.p);
    write_dcg(&raw, m, rank);
    sz->dcg_raw = raw.n;
    int rc = raw.err ? -1 : compress_dcg(&raw, &L->dcg, sz);
    free(raw.p);
    return rc || L->names.err || L->symbols.err || L->blocks.err ? -1 : 0;
}

/* The function table, packed: per function in file order, varints its
 * chunk's offset (from the first chunk) and length, its block's offset and
 * length within the unpacked chunk, calls, entry address, name length,
 * then the name's bytes. */
static void pack_functions(layout *L, const twpp_model *m, const uint32_t *order)
{
    twpp_buf raw = {0};
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        const twpp_function *f = &m->functions[order[i]];
        size_t nl = strlen(f->name);
        buf_uv(&raw, L->fn_off[i]);
        buf_uv(&raw, L->fn_len[i]);
        buf_uv(&raw, L->fn_at[i]);
        buf_uv(&raw, L->fn_raw[i]);
        buf_uv(&raw, f->calls);
        buf_uv(&raw, f->entry);
        buf_uv(&raw, nl);
        buf_bytes(&raw, f->name, nl);
    }
    twpp_pack(&L->names, &raw);
    free(raw.p);
}

/* The fixed header. */
static void write_header(twpp_buf *h, const twpp_model *m, const twpp_plus *plus,
                         const layout *L, const twpp_sizes *sz)
{
    uint64_t functions = TWPP_HEADER_SIZE, symbols = functions + L->names.n;
    uint64_t dcg = symbols + L->symbols.n, blocks = dcg + L->dcg.n;
    uint64_t points = blocks + L->blocks.n, index = points + L->points.n;
    uint64_t grammars = index + L->index.n;
    twpp_plus_counts c = {0};
    if (plus)
        twpp_plus_count(plus, &c);
    buf_bytes(h, TWPP_MAGIC, 8);
    buf_u32(h, m->nfunctions);
    buf_u32(h, m->nsymbols);
    buf_u32(h, m->nthreads);
    buf_u32(h, (uint32_t)sz->dcg_codec);
    buf_u64(h, functions);
    buf_u64(h, L->names.n);
    buf_u64(h, symbols);
    buf_u64(h, L->symbols.n);
    buf_u64(h, dcg);
    buf_u64(h, L->dcg.n);
    buf_u64(h, sz->dcg_raw);
    buf_u64(h, grammars + L->grammars.n);
    buf_u32(h, (uint32_t)c.points);
    buf_u32(h, (uint32_t)c.load_points);
    buf_u64(h, points);
    buf_u64(h, L->points.n);
    buf_u64(h, index);
    buf_u64(h, L->index.n);
    buf_u64(h, grammars);
    buf_u64(h, L->grammars.n);
}

static int write_all(const char *path, const twpp_buf *parts, int n, char *err, size_t errlen)
{
    FILE *out = fopen(path, "wb");
    if (!out)
        return fail(err, errlen, "%s", strerror(errno));
    for (int i = 0; i < n; i++)
        if (parts[i].n && fwrite(parts[i].p, 1, parts[i].n, out) != parts[i].n)
            break;
    if (ferror(out) | fclose(out))
        return fail(err, errlen, "cannot write: %s", strerror(errno));
    return 0;
}

static int write_twpp(const twpp_model *m, twpp_model *release, const twpp_plus *plus,
                      const char *path, twpp_sizes *sz, uint64_t *fn_bytes, char *err,
                      size_t errlen)
{
    layout L = {0};
    twpp_buf head = {0};
    uint32_t *order = malloc(((size_t)m->nfunctions + 1) * sizeof *order);
    uint32_t *rank = malloc(((size_t)m->nfunctions + 1) * sizeof *rank);
    L.fn_off = malloc(((size_t)m->nfunctions + 1) * sizeof *L.fn_off);
    L.fn_len = malloc(((size_t)m->nfunctions + 1) * sizeof *L.fn_len);
    L.fn_at = malloc(((size_t)m->nfunctions + 1) * sizeof *L.fn_at);
    L.fn_raw = malloc(((size_t)m->nfunctions + 1) * sizeof *L.fn_raw);
    int rc = -1;
    memset(sz, 0, sizeof *sz);
    if (!order || !rank || !L.fn_off || !L.fn_len || !L.fn_at || !L.fn_raw) {
        fail(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < m->nfunctions; i++)
        order[i] = i;
    sort_model = m;
    qsort(order, m->nfunctions, sizeof *order, by_calls);
    for (uint32_t i = 0; i < m->nfunctions; i++)
        rank[order[i]] = i;
    if (lay_out(m, release, order, rank, &L, sz) < 0 || lay_out_plus(plus, rank, &L, sz) < 0) {
        fail(err, errlen, "out of memory");
        goto done;
    }
    pack_functions(&L, m, order);
    write_header(&head, m, plus, &L, sz);
    sz->header = head.n + L.names.n;
    sz->symbols = L.symbols.n;
    sz->dcg = L.dcg.n;
    sz->total = sz->header + sz->symbols + sz->dcg + L.blocks.n + L.points.n + L.index.n + L.grammars.n;
    for (uint32_t i = 0; fn_bytes && i < m->nfunctions; i++)
        fn_bytes[order[i]] = L.fn_raw[i];
    twpp_buf parts[] = { head, L.names, L.symbols, L.dcg, L.blocks, L.points, L.index, L.grammars };
    rc = head.err || L.names.err ? fail(err, errlen, "out of memory") : write_all(path, parts, 8, err, errlen);
done:
    free(head.p);
    free(L.names.p);
    free(L.symbols.p);
    free(L.dcg.p);
    free(L.blocks.p);
    free(L.points.p);
    free(L.index.p);
    free(L.grammars.p);
    free(L.fn_off);
    free(L.fn_len);
    free(L.fn_at);
    free(L.fn_raw);
    free(order);
    free(rank);
    return rc;
}

int twpp_write(const twpp_model *m, const twpp_plus *plus, const char *path, twpp_sizes *sz,
               uint64_t *fn_bytes, char *err, size_t errlen)
{
    return write_twpp(m, NULL, plus, path, sz, fn_bytes, err, errlen);
}

int twpp_write_releasing(twpp_model *m, const twpp_plus *plus, const char *path,
                         twpp_sizes *sz, uint64_t *fn_bytes, char *err, size_t errlen)
{
    return write_twpp(m, m, plus, path, sz, fn_bytes, err, errlen);
}
