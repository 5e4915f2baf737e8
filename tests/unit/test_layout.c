/*
 * test_layout.c: the pieces of trace-layout's analyses on numbers worked
 * out by hand: the structure size (Eq. 5) with an outlier stream, a unit
 * stride, a zero stride and a vector access covering two fields; field
 * affinity (Eq. 7) with per-field numerators (ART's U-P 0.02 in
 * miniature) and the presence rule against one stray access; average
 * linkage that does not chain; the remapping of a split; and the whole
 * analysis on a trace written here: a loop reading a 16-byte vector over
 * fields 0 and 8 and an 8-byte field at 16 of 32-byte records.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "memrec_trace.h"
#include "algo/cache_config.h"

#include "layout/layout.h"
#include "layout/replay.h"

static ly_stream stream(uint64_t stride, uint32_t size, uint64_t n)
{
    ly_stream s = {0};
    s.stride = stride;
    s.max_size = s.min_size = size;
    s.n = n;
    return s;
}

static void test_gcd(void **state)
{
    (void)state;
    assert_int_equal(ly_gcd(48, 32), 16);      /* the paper's Arr[2,5,7].a */
    assert_int_equal(ly_gcd(0, 16), 16);
    assert_int_equal(ly_gcd(16, 0), 16);
    assert_int_equal(ly_gcd(7, 5), 1);
}

static void test_struct_size(void **state)
{
    (void)state;
    /* Fig. 1a: four int fields each with stride 16 */
    ly_stream a = stream(16, 4, 1000), b = stream(16, 4, 1000), c = stream(48, 4, 1000);
    const ly_stream *fig[] = {&a, &b, &c};
    assert_int_equal(ly_struct_size(fig, 3, 1), 16);
    /* a unit stride (a byte loop, a memset) and a zero stride (one
     * address) say nothing about the structure */
    ly_stream unit = stream(1, 1, 16000), zero = stream(0, 4, 500);
    const ly_stream *mixed[] = {&a, &unit, &zero, &b};
    assert_int_equal(ly_struct_size(mixed, 4, 1), 16);
    const ly_stream *only_unit[] = {&unit, &zero};
    assert_int_equal(ly_struct_size(only_unit, 2, 1), 0);
    /* a stride equal to the access size is unit too: an int array */
    ly_stream ints = stream(4, 4, 1000);
    const ly_stream *prim[] = {&ints};
    assert_int_equal(ly_struct_size(prim, 1, 1), 0);
    /* an outlier: 10 accesses at stride 28 (an index stepping with the
     * outer loop) would make the size gcd(16, 28) = 4; with the minimum
     * of accesses it is left out */
    ly_stream outlier = stream(28, 4, 10);
    const ly_stream *with_outlier[] = {&a, &outlier, &b};
    assert_int_equal(ly_struct_size(with_outlier, 3, 1), 4);
    assert_int_equal(ly_struct_size(with_outlier, 3, 20), 16);
    /* a 16-byte vector load over two 8-byte fields, stride 32: the stride
     * exceeds the access, so it defines (the first of) its fields */
    ly_stream vec = stream(32, 16, 1000), other = stream(32, 8, 1000);
    const ly_stream *vecs[] = {&vec, &other};
    assert_int_equal(ly_struct_size(vecs, 2, 1), 32);
    /* a vector as wide as its stride is a unit stride */
    ly_stream wide = stream(16, 16, 1000);
    const ly_stream *wides[] = {&wide};
    assert_int_equal(ly_struct_size(wides, 1, 1), 0);
}

/* ART's U and P: together only in two small loops; U alone in one, P
 * alone in another. FA(U, P) = (0.3 + 0.4 + 0.2 + 0.3) / (5.1 + 58.7). */
static void test_affinity_art(void **state)
{
    (void)state;
    enum { U, P, X, N };
    /* slots: 0 outside loops, 1 and 2 the common loops, 3 U's, 4 P's, 5 X's */
    double w[6 * N] = {0};
    w[1 * N + U] = 0.3; w[1 * N + P] = 0.4;
    w[2 * N + U] = 0.2; w[2 * N + P] = 0.3;
    w[3 * N + U] = 4.6;
    w[4 * N + P] = 58.0;
    w[4 * N + X] = 0.001;       /* one stray access of X in P's loop */
    w[5 * N + X] = 10.0;
    w[0 * N + X] = 5.0;         /* X outside loops: denominator only */
    double aff[N * N];
    ly_affinity(6, N, w, 0.001, aff);
    assert_true(fabs(aff[U * N + P] - 1.2 / 63.8) < 1e-9);
    assert_true(fabs(aff[P * N + U] - aff[U * N + P]) < 1e-12);
    assert_true(fabs(aff[U * N + U] - 1) < 1e-12);
    /* the stray access is under 0.1% of X: X and P share no loop */
    assert_true(aff[X * N + P] == 0);
    /* without the presence rule it is a strong affinity */
    ly_affinity(6, N, w, 0, aff);
    assert_true(fabs(aff[X * N + P] - (0.001 + 58.0) / (15.001 + 58.7)) < 1e-9);
    /* the whole-loop reading (pitfall 8) would not give 0.02 */
    assert_true(aff[U * N + P] < 0.02);
}

/* Fig. 1a: {a, c} in one loop, {b, d} in another: 1 within, 0 across. */
static void test_affinity_fig1(void **state)
{
    (void)state;
    double w[3 * 4] = {0, 0, 0, 0,  1, 0, 3, 0,  0, 1, 0, 3};
    double aff[16];
    ly_affinity(3, 4, w, 0.01, aff);
    const double want[16] = {1, 0, 1, 0,  0, 1, 0, 1,  1, 0, 1, 0,  0, 1, 0, 1};
    for (int i = 0; i < 16; i++)
        assert_true(fabs(aff[i] - want[i]) < 1e-12);
    int cl[4];
    assert_int_equal(ly_cluster(4, aff, NULL, 0.5, cl), 2);
    assert_int_equal(cl[0], 0);
    assert_int_equal(cl[1], 1);
    assert_int_equal(cl[2], 0);
    assert_int_equal(cl[3], 1);
}

/* A-B and B-C high, A-C none: single linkage would chain all three;
 * average linkage stops at {A, B} {C}. A forbidden pair never joins. */
static void test_cluster(void **state)
{
    (void)state;
    const double aff[9] = {1, 0.9, 0,  0.9, 1, 0.8,  0, 0.8, 1};
    int cl[3];
    assert_int_equal(ly_cluster(3, aff, NULL, 0.5, cl), 2);
    assert_int_equal(cl[0], 0);
    assert_int_equal(cl[1], 0);
    assert_int_equal(cl[2], 1);
    assert_int_equal(ly_cluster(3, aff, NULL, 0.95, cl), 3);
    const uint8_t forbid[9] = {0, 1, 0,  1, 0, 0,  0, 0, 0};
    assert_int_equal(ly_cluster(3, aff, forbid, 0.5, cl), 2);
    assert_int_equal(cl[0], 0);     /* A alone, B with C */
    assert_int_equal(cl[1], 1);
    assert_int_equal(cl[2], 1);
}

/* The Fig. 1a split: {a, c} packed into 8-byte elements, {b, d} too. */
static void test_remap_split(void **state)
{
    (void)state;
    ly_field f[4] = {{0, 4, 1, 0, 0}, {4, 4, 1, 1, 0}, {8, 4, 1, 0, 0}, {12, 4, 1, 1, 0}};
    ly_struct st = {0};
    st.size = 16;
    st.nfields = 4;
    st.fields = f;
    st.nclusters = 2;
    st.split = 1;
    uint64_t base = 0x10000, r0 = 0x10ull << 44, r1 = 0x11ull << 44;
    assert_int_equal(ly_remap_split(&st, base, base + 0), r0 + base + 0);         /* a[0] */
    assert_int_equal(ly_remap_split(&st, base, base + 8), r0 + base + 4);         /* c[0] */
    assert_int_equal(ly_remap_split(&st, base, base + 16 * 5 + 8), r0 + base + 44); /* c[5] */
    assert_int_equal(ly_remap_split(&st, base, base + 4), r1 + base + 0);         /* b[0] */
    assert_int_equal(ly_remap_split(&st, base, base + 16 * 3 + 14), r1 + base + 30); /* d[3]+2 */
}

/* One loop block (0x401000): a 16-byte load at +0 and an 8-byte load at
 * +16 of record i of a malloc'd array of 64 32-byte records, run 64 times
 * (the block follows itself: a loop); then a second loop (0x401100)
 * reading the 8 bytes at +8 that the vector load also covers. */
static void write_vector_trace(const char *path)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"vec"};
    mr_process pr = {7, 1, 0, "/bin/vec", 1, argv, ""};
    assert_int_equal(mr_write_process(w, &pr), 0);
    const mr_instr_def ins[] = {{0x401000, 4}, {0x401004, 4}};
    const mr_access_def acc[] = {{0, MR_LOAD, 0, 16}, {1, MR_LOAD, 0, 8}};
    const mr_exit_def ex[] = {{2, 2, MR_JUMP_BORING}};
    mr_block_def b = {0, 0x401000, 2, ins, 2, acc, 1, ex};
    assert_int_equal(mr_write_block_def(w, &b), 0);
    const mr_instr_def ins2[] = {{0x401100, 4}};
    const mr_access_def acc2[] = {{0, MR_LOAD, 0, 8}};
    const mr_exit_def ex2[] = {{1, 1, MR_JUMP_BORING}};
    mr_block_def b2 = {1, 0x401100, 1, ins2, 1, acc2, 1, ex2};
    assert_int_equal(mr_write_block_def(w, &b2), 0);
    uint64_t ips[] = {0x402000};
    mr_stack st = {1, 1, ips};
    assert_int_equal(mr_write_stack(w, &st), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    mr_heap h = {MR_MALLOC, 0x10000000, 64 * 32, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t a[] = {0x10000000 + 32 * i, 0x10000000 + 32 * i + 16};
        assert_int_equal(mr_write_exec(w, 0, 0, a, NULL), 0);
    }
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t a[] = {0x10000000 + 32 * i + 8};
        assert_int_equal(mr_write_exec(w, 1, 0, a, NULL), 0);
    }
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

static void test_vector_fields(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_layout.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/v.mrt", dir);
    write_vector_trace(path);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    cfg_builder *cb = cfg_builder_new();
    mr_event ev;
    while (mr_next(r, &ev) > 0)
        assert_int_equal(cfg_builder_event(cb, &ev), 0);
    cfg *g = cfg_build(cb, r);
    assert_non_null(g);
    cfg_builder_free(cb);
    assert_int_equal(cfg_nloops(g), 2);
    ly_options o = {.hot = LY_DEFAULT_HOT, .tau = LY_DEFAULT_TAU,
                    .presence = LY_DEFAULT_PRESENCE, .group_depth = 1};
    char cerr[128];
    assert_int_equal(cache_preset("lwptool", &o.cache, cerr, sizeof cerr), 0);
    ly_profile *p = ly_new(&o, g);
    assert_non_null(p);
    mr_reader *again = mr_reader_open(path, &err);
    assert_non_null(again);
    while (mr_next(again, &ev) > 0)
        assert_int_equal(ly_event(p, &ev), 0);
    mr_reader_close(again);
    assert_int_equal(ly_finish(p), 0);
    assert_int_equal(ly_accesses(p), 192);
    assert_int_equal(ly_nstructs(p), 1);
    const ly_struct *st = ly_struct_at(p, 0);
    assert_int_equal(st->size, 32);
    assert_int_equal(st->nfields, 3);
    assert_int_equal(st->fields[0].offset, 0);
    assert_int_equal(st->fields[0].size, 16);
    assert_int_equal(st->fields[0].multi, 1);  /* the vector covers +8 too */
    assert_int_equal(st->fields[1].offset, 8);
    assert_int_equal(st->fields[1].multi, 0);
    assert_int_equal(st->fields[2].offset, 16);
    assert_int_equal(st->fields[2].multi, 0);
    /* {0, 16} in one loop, {8} in the other */
    assert_int_equal(st->split, 1);
    assert_int_equal(st->fields[0].cluster, st->fields[2].cluster);
    assert_true(st->fields[0].cluster != st->fields[1].cluster);
    assert_true(fabs(st->fa[0 * 3 + 1]) < 1e-12);
    assert_true(fabs(st->fa[0 * 3 + 2] - 1) < 1e-12);
    int32_t loops[2] = {-2, -2};
    for (uint32_t i = 0; i < ly_nstreams(p); i++) {
        const ly_stream *x = ly_stream_at(p, i);
        assert_true(x->loop >= 0);
        loops[x->pc == 0x401100] = x->loop;
    }
    assert_true(loops[0] != loops[1]);
    ly_free(p);
    cfg_free(g);
    mr_reader_close(r);
    unlink(path);
    rmdir(dir);
}

/* main loops (0x6000 calls g, 0x6005 jumps back) 16 times; g (0x7000, no
 * loop) loads element i of a malloc'd array: g's accesses are in no loop
 * of their own, and in main's loop inclusively. */
static void test_inclusive_callee(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_layout.XXXXXX", path[64], *err = NULL;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/c.mrt", dir);
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const mr_instr_def m0i[] = {{0x6000, 5}}, m1i[] = {{0x6005, 4}}, gi[] = {{0x7000, 4}};
    const mr_exit_def call[] = {{1, 0, MR_JUMP_CALL}}, jump[] = {{1, 0, MR_JUMP_BORING}},
                      ret[] = {{1, 1, MR_JUMP_RET}};
    const mr_access_def ga[] = {{0, MR_LOAD, 0, 8}};
    mr_block_def m0 = {0, 0x6000, 1, m0i, 0, NULL, 1, call};
    mr_block_def m1 = {1, 0x6005, 1, m1i, 0, NULL, 1, jump};
    mr_block_def g = {2, 0x7000, 1, gi, 1, ga, 1, ret};
    assert_int_equal(mr_write_block_def(w, &m0), 0);
    assert_int_equal(mr_write_block_def(w, &m1), 0);
    assert_int_equal(mr_write_block_def(w, &g), 0);
    uint64_t ips[] = {0x402000};
    mr_stack st = {1, 1, ips};
    assert_int_equal(mr_write_stack(w, &st), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    mr_heap h = {MR_MALLOC, 0x10000000, 16 * 8, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    for (uint64_t i = 0; i < 16; i++) {
        uint64_t a[] = {0x10000000 + 8 * i};
        assert_int_equal(mr_write_exec(w, 0, 0, NULL, NULL), 0);
        assert_int_equal(mr_write_exec(w, 2, 0, a, NULL), 0);
        assert_int_equal(mr_write_exec(w, 1, 0, NULL, NULL), 0);
    }
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);

    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    cfg_builder *cb = cfg_builder_new();
    mr_event ev;
    while (mr_next(r, &ev) > 0)
        assert_int_equal(cfg_builder_event(cb, &ev), 0);
    cfg *cg = cfg_build(cb, r);
    cfg_builder_free(cb);
    assert_int_equal(cfg_nloops(cg), 1);
    ly_options o = {.metric = LY_COUNT, .hot = LY_DEFAULT_HOT, .tau = LY_DEFAULT_TAU,
                    .presence = LY_DEFAULT_PRESENCE, .group_depth = 1};
    char cerr[128];
    assert_int_equal(cache_preset("lwptool", &o.cache, cerr, sizeof cerr), 0);
    ly_profile *p = ly_new(&o, cg);
    mr_reader *again = mr_reader_open(path, &err);
    while (mr_next(again, &ev) > 0)
        assert_int_equal(ly_event(p, &ev), 0);
    mr_reader_close(again);
    assert_int_equal(ly_finish(p), 0);
    assert_true(ly_loop_weight(p, 0) == 0);        /* g's loads are not main's own */
    assert_true(ly_loop_weight(p, -1) == 16);
    assert_true(ly_loop_inclusive(p, 0) == 16);    /* but they run in main's loop */
    assert_true(ly_loop_inclusive(p, -1) == 0);
    ly_free(p);
    cfg_free(cg);
    mr_reader_close(r);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcd),
        cmocka_unit_test(test_struct_size),
        cmocka_unit_test(test_affinity_art),
        cmocka_unit_test(test_affinity_fig1),
        cmocka_unit_test(test_cluster),
        cmocka_unit_test(test_remap_split),
        cmocka_unit_test(test_vector_fields),
        cmocka_unit_test(test_inclusive_callee),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
