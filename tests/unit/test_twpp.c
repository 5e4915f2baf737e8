/*
 * test_twpp.c: TWPP's control-flow part. The dissertation's running
 * example (Figure 3.1: main loops 5 times calling f, f loops 3 times)
 * gives Figures 3.3-3.7 exactly; the timestamp series are those of
 * section 3.1 and Figure 5.6; random programs (calls, returns, unmatched
 * returns, threads, a call as a thread's last block) come back block for
 * block from the file, and read lazily (TWPP form) count as many blocks,
 * read as series give the same traces; every truncation and many corruptions of a file
 * give an error, never a crash; LZW expands what it compressed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "twpp/file.h"
#include "twpp/lzw.h"
#include "twpp/symtab.h"
#include "twpp/timestamps.h"
#include "twpp/twpp.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Blocks of a synthetic program: one exit each, with its jump kind. */
#define MAX_DEFS 256
static mr_block_def defs[MAX_DEFS];
static mr_exit_def exits[MAX_DEFS];

static const mr_block_def *def(uint32_t id, uint64_t addr, int jump)
{
    exits[id] = (mr_exit_def){ .ninstrs = 3, .jump = (uint8_t)jump };
    defs[id] = (mr_block_def){ .id = id, .addr = addr, .ninstrs = 3, .nexits = 1, .exits = &exits[id] };
    return &defs[id];
}

/* Figure 3.1: main's block k is id k, f's block k is id 100 + k. */
static const mr_block_def *main_block(uint32_t k)
{
    return def(k, 0x1000 + 16 * k, k == 3 ? MR_JUMP_CALL : k == 6 ? MR_JUMP_RET : MR_JUMP_BORING);
}

static const mr_block_def *f_block(uint32_t k)
{
    return def(100 + k, 0x2000 + 16 * k, k == 10 ? MR_JUMP_RET : MR_JUMP_BORING);
}

/* The addresses executed, to compare with the expansion. */
static uint64_t executed[1 << 16];
static uint32_t nexecuted;

static void run(twpp_builder *b, uint32_t tid, const mr_block_def *d)
{
    assert_int_equal(twpp_exec(b, tid, d, 0), 0);
    executed[nexecuted++] = d->addr;
}

static twpp_model *figure_3_1(void)
{
    static const uint32_t body_a[] = { 3, 4, 5, 6 }, body_b[] = { 7, 8, 9, 6 };
    twpp_builder *b = twpp_builder_new();
    nexecuted = 0;
    run(b, 1, main_block(1));
    for (int call = 0; call < 5; call++) {
        run(b, 1, main_block(2));
        run(b, 1, main_block(3));
        const uint32_t *body = call == 2 || call == 4 ? body_a : body_b;
        run(b, 1, f_block(1));
        for (int i = 0; i < 3; i++) {
            run(b, 1, f_block(2));
            for (int k = 0; k < 4; k++)
                run(b, 1, f_block(body[k]));
        }
        run(b, 1, f_block(10));
        run(b, 1, main_block(4));
    }
    run(b, 1, main_block(6));
    twpp_model *m = twpp_finish(b, NULL);
    assert_non_null(m);
    return m;
}

/* The function entered at addr. */
static const twpp_function *function_at(const twpp_model *m, uint64_t addr)
{
    for (uint32_t i = 0; i < m->nfunctions; i++)
        if (m->functions[i].entry == addr)
            return &m->functions[i];
    fail_msg("no function at 0x%llx", (unsigned long long)addr);
    return NULL;
}

/* A sequence of symbols as the figure's block numbers. */
static void assert_blocks(const twpp_model *m, const uint32_t *v, uint32_t n,
                          const uint32_t *want, uint32_t nwant)
{
    assert_int_equal(n, nwant);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(m->symbols[v[i]].block % 100, want[i]);
}

/* A dictionary's one chain, as block numbers. */
static void assert_one_chain(const twpp_model *m, const twpp_seq *d, const uint32_t *want, uint32_t n)
{
    assert_int_equal(d->v[0], 1);
    assert_int_equal(d->v[1], n);
    assert_blocks(m, d->v + 2, n, want, n);
}

/* Figures 3.3-3.5: f has one compacted trace 1.2.2.2.10 and two
 * dictionaries, 2 -> 2.3.4.5.6 and 2 -> 2.7.8.9.6; main's is 1.2.2.2.2.2.6
 * with 2 -> 2.3.4. */
static void test_figure_3_dictionaries(void **state)
{
    (void)state;
    twpp_model *m = figure_3_1();
    const twpp_function *f = function_at(m, 0x2000 + 16), *mn = function_at(m, 0x1000 + 16);
    assert_int_equal(f->calls, 5);
    assert_int_equal(f->npaths, 2);     /* step 2: five calls, two unique traces */
    assert_int_equal(f->ntraces, 1);
    assert_int_equal(f->ndicts, 2);
    static const uint32_t ft[] = { 1, 2, 2, 2, 10 }, mt[] = { 1, 2, 2, 2, 2, 2, 6 };
    static const uint32_t chain_b[] = { 2, 7, 8, 9, 6 }, chain_a[] = { 2, 3, 4, 5, 6 }, chain_m[] = { 2, 3, 4 };
    assert_blocks(m, f->traces[0].v, f->traces[0].n, ft, 5);
    assert_one_chain(m, &f->dicts[0], chain_b, 5);   /* the first call took B */
    assert_one_chain(m, &f->dicts[1], chain_a, 5);
    assert_int_equal(f->paths[0].calls, 3);
    assert_int_equal(f->paths[1].calls, 2);
    assert_int_equal(mn->calls, 1);
    assert_int_equal(mn->ntraces, 1);
    assert_blocks(m, mn->traces[0].v, mn->traces[0].n, mt, 7);
    assert_one_chain(m, &mn->dicts[0], chain_m, 3);
    twpp_model_free(m);
}

/* The integers twpp_ts_write gives for a trace, as [length, DBBs, then
 * per DBB its id, entry count and entries]; the stored head's counts of
 * timestamps per DBB go to times[], and its byte length is checked. */
static uint32_t written(const twpp_seq *t, uint32_t nsymbols, int64_t *out, uint64_t *times)
{
    twpp_buf b = {0};
    assert_int_equal(twpp_ts_write(&b, t, nsymbols), 0);
    twpp_cur c = { b.p, b.p + b.n, 0 };
    uint32_t n = 0;
    out[n++] = (int64_t)cur_uv(&c, UINT64_MAX);
    uint64_t ndbb = cur_uv(&c, UINT64_MAX), ids[64];
    out[n++] = (int64_t)ndbb;
    assert_true(ndbb <= 64);
    for (uint64_t d = 0; d < ndbb; d++) {
        ids[d] = cur_uv(&c, UINT64_MAX);
        times[d] = cur_uv(&c, UINT64_MAX);
    }
    uint64_t bytes = cur_uv(&c, UINT64_MAX);
    assert_int_equal(bytes, (uint64_t)(c.end - c.p));
    for (uint64_t d = 0; d < ndbb; d++) {
        out[n++] = (int64_t)ids[d];
        uint64_t entries = cur_uv(&c, UINT64_MAX);
        out[n++] = (int64_t)entries;
        for (uint64_t e = 0; e < entries;) {
            out[n] = cur_sv(&c);
            e += out[n++] < 0;
        }
    }
    assert_false(c.bad);
    assert_ptr_equal(c.p, c.end);
    free(b.p);
    return n;
}

/* twpp_ts_form's callback: DBB id, entry integers, one after another. */
static int collect_form(void *ctx, uint32_t dbb, const int64_t *ints, uint32_t k)
{
    int64_t **at = ctx;
    *(*at)++ = dbb;
    *(*at)++ = k;
    for (uint32_t i = 0; i < k; i++)
        *(*at)++ = ints[i];
    return 0;
}

static uint32_t form(const twpp_seq *t, uint32_t nsymbols, int64_t *out)
{
    int64_t *at = out;
    assert_int_equal(twpp_ts_form(t, nsymbols, collect_form, &at), 0);
    return (uint32_t)(at - out);
}

/* Figures 3.6-3.7: main is {1 -> {-1}, 2 -> {2, -6}, 6 -> {-7}}, f is
 * {1 -> {-1}, 2 -> {2, -4}, 10 -> {-5}}; stored with each entry's l after
 * the previous entry's end and h after l: 2 -> {2, -4} and 2 -> {2, -2},
 * behind a head of each DBB's timestamp count (1, 5, 1 and 1, 3, 1). */
static void test_figure_3_timestamps(void **state)
{
    (void)state;
    twpp_model *m = figure_3_1();
    const twpp_function *f = function_at(m, 0x2000 + 16), *mn = function_at(m, 0x1000 + 16);
    int64_t v[64];
    uint32_t s1 = mn->traces[0].v[0], s2 = mn->traces[0].v[1], s6 = mn->traces[0].v[6];
    int64_t want_main[] = { s1, 1, -1, s2, 2, 2, -6, s6, 1, -7 };
    assert_int_equal(form(&mn->traces[0], m->nsymbols, v), 10);
    assert_memory_equal(v, want_main, sizeof want_main);
    int64_t stored_main[] = { 7, 3, s1, 1, -1, s2, 1, 2, -4, s6, 1, -7 };
    uint64_t times[64];
    assert_int_equal(written(&mn->traces[0], m->nsymbols, v, times), 12);
    assert_memory_equal(v, stored_main, sizeof stored_main);
    assert_true(times[0] == 1 && times[1] == 5 && times[2] == 1);   /* the head's counts */
    uint32_t f1 = f->traces[0].v[0], f2 = f->traces[0].v[1], f10 = f->traces[0].v[4];
    int64_t want_f[] = { f1, 1, -1, f2, 2, 2, -4, f10, 1, -5 };
    assert_int_equal(form(&f->traces[0], m->nsymbols, v), 10);
    assert_memory_equal(v, want_f, sizeof want_f);
    int64_t stored_f[] = { 5, 3, f1, 1, -1, f2, 1, 2, -2, f10, 1, -5 };
    assert_int_equal(written(&f->traces[0], m->nsymbols, v, times), 12);
    assert_true(times[0] == 1 && times[1] == 3 && times[2] == 1);
    assert_memory_equal(v, stored_f, sizeof stored_f);
    twpp_model_free(m);
}

/* Series: l, l:h, l:h:s and the break-even points (Figure 5.6's 9, 25
 * stays two singletons). */
static void test_series(void **state)
{
    (void)state;
    int64_t out[16];
    static const uint32_t a[] = { 6, 14, 22, 30 }, b[] = { 9, 25 }, c[] = { 1, 2 }, d[] = { 1, 2, 3 };
    static const uint32_t e[] = { 1, 3, 5, 8, 9, 10, 11, 20 };
    assert_int_equal(twpp_ts_encode(a, 4, out), 3);
    assert_true(out[0] == 6 && out[1] == 30 && out[2] == -8);
    assert_int_equal(twpp_ts_encode(b, 2, out), 2);
    assert_true(out[0] == -9 && out[1] == -25);
    assert_int_equal(twpp_ts_encode(c, 2, out), 2);
    assert_true(out[0] == -1 && out[1] == -2);
    assert_int_equal(twpp_ts_encode(d, 3, out), 2);
    assert_true(out[0] == 1 && out[1] == -3);
    /* 1,3,5 is a step-2 run of 3: singletons; then 8:11; then 20 */
    assert_int_equal(twpp_ts_encode(e, 8, out), 6);
    int64_t want_e[] = { -1, -3, -5, 8, -11, -20 };
    assert_memory_equal(out, want_e, sizeof want_e);
}

/* Collects an expansion. */
static uint64_t expanded[1 << 16];
static uint32_t nexpanded;
static int collect(void *ctx, uint32_t s)
{
    const twpp_model *m = ctx;
    if (nexpanded == sizeof expanded / sizeof *expanded)
        return 1;
    expanded[nexpanded++] = m->symbols[s].addr;
    return 0;
}

static char path[] = "/tmp/test_twpp_XXXXXX";

/* Every function of f read as series (twpp_load_function_series) gives
 * back, expanded, the traces a whole read of the file gives; that whole
 * read is made after a read and a twpp_unload_function, which frees the
 * traces. */
static void assert_series(twpp_file *f)
{
    char err[256];
    twpp_file *whole = twpp_open(path, err, sizeof err);
    assert_non_null(whole);
    const twpp_model *m = twpp_file_model(f), *w = twpp_file_model(whole);
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        assert_int_equal(twpp_load_function_series(f, i, err, sizeof err), 0);
        assert_int_equal(twpp_load_function(whole, i, err, sizeof err), 0);
        twpp_unload_function(whole, i);
        assert_null(w->functions[i].traces);
        assert_int_equal(twpp_load_function(whole, i, err, sizeof err), 0);
        const twpp_function *fn = &m->functions[i];
        for (uint32_t t = 0; t < fn->ntraces; t++) {
            const twpp_seq *want = &w->functions[i].traces[t], *s = &fn->series[t];
            uint32_t *got = calloc(want->n + 1, sizeof *got);
            assert_int_equal(s->v[0], want->n);
            for (uint32_t d = 0, k = 2; d < s->v[1]; d++) {
                uint32_t id = s->v[k], entries = s->v[k + 2];
                k += 3;
                for (uint32_t e = 0; e < entries; e++, k += 3)
                    for (uint32_t x = s->v[k]; x <= s->v[k + 1]; x += s->v[k + 2])
                        got[x - 1] = id;
            }
            assert_memory_equal(got, want->v, want->n * sizeof *got);
            free(got);
        }
    }
    twpp_close(whole);
}

/* Writes m, reads it back and checks the expansion against executed. */
static void assert_round_trip(twpp_model *m)
{
    char err[256];
    twpp_sizes sz;
    assert_int_equal(twpp_write(m, NULL, path, &sz, NULL, err, sizeof err), 0);
    twpp_file *f = twpp_open(path, err, sizeof err);
    assert_non_null(f);
    /* read lazily first (TWPP form, blocks counted from the series), then whole */
    const twpp_model *fm = twpp_file_model(f);
    uint64_t counted = 0;
    for (uint32_t i = 0; i < fm->nfunctions; i++) {
        assert_int_equal(twpp_load_function_lazy(f, i, err, sizeof err), 0);
        for (uint32_t p = 0; p < fm->functions[i].npaths; p++)
            counted += twpp_path_blocks(&fm->functions[i], p) * fm->functions[i].paths[p].calls;
    }
    assert_int_equal(counted, nexecuted);
    assert_series(f);
    nexpanded = 0;
    assert_int_equal(twpp_expand(f, collect, (void *)twpp_file_model(f), err, sizeof err), 0);
    assert_int_equal(nexpanded, nexecuted);
    assert_memory_equal(expanded, executed, nexecuted * sizeof *executed);
    twpp_close(f);
}

static void test_figure_3_round_trip(void **state)
{
    (void)state;
    twpp_model *m = figure_3_1();
    assert_round_trip(m);
    twpp_model_free(m);
}

/* Random programs: 40 blocks in 8 "functions" of 5; block 0 of each is
 * its entry, block 4 returns, block 2 calls; the walk is random, so
 * returns at depth 0 (unmatched), calls as a thread's last block and
 * interleaved threads all happen. Expansion is thread by thread. */
/* The file at path, malloc'd, its length in *n. */
static uint8_t *slurp(size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *p = malloc(1 << 20);
    assert_non_null(p);
    *n = fread(p, 1, 1 << 20, f);
    fclose(f);
    return p;
}

/* twpp_write_releasing writes the bytes twpp_write does (just written to
 * path), freeing every compacted trace's symbols and keeping its length. */
static void assert_releasing_writes_the_same(twpp_model *m)
{
    char err[256];
    twpp_sizes sz;
    size_t n, rn;
    uint8_t *kept = slurp(&n);
    uint64_t dbbs = 0, left = 0;
    for (uint32_t i = 0; i < m->nfunctions; i++)
        for (uint32_t t = 0; t < m->functions[i].ntraces; t++)
            dbbs += m->functions[i].traces[t].n;
    assert_int_equal(twpp_write_releasing(m, NULL, path, &sz, NULL, err, sizeof err), 0);
    uint8_t *released = slurp(&rn);
    assert_int_equal(rn, n);
    assert_memory_equal(released, kept, n);
    for (uint32_t i = 0; i < m->nfunctions; i++)
        for (uint32_t t = 0; t < m->functions[i].ntraces; t++) {
            assert_null(m->functions[i].traces[t].v);
            left += m->functions[i].traces[t].n;
        }
    assert_int_equal(left, dbbs);
    free(kept);
    free(released);
}

static void test_random_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < 30; round++) {
        twpp_builder *b = twpp_builder_new();
        uint32_t nthreads = 1 + (uint32_t)(rnd() % 3), n = 200 + (uint32_t)(rnd() % 3000);
        static uint64_t per_thread[3][1 << 14];
        uint32_t len[3] = { 0 };
        for (uint32_t i = 0; i < n; i++) {
            uint32_t t = (uint32_t)(rnd() % nthreads), id = (uint32_t)(rnd() % 40);
            int jump = id % 5 == 2 ? MR_JUMP_CALL : id % 5 == 4 ? MR_JUMP_RET : MR_JUMP_BORING;
            const mr_block_def *d = def(id, 0x4000 + 16 * id, jump);
            assert_int_equal(twpp_exec(b, 10 + t, d, 0), 0);
            per_thread[t][len[t]++] = d->addr;
        }
        nexecuted = 0;
        twpp_model *m = twpp_finish(b, NULL);
        assert_non_null(m);
        for (uint32_t i = 0; i < m->nthreads; i++) {     /* in order of first execution */
            uint32_t t = m->threads[i].tid - 10;
            memcpy(executed + nexecuted, per_thread[t], len[t] * sizeof *executed);
            nexecuted += len[t];
        }
        assert_round_trip(m);
        assert_releasing_writes_the_same(m);
        twpp_model_free(m);
    }
}

/* Opens the file at path and reads everything; 0 or -1. */
static int read_everything(void)
{
    char err[256];
    twpp_file *f = twpp_open(path, err, sizeof err);
    if (!f)
        return -1;
    for (uint32_t i = 0; i < twpp_file_model(f)->nfunctions; i++)   /* as series, then whole */
        twpp_load_function_series(f, i, err, sizeof err);
    nexpanded = 0;
    int rc = twpp_expand(f, collect, (void *)twpp_file_model(f), err, sizeof err);
    twpp_close(f);
    return rc ? -1 : 0;
}

/* Every truncation is refused; every single-byte change is refused or
 * read without a crash (ASan watches). */
static void test_corrupt_files(void **state)
{
    (void)state;
    char err[256];
    twpp_sizes sz;
    twpp_model *m = figure_3_1();
    assert_int_equal(twpp_write(m, NULL, path, &sz, NULL, err, sizeof err), 0);
    twpp_model_free(m);
    FILE *in = fopen(path, "rb");
    static uint8_t bytes[1 << 16];
    size_t n = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    assert_true(n > TWPP_HEADER_SIZE && n < sizeof bytes);
    for (size_t cut = 0; cut < n; cut++) {
        FILE *out = fopen(path, "wb");
        fwrite(bytes, 1, cut, out);
        fclose(out);
        assert_int_equal(read_everything(), -1);
    }
    for (size_t at = 0; at < n; at++)
        for (int bit = 0; bit < 8; bit += 3) {
            bytes[at] ^= (uint8_t)(1 << bit);
            FILE *out = fopen(path, "wb");
            fwrite(bytes, 1, n, out);
            fclose(out);
            (void)read_everything();
            bytes[at] ^= (uint8_t)(1 << bit);
        }
}

/* The symbol table's columns give every field and name back, names split
 * at a decimal line or kept whole (a colon without a plain line after it,
 * leading zeros, no colon, empty; NULL reads back empty). */
static void test_symtab(void **state)
{
    (void)state;
    static const char *const names[] = { "main:12", "f:12", "f:13", "a:b:7", "x:", ":5", "g:007",
                                         "noline", "", NULL, "main:12", "h:4294967295", "k:99999999999" };
    enum { N = sizeof names / sizeof *names };
    twpp_symbol in[N], out[N];
    memset(out, 0, sizeof out);
    for (uint32_t i = 0; i < N; i++)
        in[i] = (twpp_symbol){ .addr = 0x400000 + 977 * (i % 5) - 13 * i, .block = (i * 7) % 5,
                               .exit = i % 3, .ninstrs = i + 1, .jump = i % 5, .where = (char *)names[i] };
    twpp_buf b = {0};
    twpp_symtab_write(&b, in, N);
    assert_false(b.err);
    twpp_cur c = { b.p, b.p + b.n, 0 };
    assert_int_equal(twpp_symtab_read(&c, out, N), 0);
    assert_ptr_equal(c.p, c.end);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(out[i].addr, in[i].addr);
        assert_int_equal(out[i].block, in[i].block);
        assert_int_equal(out[i].exit, in[i].exit);
        assert_int_equal(out[i].ninstrs, in[i].ninstrs);
        assert_int_equal(out[i].jump, in[i].jump);
        assert_string_equal(out[i].where, names[i] ? names[i] : "");
        free(out[i].where);
    }
    for (size_t cut = 0; cut < b.n; cut++) {    /* every cut refused, nothing leaked */
        twpp_symbol part[N];
        memset(part, 0, sizeof part);
        twpp_cur d = { b.p, b.p + cut, 0 };
        assert_int_equal(twpp_symtab_read(&d, part, N), -1);
        for (uint32_t i = 0; i < N; i++)
            free(part[i].where);
    }
    free(b.p);
}

static void test_lzw(void **state)
{
    (void)state;
    static uint8_t in[300000], back[300000];
    for (int kind = 0; kind < 3; kind++) {
        size_t n = kind == 0 ? 1 : sizeof in;
        for (size_t i = 0; i < n; i++)   /* random bytes fill the table: clears happen */
            in[i] = kind == 1 ? (uint8_t)rnd() : (uint8_t)(i % 7 + (i / 1000) % 3);
        uint8_t *z;
        size_t zn;
        assert_int_equal(lzw_compress(in, n, &z, &zn), 0);
        assert_int_equal(lzw_expand(z, zn, back, n), 0);
        assert_memory_equal(in, back, n);
        if (zn > 1)
            assert_int_equal(lzw_expand(z, zn / 2, back, n), -1);   /* truncated */
        free(z);
    }
}

static int setup(void **state)
{
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

/* Two DBBs both at timestamp 1 (and none at 2): the counts, entries and
 * byte length are all right, so the series read takes it; the whole read
 * must refuse a timestamp taken twice. */
static void test_overlapping_series(void **state)
{
    (void)state;
    twpp_buf entries = {0}, b = {0};
    for (int d = 0; d < 2; d++) {
        buf_uv(&entries, 1);    /* one entry: timestamp 1 alone */
        buf_sv(&entries, -1);
    }
    buf_uv(&b, 2);              /* length */
    buf_uv(&b, 2);              /* DBBs: ids 0 and 1, one timestamp each */
    buf_uv(&b, 0);
    buf_uv(&b, 1);
    buf_uv(&b, 1);
    buf_uv(&b, 1);
    buf_uv(&b, entries.n);
    buf_bytes(&b, entries.p, entries.n);
    twpp_seq seq;
    twpp_cur c = { b.p, b.p + b.n, 0 };
    assert_int_equal(twpp_ts_series(&c, 2, &seq), 0);
    free(seq.v);
    c = (twpp_cur){ b.p, b.p + b.n, 0 };
    assert_int_equal(twpp_ts_read(&c, 2, &seq), -1);
    assert_true(c.bad);
    assert_null(seq.v);
    free(entries.p);
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_3_dictionaries),
        cmocka_unit_test(test_figure_3_timestamps),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_overlapping_series),
        cmocka_unit_test(test_figure_3_round_trip),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_corrupt_files),
        cmocka_unit_test(test_symtab),
        cmocka_unit_test(test_lzw),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
