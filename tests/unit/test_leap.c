/*
 * test_leap.c: LEAP from hand-made access streams: the closed-form last
 * writer of a store LMAD, dependence frequencies from LMADs (a load fed by
 * two stores 10% / 90% of the time, with and without the cap cutting the
 * sample, a read after a read, a store the load's object never sees,
 * stores of every width class of the solver),
 * strides (constant, changing halfway and at three quarters, a pointer
 * chase), and the Table 1 summary.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "leap/leap.h"
#include "leap/leap_mdf.h"
#include "leap/leap_stride.h"
#include "leap/leap_writes.h"
#include "memrec_trace.h"

static lmad make(int64_t o, int64_t f, int64_t t, int64_t dobj, int64_t doff,
                 int64_t dt, uint64_t count)
{
    lmad m = { .start = { o, f, t }, .stride = { dobj, doff, dt }, .count = count };
    return m;
}

static void last_write(void **state)
{
    (void)state;
    /* Offsets 0, 8, ..., 72 of object 3 at times 10, 13, ... */
    lmad s = make(3, 0, 10, 0, 8, 3, 10);
    assert_int_equal(leap_last_write(&s, 8, 3, 16, 100), 16);
    assert_int_equal(leap_last_write(&s, 8, 3, 20, 100), 16);  /* inside */
    assert_int_equal(leap_last_write(&s, 4, 3, 20, 100), -1); /* a 4-byte store misses 20 */
    assert_int_equal(leap_last_write(&s, 8, 4, 16, 100), -1); /* other object */
    assert_int_equal(leap_last_write(&s, 8, 3, 16, 16), -1);  /* written at 16: not before */
    assert_int_equal(leap_last_write(&s, 8, 3, 16, 17), 16);
    assert_int_equal(leap_last_write(&s, 8, 3, 80, 1000), -1); /* past the count */
    assert_int_equal(leap_last_write(&s, 8, 3, -8, 1000), -1);
    /* One location written again and again: the last one before t. */
    lmad same = make(0, 24, 5, 0, 0, 4, 100);
    assert_int_equal(leap_last_write(&same, 4, 0, 24, 50), 49);   /* 5 + 11 x 4 */
    assert_int_equal(leap_last_write(&same, 4, 0, 24, 49), 45);
    assert_int_equal(leap_last_write(&same, 4, 0, 24, 10000), 401);
    assert_int_equal(leap_last_write(&same, 4, 0, 28, 10000), -1);
    /* Object-strided (a field of consecutive objects), downward offsets. */
    lmad fld = make(10, 8, 0, 1, 0, 2, 5);
    assert_int_equal(leap_last_write(&fld, 8, 13, 8, 100), 6);
    assert_int_equal(leap_last_write(&fld, 8, 13, 8, 6), -1);
    lmad down = make(0, 64, 0, 0, -8, 1, 8);
    assert_int_equal(leap_last_write(&down, 8, 0, 40, 100), 3);
    assert_int_equal(leap_last_write(&down, 8, 0, 12, 100), 7);  /* 64 - 56 = 8 covers 12 */
    assert_int_equal(leap_last_write(&down, 8, 0, 4, 100), -1);
    /* A single point. */
    lmad one = make(2, 4, 7, 0, 0, 0, 1);
    assert_int_equal(leap_last_write(&one, 4, 2, 4, 8), 7);
    assert_int_equal(leap_last_write(&one, 4, 2, 4, 7), -1);
    /* A folded loop nest: rows of 4 points (offsets +4, times +1), 3 rows
     * 32 bytes and 5 accesses apart, the whole repeated in place 3 times,
     * 100 accesses apart: offset 36 (row 1, column 1) is written at
     * 6, 106 and 206. */
    lmad nest = make(1, 0, 0, 0, 4, 1, 4);
    nest.nouter = 2;
    nest.outer[0] = (lmad_level){ .stride = { 0, 32, 5 }, .count = 3 };
    nest.outer[1] = (lmad_level){ .stride = { 0, 0, 100 }, .count = 3 };
    assert_int_equal(leap_last_write(&nest, 4, 1, 36, 1000), 206);
    assert_int_equal(leap_last_write(&nest, 4, 1, 36, 206), 106);
    assert_int_equal(leap_last_write(&nest, 4, 1, 36, 107), 106);
    assert_int_equal(leap_last_write(&nest, 4, 1, 36, 106), 6);
    assert_int_equal(leap_last_write(&nest, 4, 1, 36, 6), -1);
    assert_int_equal(leap_last_write(&nest, 4, 1, 38, 1000), 206);  /* inside */
    assert_int_equal(leap_last_write(&nest, 4, 1, 16, 1000), -1);   /* the row gap */
    assert_int_equal(leap_last_write(&nest, 4, 1, 76, 1000), 213);  /* last point */
    assert_int_equal(leap_last_write(&nest, 4, 1, 80, 1000), -1);
    assert_int_equal(leap_last_write(&nest, 4, 2, 36, 1000), -1);   /* other object */
    /* Against every point one by one. */
    for (int64_t off = -8; off < 90; off += 2)
        for (int64_t t = 0; t < 260; t += 7) {
            int64_t want = -1;
            for (uint64_t k = 0; k < lmad_points(&nest); k++) {
                int64_t p[3];
                lmad_point(&nest, 3, k, p);
                if (p[2] < t && p[1] <= off && off < p[1] + 4 && p[2] > want)
                    want = p[2];
            }
            assert_int_equal(leap_last_write(&nest, 4, 1, off, t), want);
        }
}

enum { STORE_A = 0, STORE_B = 1, LOAD = 2, OTHER = 3, GROUP = 5 };

/* buf[i] written by A when i % 10 == 0, else by B, then read: four
 * accesses per iteration, as in samples/deps_known.c. */
static leap *two_stores(uint32_t max_lmads, int n)
{
    leap *l = leap_new(max_lmads);
    assert_non_null(l);
    for (int i = 0; i < n; i++) {
        uint32_t st = i % 10 == 0 ? STORE_A : STORE_B;
        assert_int_equal(leap_access(l, OTHER, MR_STORE, 8, 0, 0, 64), 0);
        assert_int_equal(leap_access(l, st, MR_STORE, 4, GROUP, 0, 4 * (uint64_t)i), 0);
        assert_int_equal(leap_access(l, OTHER + 1, MR_LOAD, 8, 0, 0, 64), 0);
        assert_int_equal(leap_access(l, LOAD, MR_LOAD, 4, GROUP, 0, 4 * (uint64_t)i), 0);
    }
    return l;
}

static const leap_dep *find_dep(const leap_mdf *m, uint32_t store, uint32_t load)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->deps[i].store == store && m->deps[i].load == load)
            return &m->deps[i];
    return NULL;
}

static void ten_ninety(void **state)
{
    (void)state;
    /* A cap large enough for everything: the exact 10% / 90%. */
    leap *l = two_stores(1000, 1000);
    leap_mdf m;
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.sampled[LOAD], 1000);
    const leap_dep *a = find_dep(&m, STORE_A, LOAD), *b = find_dep(&m, STORE_B, LOAD);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->conflicts, 100);
    assert_int_equal(b->conflicts, 900);
    /* The pushes and pops of the helper (OTHER, OTHER+1) depend too. */
    assert_int_equal(find_dep(&m, OTHER, OTHER + 1)->conflicts, 1000);
    assert_int_equal(m.n, 3);
    leap_mdf_free(&m);
    leap_free(l);

    /* The paper's cap: B makes an LMAD per nine elements, all of one
     * shape, each 40 bytes and 40 accesses after the one before: they fold
     * into one LMAD with an outer level, and the whole stream is solved. */
    l = two_stores(30, 1000);
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.sampled[LOAD], 1000);
    assert_int_equal(find_dep(&m, STORE_A, LOAD)->conflicts, 100);
    assert_int_equal(find_dep(&m, STORE_B, LOAD)->conflicts, 900);
    leap_mdf_free(&m);
    leap_free(l);

    /* A stratified sample of 100 load points: one from each stratum of
     * ten iterations, each holding one A: A's share is binomial(100, 0.1)
     * (the seed is fixed: the same every run). */
    l = two_stores(1000, 1000);
    assert_int_equal(leap_mdf_compute(l, 100, &m), 0);
    assert_int_equal(m.sampled[LOAD], 100);
    uint64_t a100 = find_dep(&m, STORE_A, LOAD)->conflicts;
    assert_int_equal(a100 + find_dep(&m, STORE_B, LOAD)->conflicts, 100);
    assert_true(a100 >= 3 && a100 <= 20);
    leap_mdf_free(&m);
    leap_free(l);
}

/* Store boxes of the three width classes of the solver (one slot; 136
 * bytes; 4800 bytes, a class of its own), the two narrow ones starting
 * before the load's first byte: each load point finds its last writer
 * whatever the class (a search from the load's first byte alone would miss
 * the 136-byte store). Each LMAD has more points than the solver takes as
 * single writes (LEAP_WRITES_MAX_POINTS), so all three are boxes. */
static void width_classes(void **state)
{
    (void)state;
    leap *l = leap_new(0);
    for (uint64_t i = 0; i < 600; i++)          /* wide: 0 .. 4799 */
        assert_int_equal(leap_access(l, 2, MR_STORE, 8, 1, 0, 8 * i), 0);
    assert_true(17 > LEAP_WRITES_MAX_POINTS);   /* boxes, not writes */
    for (uint64_t i = 0; i < 17; i++)           /* 136 bytes: 0 .. 135 */
        assert_int_equal(leap_access(l, 1, MR_STORE, 8, 1, 0, 8 * i), 0);
    for (uint64_t i = 0; i < 17; i++)           /* one slot, 17 times */
        assert_int_equal(leap_access(l, 0, MR_STORE, 8, 1, 0, 200), 0);
    for (uint64_t i = 8; i <= 30; i++)          /* loads 64 .. 247 */
        assert_int_equal(leap_access(l, 3, MR_LOAD, 8, 1, 0, 8 * i), 0);
    leap_finish(l);
    leap_mdf m;
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.sampled[3], 23);
    const leap_dep *d1 = find_dep(&m, 1, 3), *d0 = find_dep(&m, 0, 3),
                   *d2 = find_dep(&m, 2, 3);
    assert_non_null(d1);
    assert_non_null(d0);
    assert_non_null(d2);
    assert_int_equal(d1->conflicts, 9);     /* 64 .. 128 */
    assert_int_equal(d0->conflicts, 1);     /* 200 */
    assert_int_equal(d2->conflicts, 13);    /* the rest */
    leap_mdf_free(&m);
    leap_free(l);
}

/* A stores at irregular places (every 3rd, 7th or 11th element, as a
 * generator says): no two of its runs have one shape, so with a cap of 30
 * the stream is summarised past its 30th LMAD, and so is B's; a load after
 * that reads a byte the summaries may have written last: it is left out of
 * the sample. */
static void cap_cuts_sample(void **state)
{
    (void)state;
    leap *l = leap_new(30);
    uint64_t next_a = 0, gap = 3, state_r = 1, first_over = 0;
    uint32_t a_runs = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        uint32_t st = STORE_B;
        if (i == next_a) {
            st = STORE_A;
            state_r = state_r * 1103515245 + 12345;
            gap = (uint64_t[]){ 3, 7, 11 }[(state_r >> 16) % 3];
            next_a = i + gap;
        }
        assert_int_equal(leap_access(l, st, MR_STORE, 4, GROUP, 0, 4 * i), 0);
        assert_int_equal(leap_access(l, LOAD, MR_LOAD, 4, GROUP, 0, 4 * i), 0);
        const lmad_stream *as = &leap_stream_get(l, 0)->lmads;
        if (st == STORE_A && !first_over && as->over.count)
            first_over = i;
        a_runs += st == STORE_A;
    }
    assert_true(first_over > 0 && first_over < 2000);
    leap_mdf m;
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    /* The sample: the loads before the first summarised store of A or B
     * (B's runs between A's have three lengths: it overflows too). */
    assert_true(m.sampled[LOAD] > 0 && m.sampled[LOAD] <= first_over);
    const leap_dep *a = find_dep(&m, STORE_A, LOAD), *b = find_dep(&m, STORE_B, LOAD);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->conflicts + b->conflicts, m.sampled[LOAD]);
    leap_mdf_free(&m);
    leap_free(l);

    /* The same irregular stores, then C rewrites the buffer in one sweep
     * and the load reads it: every summarised write is older than C's, so
     * each load point's last writer is known (C), though A's and B's
     * summaries cover every byte. */
    l = leap_new(30);
    next_a = 0;
    state_r = 1;
    for (uint64_t i = 0; i < 2000; i++) {
        uint32_t st = STORE_B;
        if (i == next_a) {
            st = STORE_A;
            state_r = state_r * 1103515245 + 12345;
            next_a = i + (uint64_t[]){ 3, 7, 11 }[(state_r >> 16) % 3];
        }
        assert_int_equal(leap_access(l, st, MR_STORE, 4, GROUP, 0, 4 * i), 0);
    }
    for (uint64_t i = 0; i < 2000; i++)
        assert_int_equal(leap_access(l, OTHER, MR_STORE, 4, GROUP, 0, 4 * i), 0);
    for (uint64_t i = 0; i < 2000; i++)
        assert_int_equal(leap_access(l, LOAD, MR_LOAD, 4, GROUP, 0, 4 * i), 0);
    assert_true(leap_stream_get(l, 0)->lmads.over.count > 0);
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.sampled[LOAD], 2000);
    assert_int_equal(m.guessed[LOAD], 0);
    assert_int_equal(find_dep(&m, OTHER, LOAD)->conflicts, 2000);
    assert_int_equal(m.n, 1);
    leap_mdf_free(&m);
    leap_free(l);

    /* C writes the buffer, A writes irregular places of it (past its cap),
     * then the load reads it downwards while A goes on: every load point
     * may have been written by A's summarised part after the last write
     * the LMADs show, so none is decided, and the load is guessed from the
     * LMADs alone. Its captured points (A's stores between its loads make
     * its times irregular: it has a cap too) read the buffer's top, which
     * A's captured LMADs (its first 30) never wrote: C for all. */
    l = leap_new(30);
    for (uint64_t i = 0; i < 2000; i++)
        assert_int_equal(leap_access(l, OTHER, MR_STORE, 4, GROUP, 0, 4 * i), 0);
    state_r = 1;
    for (int phase = 0; phase < 2; phase++) {
        next_a = 0;
        for (uint64_t i = 0; i < 2000; i++) {
            if (i == next_a) {
                state_r = state_r * 1103515245 + 12345;
                next_a = i + (uint64_t[]){ 3, 7, 11 }[(state_r >> 16) % 3];
                assert_int_equal(leap_access(l, STORE_A, MR_STORE, 4, GROUP, 0, 4 * i), 0);
            }
            if (phase && i < 1900)          /* within A's box */
                assert_int_equal(leap_access(l, LOAD, MR_LOAD, 4, GROUP, 0, 4 * (1899 - i)), 0);
        }
    }
    uint64_t load_captured = lmad_captured(&leap_stream_get(l, 2)->lmads);
    assert_int_equal(leap_stream_get(l, 2)->insn, LOAD);
    assert_true(leap_stream_get(l, 1)->lmads.over.count > 0);
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.sampled[LOAD], 0);
    assert_int_equal(m.guessed[LOAD], load_captured);
    const leap_dep *c = find_dep(&m, OTHER, LOAD);
    assert_non_null(c);
    assert_int_equal(c->conflicts, load_captured);
    assert_null(find_dep(&m, STORE_A, LOAD));
    assert_true(leap_mdf_frequency(&m, c) == 1.0);
    leap_mdf_free(&m);
    leap_free(l);
}

/* Two loads of a table nobody writes, and a store to another object of
 * the group: no dependence. */
static void no_dependence(void **state)
{
    (void)state;
    leap *l = leap_new(0);
    for (uint64_t i = 0; i < 500; i++) {
        assert_int_equal(leap_access(l, 0, MR_LOAD, 8, 1, 0, 8 * i), 0);
        assert_int_equal(leap_access(l, 1, MR_LOAD, 8, 1, 0, 8 * i), 0);
        assert_int_equal(leap_access(l, 2, MR_STORE, 8, 1, 1, 8 * i), 0);
        assert_int_equal(leap_access(l, 3, MR_STORE, 8, 2, 0, 8 * i), 0);
    }
    leap_mdf m;
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.sampled[0], 500);
    assert_int_equal(m.sampled[1], 500);
    leap_mdf_free(&m);
    leap_free(l);

    /* Loads alone (a trace cut short before any store): no store box. */
    l = leap_new(0);
    for (uint64_t i = 0; i < 10; i++)
        assert_int_equal(leap_access(l, 0, MR_LOAD, 8, 1, 0, 8 * i), 0);
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.sampled[0], 10);
    leap_mdf_free(&m);
    leap_free(l);
}

/* A modify reads what it wrote the pass before: 2 passes, the second
 * depends on the first (50%), its own write at the same time does not
 * count. */
static void modify_passes(void **state)
{
    (void)state;
    leap *l = leap_new(0);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t i = 0; i < 100; i++)
            assert_int_equal(leap_access(l, 0, MR_MODIFY, 8, 0, 0, 8 * i), 0);
    leap_mdf m;
    assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.deps[0].conflicts, 100);
    assert_int_equal(m.sampled[0], 200);
    leap_mdf_free(&m);
    leap_free(l);
}

static const leap_stride *stride_of(const leap_stride *s, uint32_t n, uint32_t insn)
{
    for (uint32_t i = 0; i < n; i++)
        if (s[i].insn == insn)
            return &s[i];
    return NULL;
}

static void strides(void **state)
{
    (void)state;
    leap *l = leap_new(0);
    uint64_t half = 0, late = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        assert_int_equal(leap_access(l, 0, MR_LOAD, 4, 0, 0, 16 * i), 0);   /* constant */
        assert_int_equal(leap_access(l, 1, MR_LOAD, 8, 1, 0, half), 0);     /* halfway */
        half += i < 500 ? 8 : 24;
        assert_int_equal(leap_access(l, 2, MR_LOAD, 8, 1, 0, late), 0);     /* late */
        late += i < 750 ? 8 : 24;
        /* chase: a shuffled walk over objects, one field */
        assert_int_equal(leap_access(l, 3, MR_LOAD, 8, 2, (i * 7919) % 1000, 8), 0);
        assert_int_equal(leap_access(l, 4, MR_LOAD, 8, 3, 0, 64), 0);       /* stride 0 */
    }
    leap_stride *s;
    uint32_t n;
    assert_int_equal(leap_strides(l, &s, &n), 0);
    assert_int_equal(n, 5);
    const leap_stride *c = stride_of(s, n, 0);
    assert_int_equal(c->stride, 16);
    assert_int_equal(c->steps, 999);
    assert_true(c->share == 1.0 && c->strongly);
    c = stride_of(s, n, 1);
    assert_int_equal(c->stride, 8);
    assert_int_equal(c->hits, 500);   /* 499 in the first LMAD, the step between */
    assert_int_equal(c->steps, 999);  /* 499 + 1 + 499 */
    assert_true(c->share > 0.5 && c->share < 0.501);
    assert_false(c->strongly);
    c = stride_of(s, n, 2);
    assert_int_equal(c->stride, 8);
    assert_int_equal(c->hits, 750);
    assert_true(c->strongly);
    c = stride_of(s, n, 3);
    assert_int_equal(c->hits, 0);
    assert_false(c->strongly);
    c = stride_of(s, n, 4);
    assert_int_equal(c->stride, 0);
    assert_false(c->strongly);       /* stride 0 is no stride to prefetch */
    free(s);
    leap_free(l);
}

static void summary(void **state)
{
    (void)state;
    leap *l = leap_new(2);
    for (uint64_t i = 0; i < 10; i++)
        assert_int_equal(leap_access(l, 0, MR_LOAD, 4, 0, 0, 4 * i), 0);   /* 1 LMAD */
    for (uint64_t i = 0; i < 10; i++)   /* pairs: 5 LMADs needed, 2 kept */
        assert_int_equal(leap_access(l, 1, MR_STORE, 4, 0, 0, i * i), 0);
    assert_int_equal(leap_access(l, 0, MR_LOAD, 4, 1, 0, 0), 0);   /* another group */
    leap_summary s;
    leap_summarise(l, &s);
    assert_int_equal(s.accesses, 21);
    assert_int_equal(s.trace_bytes, 21 * 16);
    assert_int_equal(s.instructions, 2);
    assert_int_equal(s.insns_captured, 1);
    assert_int_equal(s.streams, 3);
    assert_int_equal(s.lmads, 4);
    assert_int_equal(s.overflowed, 1);
    assert_int_equal(s.captured, 10 + 4 + 1);
    assert_true(s.profile_bytes > 0 && s.profile_bytes < 200);
    assert_int_equal(leap_accesses(l), 21);
    leap_free(l);
}

/* A loop run given as runs (two accesses per iteration, the second one
 * iteration short: the loop left between them) is the profile of the same
 * accesses one by one, and the clock moves the same. */
/* The leap_access() calls a batch stands for, in order. */
static void batch_by_hand(leap *b, const leap_batch_access *run, uint32_t n)
{
    uint64_t most = 0;
    for (uint32_t i = 0; i < n; i++)
        most = run[i].count > most ? run[i].count : most;
    for (uint64_t j = 0; j < most; j++)
        for (uint32_t i = 0; i < n; i++)
            if (j < run[i].count)
                assert_int_equal(leap_access(b, run[i].insn, run[i].kind, run[i].size,
                                             run[i].group, run[i].object,
                                             run[i].offset + j * (uint64_t)run[i].step), 0);
}

/* Two profiles made the same: every stream's LMADs (outer levels too),
 * summary and instruction counts. */
static void assert_same_profile(const leap *a, const leap *b)
{
    assert_int_equal(leap_accesses(a), leap_accesses(b));
    assert_int_equal(leap_nstreams(a), leap_nstreams(b));
    for (uint32_t i = 0; i < leap_nstreams(a); i++) {
        const lmad_stream *x = &leap_stream_get(a, i)->lmads, *y = &leap_stream_get(b, i)->lmads;
        assert_int_equal(x->n, y->n);
        assert_int_equal(x->over.count, y->over.count);
        for (uint32_t k = 0; k < x->n; k++) {
            const lmad *p = &x->lmads[k], *q = &y->lmads[k];
            assert_int_equal(p->count, q->count);
            assert_int_equal(p->nouter, q->nouter);
            for (int d = 0; d < LEAP_DIMS; d++) {
                assert_int_equal(p->start[d], q->start[d]);
                if (p->count > 1)
                    assert_int_equal(p->stride[d], q->stride[d]);
                for (uint32_t o = 0; o < p->nouter; o++)
                    assert_int_equal(p->outer[o].stride[d], q->outer[o].stride[d]);
            }
            for (uint32_t o = 0; o < p->nouter; o++)
                assert_int_equal(p->outer[o].count, q->outer[o].count);
        }
    }
    for (uint32_t i = 0; i < leap_ninsns(a); i++)
        assert_int_equal(leap_insn_get(a, i)->executions, leap_insn_get(b, i)->executions);
}

/* An instruction several times in a body: a wide move in four pieces (one
 * run over all iterations), and random bodies (instructions repeated in
 * and out of step, a partial last iteration, small caps): a batch makes
 * the profile its accesses one by one make. */
static void batch_repeated(void **state)
{
    (void)state;
    leap *a = leap_new(4), *b = leap_new(4);
    leap_batch_access wide[4];
    for (uint32_t i = 0; i < 4; i++)
        wide[i] = (leap_batch_access){ .insn = 3, .kind = MR_STORE, .size = 8, .group = 1,
                                       .object = 0, .offset = 8 * i, .step = 32,
                                       .place = i, .count = i < 2 ? 30 : 29 };
    assert_int_equal(leap_batch(a, wide, 4, 4), 0);
    batch_by_hand(b, wide, 4);
    assert_same_profile(a, b);
    assert_int_equal(leap_stream_get(a, 0)->lmads.n, 1);   /* one run */
    assert_int_equal(leap_stream_get(a, 0)->lmads.lmads[0].count, 118);
    leap_free(a);
    leap_free(b);

    srand(5);
    for (int round = 0; round < 300; round++) {
        uint32_t cap = 1 + (uint32_t)(rand() % 6), n = 1 + (uint32_t)(rand() % 7);
        a = leap_new(cap);
        b = leap_new(cap);
        leap_batch_access run[8];
        uint64_t count = 1 + (uint64_t)(rand() % 12);
        uint32_t cut = (uint32_t)(rand() % (n + 1));  /* places with one less */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t insn = (uint32_t)(rand() % 3);
            run[i] = (leap_batch_access){ .insn = insn, .kind = MR_LOAD, .size = 4,
                                          .group = (uint32_t)(rand() % 2), .object = (uint64_t)(rand() % 2),
                                          .offset = 4 * (uint64_t)(rand() % 4) + 4 * i,
                                          .step = rand() % 2 ? 4 * (int64_t)n : 8 * (rand() % 3 - 1),
                                          .place = i,
                                          .count = i >= cut && count > 1 ? count - 1 : count };
        }
        for (int rep = 0; rep < 2; rep++) {     /* twice: runs continue */
            assert_int_equal(leap_batch(a, run, n, n), 0);
            batch_by_hand(b, run, n);
        }
        assert_same_profile(a, b);
        leap_free(a);
        leap_free(b);
    }
}

static void batch_as_accesses(void **state)
{
    (void)state;
    leap *a = leap_new(4), *b = leap_new(4);
    assert_int_equal(leap_access(a, 9, MR_LOAD, 4, 0, 0, 0), 0);
    assert_int_equal(leap_access(b, 9, MR_LOAD, 4, 0, 0, 0), 0);
    leap_batch_access run[2] = {
        { .insn = 0, .kind = MR_LOAD, .size = 8, .group = 1, .object = 2,
          .offset = 16, .step = 8, .place = 0, .count = 50 },
        { .insn = 1, .kind = MR_STORE, .size = 8, .group = 1, .object = 2,
          .offset = 800, .step = -8, .place = 1, .count = 49 },
    };
    assert_int_equal(leap_batch(a, run, 2, 2), 0);
    for (uint64_t j = 0; j < 50; j++) {
        assert_int_equal(leap_access(b, 0, MR_LOAD, 8, 1, 2, 16 + 8 * j), 0);
        if (j < 49)
            assert_int_equal(leap_access(b, 1, MR_STORE, 8, 1, 2, 800 - 8 * j), 0);
    }
    assert_int_equal(leap_access(a, 9, MR_LOAD, 4, 0, 0, 4), 0);
    assert_int_equal(leap_access(b, 9, MR_LOAD, 4, 0, 0, 4), 0);
    assert_int_equal(leap_accesses(a), leap_accesses(b));
    assert_int_equal(leap_nstreams(a), leap_nstreams(b));
    for (uint32_t i = 0; i < leap_nstreams(a); i++) {
        const lmad_stream *x = &leap_stream_get(a, i)->lmads, *y = &leap_stream_get(b, i)->lmads;
        assert_int_equal(x->n, y->n);
        for (uint32_t k = 0; k < x->n; k++) {
            assert_int_equal(x->lmads[k].count, y->lmads[k].count);
            for (int d = 0; d < LEAP_DIMS; d++) {
                assert_int_equal(x->lmads[k].start[d], y->lmads[k].start[d]);
                assert_int_equal(x->lmads[k].stride[d], y->lmads[k].stride[d]);
            }
        }
    }
    for (uint32_t i = 0; i < leap_ninsns(a); i++)
        assert_int_equal(leap_insn_get(a, i)->executions, leap_insn_get(b, i)->executions);
    leap_free(a);
    leap_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(last_write),
        cmocka_unit_test(ten_ninety),
        cmocka_unit_test(cap_cuts_sample),
        cmocka_unit_test(width_classes),
        cmocka_unit_test(no_dependence),
        cmocka_unit_test(modify_passes),
        cmocka_unit_test(strides),
        cmocka_unit_test(summary),
        cmocka_unit_test(batch_as_accesses),
        cmocka_unit_test(batch_repeated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
