/* report.c: TWPP for people (see report.h). */
#include "twpp/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "twpp/timestamps.h"

void twpp_count(const twpp_model *m, twpp_counts *c)
{
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        const twpp_function *f = &m->functions[i];
        c->calls += f->calls;
        c->paths += f->npaths;
        c->traces += f->ntraces;
        c->dicts += f->ndicts;
        c->raw_blocks += f->raw_blocks;
        c->unique_blocks += f->raw_unique_blocks;
        for (uint32_t t = 0; t < f->ntraces; t++)
            c->compact_blocks += f->traces[t].n;
    }
}

/* TWPP+'s lines of the summary. */
static void print_plus(FILE *out, const twpp_plus_counts *c, const twpp_sizes *sz, uint64_t blocks)
{
    const twpp_plus_sizes *p = &sz->plus;
    uint64_t wpp = blocks * TWPP_WPP_BYTES_PER_BLOCK + c->accesses * TWPP_WPP_BYTES_PER_ADDRESS;
    fprintf(out, "TWPP+: access points %" PRIu64 " (load points %" PRIu64 ", single-address: %" PRIu64
            " loads, %" PRIu64 " stores), loads %" PRIu64 ", stores %" PRIu64 "\n", c->points,
            c->load_points, c->single_loads, c->single_stores, c->loads, c->stores);
    fprintf(out, "edges %" PRIu64 " kept, %" PRIu64 " dropped (recoverable), %" PRIu64
            " loads of never-written memory\n", c->edges, c->dropped, c->unwritten);
    fprintf(out, "bytes: access points %" PRIu64 ", load index %" PRIu64 ", dependence grammars %" PRIu64
            " (%" PRIu64 " symbols; raw edges %" PRIu64 ")\n", p->points, p->index, p->grammars,
            p->grammar_symbols, p->edges_raw);
    fprintf(out, "uncompressed WPP with addresses %" PRIu64 " bytes (%d per block, %d per access):"
            " compaction %.2fx\n", wpp, TWPP_WPP_BYTES_PER_BLOCK, TWPP_WPP_BYTES_PER_ADDRESS,
            sz->total ? (double)wpp / (double)sz->total : 0.0);
}

int twpp_print_summary(FILE *out, const twpp_model *m, const twpp_plus_counts *plus,
                       const twpp_sizes *sz, uint64_t blocks)
{
    twpp_counts c;
    twpp_count(m, &c);
    uint64_t wpp = blocks * TWPP_WPP_BYTES_PER_BLOCK;
    fprintf(out, "blocks %" PRIu64 ", threads %" PRIu32 ", calls %" PRIu64 ", functions %" PRIu32
            ", symbols %" PRIu32 "\n", blocks, m->nthreads, c.calls, m->nfunctions, m->nsymbols);
    fprintf(out, "unique path traces %" PRIu64 " (%" PRIu64 " blocks), compacted traces %" PRIu64
            " (%" PRIu64 " DBBs), dictionaries %" PRIu64 "\n",
            c.paths, c.unique_blocks, c.traces, c.compact_blocks, c.dicts);
    fprintf(out, "DCG %" PRIu64 " bytes raw, zstd %" PRIu64 ", LZW %" PRIu64 ": %s kept\n",
            sz->dcg_raw, sz->dcg_zstd, sz->dcg_lzw, sz->dcg_codec == TWPP_CODEC_ZSTD ? "zstd" : "LZW");
    fprintf(out, "bytes: header %" PRIu64 ", symbols %" PRIu64 ", DCG %" PRIu64 ", function blocks %"
            PRIu64 " (before packing: paths %" PRIu64 ", traces %" PRIu64 ", dictionaries %" PRIu64
            "), total %" PRIu64 "\n", sz->header, sz->symbols, sz->dcg, sz->blocks, sz->paths,
            sz->traces, sz->dicts, sz->total);
    uint64_t control = twpp_control_bytes(sz);
    fprintf(out, "uncompressed WPP %" PRIu64 " bytes (%d per block): compaction %.2fx\n",
            wpp, TWPP_WPP_BYTES_PER_BLOCK, control ? (double)wpp / (double)control : 0.0);
    if (plus)
        print_plus(out, plus, sz, blocks);
    return ferror(out) ? -1 : 0;
}

/* A symbol as people read it: its number (from 1) and function:line. */
static void print_symbol(FILE *out, const twpp_model *m, uint32_t s)
{
    const twpp_symbol *y = &m->symbols[s];
    fprintf(out, "b%" PRIu32 "(0x%" PRIx64 " %s)", s + 1, y->addr, y->where && *y->where ? y->where : "?");
}

/* twpp_ts_form's callback: one DBB -> {entries}. */
static int print_dbb(void *ctx, uint32_t dbb, const int64_t *ints, uint32_t k)
{
    FILE *out = ctx;
    fprintf(out, " b%" PRIu32 " -> {", dbb + 1);
    for (uint32_t i = 0; i < k; i++)
        fprintf(out, "%s%" PRId64, i ? ", " : "", ints[i]);
    fputc('}', out);
    return 0;
}

/* A compacted trace in TWPP form: DBB -> {signed entries}. */
static int print_trace(FILE *out, const twpp_seq *t, uint32_t nsymbols)
{
    fprintf(out, "  %" PRIu32 " timestamps:", t->n);
    if (twpp_ts_form(t, nsymbols, print_dbb, out) < 0)
        return -1;
    fputc('\n', out);
    return 0;
}

static void print_dict(FILE *out, const twpp_seq *d)
{
    const uint32_t *p = d->v + 1, *end = d->v + d->n;
    fprintf(out, "  %" PRIu32 " chains:", d->v[0]);
    for (; p < end; p += 1 + p[0]) {
        fprintf(out, " b%" PRIu32 " ->", p[1] + 1);
        for (uint32_t k = 0; k < p[0]; k++)
            fprintf(out, "%sb%" PRIu32, k ? "." : " ", p[1 + k] + 1);
        fputc(';', out);
    }
    fputc('\n', out);
}

/* Context of print_block: the output and the model. */
typedef struct block_out {
    FILE *out;
    const twpp_model *m;
} block_out;

static int print_block(void *ctx, uint32_t s)
{
    block_out *b = ctx;
    fputs("    ", b->out);
    print_symbol(b->out, b->m, s);
    fputc('\n', b->out);
    return 0;
}

int twpp_print_function(FILE *out, twpp_file *f, const char *name, char *err, size_t errlen)
{
    int64_t i = twpp_find_function(f, name);
    if (i < 0)
        return snprintf(err, errlen, "no function '%s'", name), -1;
    if (twpp_load_symbols(f, err, errlen) < 0 || twpp_load_function(f, (uint32_t)i, err, errlen) < 0)
        return -1;
    const twpp_model *m = twpp_file_model(f);
    const twpp_function *fn = &m->functions[i];
    fprintf(out, "function %s (entry 0x%" PRIx64 "): %" PRIu64 " calls, %" PRIu32
            " unique path traces, %" PRIu32 " compacted traces, %" PRIu32 " dictionaries\n",
            fn->name, fn->entry, fn->calls, fn->npaths, fn->ntraces, fn->ndicts);
    for (uint32_t t = 0; t < fn->ntraces; t++) {
        fprintf(out, "trace %" PRIu32 ":\n", t + 1);
        if (print_trace(out, &fn->traces[t], m->nsymbols) < 0)
            return snprintf(err, errlen, "out of memory"), -1;
    }
    for (uint32_t d = 0; d < fn->ndicts; d++) {
        fprintf(out, "dictionary %" PRIu32 ":\n", d + 1);
        print_dict(out, &fn->dicts[d]);
    }
    block_out b = { out, m };
    for (uint32_t p = 0; p < fn->npaths; p++) {
        fprintf(out, "path %" PRIu32 ": %" PRIu64 " calls, trace %" PRIu32 ", dictionary %" PRIu32 "\n",
                p + 1, fn->paths[p].calls, fn->paths[p].trace + 1, fn->paths[p].dict + 1);
        twpp_expand_path(&fn->traces[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict], print_block, &b);
    }
    return ferror(out) ? (snprintf(err, errlen, "cannot write"), -1) : 0;
}

/* Context of print_address. */
static int print_address(void *ctx, uint32_t s)
{
    const twpp_model *m = ctx;
    return printf("0x%" PRIx64 "\n", m->symbols[s].addr) < 0;
}

int twpp_print_expansion(FILE *out, twpp_file *f, char *err, size_t errlen)
{
    (void)out;
    int rc = twpp_expand(f, print_address, (void *)twpp_file_model(f), err, errlen);
    if (rc > 0)
        snprintf(err, errlen, "cannot write");
    return rc ? -1 : 0;
}
