/*
 * read.c: reading a .twpp file (see file.h). The header, names and
 * symbols are read at open; a function's block or the DCG only when asked,
 * with pread, so one function's query reads the header and its block.
 */
#include "twpp/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "base/array.h"
#include "twpp/bytes.h"
#include "twpp/file_internal.h"
#include "twpp/lzw.h"
#include "twpp/symtab.h"
#include "twpp/timestamps.h"

uint64_t twpp_read_limit = UINT32_MAX - 1;

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

uint8_t *twpp_read_at(const twpp_file *f, uint64_t off, uint64_t n)
{
    if (off > f->size || n > f->size - off)
        return NULL;
    uint8_t *p = malloc(n + 1);
    if (!p)
        return NULL;
    for (uint64_t got = 0; got < n;) {
        ssize_t r = pread(f->fd, p + got, n - got, (off_t)(off + got));
        if (r <= 0) {
            free(p);
            return NULL;
        }
        got += (uint64_t)r;
    }
    return p;
}

int twpp_unpack(const uint8_t *p, uint64_t n, uint8_t **out, uint64_t *outn)
{
    twpp_cur c = { p, p + n, 0 };
    uint8_t codec = c.p < c.end ? *c.p++ : 0xff;
    uint64_t raw = cur_uv(&c, twpp_read_limit * 16);
    uint64_t left = (uint64_t)(c.end - c.p);
    if (c.bad || codec > TWPP_PACK_ZSTD || (codec == TWPP_PACK_RAW && raw != left) ||
        !(*out = malloc(raw + 1)))
        return -1;
    if (codec == TWPP_PACK_RAW)
        memcpy(*out, c.p, raw);
    else if (ZSTD_getFrameContentSize(c.p, left) != raw ||
             ZSTD_decompress(*out, raw, c.p, left) != raw) {
        free(*out);
        *out = NULL;
        return -1;
    }
    *outn = raw;
    return 0;
}

/* Is [off, off + n) inside the file? */
static int inside(const twpp_file *f, uint64_t off, uint64_t n)
{
    return off <= f->size && n <= f->size - off;
}

static int read_symbols(twpp_file *f, const uint8_t *p, uint64_t n)
{
    twpp_cur c = { p, p + n, 0 };
    twpp_model *m = &f->m;
    if (m->symbols || m->nsymbols > n / 6 + 1 || !(m->symbols = calloc((size_t)m->nsymbols + 1, sizeof *m->symbols)))
        return -1;
    return twpp_symtab_read(&c, m->symbols, m->nsymbols) < 0 || c.p != c.end ? -1 : 0;
}

/* The function table (see pack_functions in file.c); blocks is where
 * the first function block starts. 0, or -1 when corrupt. */
static int read_functions(twpp_file *f, const uint8_t *p, uint64_t n, uint64_t blocks)
{
    twpp_model *m = &f->m;
    twpp_cur c = { p, p + n, 0 };
    for (uint32_t i = 0; i < m->nfunctions && !c.bad; i++) {
        twpp_function *fn = &m->functions[i];
        uint64_t off = cur_uv(&c, f->size);
        f->fn_off[i] = blocks + off;
        f->fn_len[i] = cur_uv(&c, f->size);
        f->fn_at[i] = cur_uv(&c, UINT64_MAX);
        f->fn_raw[i] = cur_uv(&c, UINT64_MAX);
        fn->calls = cur_uv(&c, UINT64_MAX);
        fn->entry = cur_uv(&c, UINT64_MAX);
        uint64_t nl = cur_uv(&c, (uint64_t)(c.end - c.p));
        if (c.bad || !inside(f, f->fn_off[i], f->fn_len[i]) || !(fn->name = malloc(nl + 1)))
            return -1;
        memcpy(fn->name, c.p, nl);
        fn->name[nl] = 0;
        c.p += nl;
    }
    return c.bad || c.p != c.end ? -1 : 0;
}

/* Header fields after the magic. */
typedef struct header {
    uint32_t nfunctions, nsymbols, nthreads, codec;
    uint64_t names, names_len, symbols, symbols_len, dcg, dcg_len, dcg_raw, length;
    uint32_t npoints, nloads;
    uint64_t points, points_len, index, index_len, grammars, grammars_len;
} header;

static int parse_header(twpp_file *f, const uint8_t *p, header *h, char *err, size_t errlen)
{
    twpp_cur c = { p + 8, p + TWPP_HEADER_SIZE, 0 };
    h->nfunctions = cur_u32(&c);
    h->nsymbols = cur_u32(&c);
    h->nthreads = cur_u32(&c);
    h->codec = cur_u32(&c);
    h->names = cur_u64(&c);
    h->names_len = cur_u64(&c);
    h->symbols = cur_u64(&c);
    h->symbols_len = cur_u64(&c);
    h->dcg = cur_u64(&c);
    h->dcg_len = cur_u64(&c);
    h->dcg_raw = cur_u64(&c);
    h->length = cur_u64(&c);
    h->npoints = cur_u32(&c);
    h->nloads = cur_u32(&c);
    h->points = cur_u64(&c);
    h->points_len = cur_u64(&c);
    h->index = cur_u64(&c);
    h->index_len = cur_u64(&c);
    h->grammars = cur_u64(&c);
    h->grammars_len = cur_u64(&c);
    if (h->length > f->size)
        return fail(err, errlen, "truncated: %llu bytes of %llu",
                    (unsigned long long)f->size, (unsigned long long)h->length);
    if (h->length < f->size)
        return fail(err, errlen, "corrupt: %llu bytes after the end",
                    (unsigned long long)(f->size - h->length));
    if ((uint64_t)h->nfunctions > f->size ||
        !inside(f, h->names, h->names_len) || !inside(f, h->symbols, h->symbols_len) ||
        !inside(f, h->dcg, h->dcg_len) || (h->codec != TWPP_CODEC_ZSTD && h->codec != TWPP_CODEC_LZW) ||
        h->nthreads > h->dcg_raw || h->dcg_raw > (uint64_t)1 << 34 ||
        !inside(f, h->points, h->points_len) || !inside(f, h->index, h->index_len) ||
        !inside(f, h->grammars, h->grammars_len) || h->nloads > h->npoints ||
        (uint64_t)h->npoints > f->size)
        return fail(err, errlen, "corrupt header");
    return 0;
}

/* Everything open reads, into f; 0 or -1 with err. */
static int open_parts(twpp_file *f, char *err, size_t errlen)
{
    uint8_t *p = twpp_read_at(f, 0, TWPP_HEADER_SIZE), *table = NULL, *names = NULL;
    uint64_t names_len = 0;
    header h;
    int rc = -1;
    uint8_t *magic = p ? NULL : twpp_read_at(f, 0, 8);
    if (!p || memcmp(p, TWPP_MAGIC, 8)) {   /* a file shorter than the header may still be one, cut */
        int cut = !p && (!magic || !memcmp(magic, TWPP_MAGIC, 8));
        rc = fail(err, errlen, cut ? "truncated: no header" : "not a .twpp file");
        free(magic);
        goto done;
    }
    if (parse_header(f, p, &h, err, errlen) < 0)
        goto done;
    f->m.nfunctions = h.nfunctions;
    f->m.nsymbols = h.nsymbols;
    f->m.nthreads = h.nthreads;
    f->codec = h.codec;
    f->dcg_off = h.dcg;
    f->dcg_len = h.dcg_len;
    f->dcg_raw = h.dcg_raw;
    f->npoints = h.npoints;
    f->nloads = h.nloads;
    f->points_off = h.points;
    f->points_len = h.points_len;
    f->index_off = h.index;
    f->index_len = h.index_len;
    f->grammars_off = h.grammars;
    f->grammars_len = h.grammars_len;
    table = twpp_read_at(f, h.names, h.names_len);
    f->symbols_off = h.symbols;
    f->symbols_len = h.symbols_len;
    size_t nf = (size_t)h.nfunctions + 1;
    f->m.functions = calloc(nf, sizeof *f->m.functions);
    f->fn_off = calloc(nf, sizeof *f->fn_off);
    f->fn_len = calloc(nf, sizeof *f->fn_len);
    f->fn_at = calloc(nf, sizeof *f->fn_at);
    f->fn_raw = calloc(nf, sizeof *f->fn_raw);
    f->loaded = calloc(nf, 1);
    if (!table || !f->m.functions || !f->fn_off || !f->fn_len || !f->fn_at || !f->fn_raw || !f->loaded)
        rc = fail(err, errlen, "corrupt header");
    else if (twpp_unpack(table, h.names_len, &names, &names_len) < 0 ||
             read_functions(f, names, names_len, h.dcg + h.dcg_len) < 0)
        rc = fail(err, errlen, "corrupt function table");
    else
        rc = 0;
done:
    free(p);
    free(table);
    free(names);
    return rc;
}

twpp_file *twpp_open(const char *path, char *err, size_t errlen)
{
    twpp_file *f = calloc(1, sizeof *f);
    struct stat st;
    if (!f) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->fd = open(path, O_RDONLY);
    if (f->fd < 0 || fstat(f->fd, &st) < 0) {
        fail(err, errlen, "%s", strerror(errno));
        twpp_close(f);
        return NULL;
    }
    f->size = (uint64_t)st.st_size;
    if (open_parts(f, err, errlen) < 0) {
        twpp_close(f);
        return NULL;
    }
    return f;
}

/* Frees what a function's block gave. */
static void free_function_block(twpp_function *fn)
{
    for (uint32_t k = 0; fn->traces && k < fn->ntraces; k++)
        free(fn->traces[k].v);
    for (uint32_t k = 0; fn->dicts && k < fn->ndicts; k++)
        free(fn->dicts[k].v);
    for (uint32_t k = 0; fn->counts && k < fn->ntraces; k++)
        free(fn->counts[k].v);
    for (uint32_t k = 0; fn->series && k < fn->ntraces; k++)
        free(fn->series[k].v);
    free(fn->paths);
    free(fn->traces);
    free(fn->dicts);
    free(fn->counts);
    free(fn->series);
    fn->paths = NULL;
    fn->traces = fn->dicts = fn->counts = fn->series = NULL;
}

void twpp_close(twpp_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    twpp_model *m = &f->m;
    for (uint32_t i = 0; m->symbols && i < m->nsymbols; i++)
        free(m->symbols[i].where);
    free(m->symbols);
    for (uint32_t i = 0; m->functions && i < m->nfunctions; i++) {
        twpp_function *fn = &m->functions[i];
        free(fn->name);
        free_function_block(fn);
    }
    free(m->functions);
    for (uint32_t i = 0; m->threads && i < m->nthreads; i++) {
        free(m->threads[i].fn);
        free(m->threads[i].path);
    }
    free(m->threads);
    free(f->fn_off);
    free(f->fn_len);
    free(f->fn_at);
    free(f->fn_raw);
    free(f->loaded);
    twpp_close_plus(f);
    free(f);
}

int twpp_load_symbols(twpp_file *f, char *err, size_t errlen)
{
    if (!f->symbols_loaded) {
        uint8_t *p = twpp_read_at(f, f->symbols_off, f->symbols_len), *raw = NULL;
        uint64_t rawn = 0;
        int ok = p && twpp_unpack(p, f->symbols_len, &raw, &rawn) == 0 && read_symbols(f, raw, rawn) == 0;
        free(p);
        free(raw);
        f->symbols_loaded = ok ? 1 : 2;
    }
    return f->symbols_loaded == 1 ? 0 : fail(err, errlen, "corrupt symbols");
}

const twpp_model *twpp_file_model(const twpp_file *f) { return &f->m; }

int64_t twpp_find_function(const twpp_file *f, const char *name)
{
    for (uint32_t i = 0; i < f->m.nfunctions; i++)
        if (!strcmp(f->m.functions[i].name, name))
            return i;
    return -1;
}

/* One dictionary: [chains, (len >= 2, symbols)...], heads increasing. */
static int read_dict(twpp_cur *c, uint32_t nsymbols, twpp_seq *d)
{
    uint64_t chains = cur_uv(c, (uint64_t)(c->end - c->p) / 3);
    size_t cap = 1;
    int64_t last = -1, prev = 0;
    if (c->bad || !(d->v = malloc(sizeof *d->v)))
        return -1;
    d->v[0] = (uint32_t)chains;
    d->n = 1;
    for (uint64_t k = 0; k < chains && !c->bad; k++) {
        uint64_t len = cur_uv(c, (uint64_t)(c->end - c->p));
        if (len < 2 || (ARRAY_FIT(d->v, cap, d->n + len + 1) < 0))
            return c->bad = 1, -1;
        d->v[d->n++] = (uint32_t)len;
        for (uint64_t i = 0; i < len; i++) {    /* deltas (write_dict in file.c) */
            prev += cur_sv(c);
            if (prev < 0 || prev >= (int64_t)nsymbols)
                c->bad = 1;
            d->v[d->n++] = (uint32_t)prev;
        }
        if ((int64_t)d->v[d->n - len] <= last)
            c->bad = 1;
        last = d->v[d->n - len];
    }
    return c->bad ? -1 : 0;
}

/* How a function's traces are read (loaded[i] keeps which: 1 whole, 3
 * lazy, 4 series; 2 corrupt). */
enum { READ_WHOLE = 1, READ_LAZY = 3, READ_SERIES = 4 };

static int parse_function(twpp_cur *c, twpp_function *fn, uint32_t nsymbols, int mode)
{
    uint64_t room = (uint64_t)(c->end - c->p);
    fn->npaths = (uint32_t)cur_uv(c, room / 3);
    fn->ntraces = (uint32_t)cur_uv(c, room / 2);
    fn->ndicts = (uint32_t)cur_uv(c, room);
    fn->raw_unique_blocks = cur_uv(c, UINT64_MAX);
    fn->raw_blocks = cur_uv(c, UINT64_MAX);
    if (c->bad || !(fn->paths = calloc((size_t)fn->npaths + 1, sizeof *fn->paths)) ||
        !(fn->traces = calloc((size_t)fn->ntraces + 1, sizeof *fn->traces)) ||
        !(fn->dicts = calloc((size_t)fn->ndicts + 1, sizeof *fn->dicts)))
        return -1;
    for (uint32_t p = 0; p < fn->npaths; p++) {
        fn->paths[p].trace = (uint32_t)cur_uv(c, fn->ntraces ? fn->ntraces - 1 : 0);
        fn->paths[p].dict = (uint32_t)cur_uv(c, fn->ndicts ? fn->ndicts - 1 : 0);
        fn->paths[p].calls = cur_uv(c, fn->calls);
    }
    if (mode == READ_LAZY && !(fn->counts = calloc((size_t)fn->ntraces + 1, sizeof *fn->counts)))
        return -1;
    if (mode == READ_SERIES && !(fn->series = calloc((size_t)fn->ntraces + 1, sizeof *fn->series)))
        return -1;
    for (uint32_t t = 0; t < fn->ntraces && !c->bad; t++) {
        int rc = mode == READ_LAZY     ? twpp_ts_skim(c, nsymbols, &fn->counts[t])
                 : mode == READ_SERIES ? twpp_ts_series(c, nsymbols, &fn->series[t])
                                       : twpp_ts_read(c, nsymbols, &fn->traces[t]);
        if (rc < 0)
            c->bad = 1;
        else if (mode != READ_WHOLE)
            fn->traces[t].n = (mode == READ_LAZY ? fn->counts : fn->series)[t].v[0];
    }
    for (uint32_t d = 0; d < fn->ndicts && !c->bad; d++)
        read_dict(c, nsymbols, &fn->dicts[d]);
    return c->bad || c->p != c->end ? -1 : 0;
}

/* Reads function i's block as mode says (a whole read serves every
 * mode; another mode's read is replaced). */
static int load_function(twpp_file *f, uint32_t i, int mode, char *err, size_t errlen)
{
    if (f->loaded[i] == READ_WHOLE || f->loaded[i] == mode)
        return 0;
    if (f->loaded[i] == 2)
        return fail(err, errlen, "corrupt block of function %s", f->m.functions[i].name);
    free_function_block(&f->m.functions[i]);    /* a lazy read before a whole one */
    uint8_t *p = twpp_read_at(f, f->fn_off[i], f->fn_len[i]), *raw = NULL;
    uint64_t rawn = 0;
    int rc = -1;
    if (p && twpp_unpack(p, f->fn_len[i], &raw, &rawn) == 0 &&
        f->fn_at[i] <= rawn && f->fn_raw[i] <= rawn - f->fn_at[i]) {
        twpp_cur c = { raw + f->fn_at[i], raw + f->fn_at[i] + f->fn_raw[i], 0 };
        rc = parse_function(&c, &f->m.functions[i], f->m.nsymbols, mode);
    }
    free(p);
    free(raw);
    f->loaded[i] = rc < 0 ? 2 : (uint8_t)mode;  /* what a corrupt block left is freed at close */
    return rc < 0 ? fail(err, errlen, "corrupt block of function %s", f->m.functions[i].name) : 0;
}

int twpp_load_function(twpp_file *f, uint32_t i, char *err, size_t errlen)
{
    return load_function(f, i, READ_WHOLE, err, errlen);
}

void twpp_unload_function(twpp_file *f, uint32_t i)
{
    if (f->loaded[i] == 2)      /* a corrupt block stays refused */
        return;
    free_function_block(&f->m.functions[i]);
    f->loaded[i] = 0;
}

int twpp_load_function_lazy(twpp_file *f, uint32_t i, char *err, size_t errlen)
{
    return load_function(f, i, READ_LAZY, err, errlen);
}

int twpp_load_function_series(twpp_file *f, uint32_t i, char *err, size_t errlen)
{
    return load_function(f, i, READ_SERIES, err, errlen);
}

uint64_t twpp_path_blocks(const twpp_function *fn, uint32_t p)
{
    const twpp_seq *c = &fn->counts[fn->paths[p].trace], *d = &fn->dicts[fn->paths[p].dict];
    const uint32_t *chain = d->v + 1, *end = d->v + d->n;
    uint64_t blocks = 0;
    for (uint32_t k = 1; k + 1 < c->n; k += 2) {    /* DBBs and chains both by increasing head */
        while (chain < end && chain[1] < c->v[k])
            chain += 1 + chain[0];
        uint64_t len = chain < end && chain[1] == c->v[k] ? chain[0] : 1;
        blocks += len * c->v[k + 1];
    }
    return blocks;
}

/* The DCG's bytes expanded, or NULL. */
static uint8_t *dcg_bytes(const twpp_file *f)
{
    uint8_t *in = twpp_read_at(f, f->dcg_off, f->dcg_len), *out = NULL;
    /* the claimed size is checked before it is allocated: zstd's frame
     * says it; LZW's is bounded like every other section */
    int ok = in && f->dcg_raw <= twpp_read_limit * 16 &&
             (f->codec != TWPP_CODEC_ZSTD ||
              ZSTD_getFrameContentSize(in, f->dcg_len) == f->dcg_raw) &&
             (out = malloc(f->dcg_raw + 1));
    if (ok && f->codec == TWPP_CODEC_ZSTD) {
        size_t n = ZSTD_decompress(out, f->dcg_raw, in, f->dcg_len);
        ok = !ZSTD_isError(n) && n == f->dcg_raw;
    } else if (ok) {
        ok = lzw_expand(in, f->dcg_len, out, f->dcg_raw) == 0;
    }
    free(in);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

int twpp_load_dcg(twpp_file *f, char *err, size_t errlen)
{
    if (f->dcg_loaded)
        return f->dcg_loaded == 1 ? 0 : fail(err, errlen, "corrupt DCG");
    uint8_t *p = dcg_bytes(f);
    twpp_model *m = &f->m;
    if (!p)
        return fail(err, errlen, "corrupt DCG");
    twpp_cur c = { p, p + f->dcg_raw, 0 };
    f->dcg_loaded = 1;
    if (!(m->threads = calloc((size_t)m->nthreads + 1, sizeof *m->threads)))
        c.bad = 1;
    for (uint32_t i = 0; i < m->nthreads && !c.bad; i++) {
        twpp_thread *t = &m->threads[i];
        t->tid = (uint32_t)cur_uv(&c, UINT32_MAX);
        t->nnodes = cur_uv(&c, (uint64_t)(c.end - c.p) / 2);
        if (c.bad || !(t->fn = malloc((t->nnodes + 1) * sizeof *t->fn)) ||
            !(t->path = malloc((t->nnodes + 1) * sizeof *t->path))) {
            c.bad = 1;
            break;
        }
        for (uint64_t k = 0; k < t->nnodes; k++) {
            t->fn[k] = (uint32_t)cur_uv(&c, m->nfunctions ? m->nfunctions - 1 : 0);
            t->path[k] = (uint32_t)cur_uv(&c, UINT32_MAX);
        }
    }
    free(p);
    f->dcg_loaded = c.bad || c.p != c.end ? 2 : 1;
    return f->dcg_loaded == 2 ? fail(err, errlen, "corrupt DCG") : 0;
}
