/*
 * test_leap.c: LEAP from hand-made access streams: the closed-form last
 * writer of a store LMAD, dependence frequencies from LMADs (a load fed by
 * two stores 10% / 90% of the time, with and without the cap cutting the
 * sample, a read after a read, a store the load's object never sees),
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
    assert_int_equal(leap_last_write(&s, 8, 3, 16, 100), 2);
    assert_int_equal(leap_last_write(&s, 8, 3, 20, 100), 2);  /* inside */
    assert_int_equal(leap_last_write(&s, 4, 3, 20, 100), -1); /* a 4-byte store misses 20 */
    assert_int_equal(leap_last_write(&s, 8, 4, 16, 100), -1); /* other object */
    assert_int_equal(leap_last_write(&s, 8, 3, 16, 16), -1);  /* written at 16: not before */
    assert_int_equal(leap_last_write(&s, 8, 3, 16, 17), 2);
    assert_int_equal(leap_last_write(&s, 8, 3, 80, 1000), -1); /* past the count */
    assert_int_equal(leap_last_write(&s, 8, 3, -8, 1000), -1);
    /* One location written again and again: the last one before t. */
    lmad same = make(0, 24, 5, 0, 0, 4, 100);
    assert_int_equal(leap_last_write(&same, 4, 0, 24, 50), 11);   /* 5 + 44 = 49 */
    assert_int_equal(leap_last_write(&same, 4, 0, 24, 49), 10);
    assert_int_equal(leap_last_write(&same, 4, 0, 24, 10000), 99);
    assert_int_equal(leap_last_write(&same, 4, 0, 28, 10000), -1);
    /* Object-strided (a field of consecutive objects), downward offsets. */
    lmad fld = make(10, 8, 0, 1, 0, 2, 5);
    assert_int_equal(leap_last_write(&fld, 8, 13, 8, 100), 3);
    assert_int_equal(leap_last_write(&fld, 8, 13, 8, 6), -1);
    lmad down = make(0, 64, 0, 0, -8, 1, 8);
    assert_int_equal(leap_last_write(&down, 8, 0, 40, 100), 3);
    assert_int_equal(leap_last_write(&down, 8, 0, 12, 100), 7);  /* 64 - 56 = 8 covers 12 */
    assert_int_equal(leap_last_write(&down, 8, 0, 4, 100), -1);
    /* A single point. */
    lmad one = make(2, 4, 7, 0, 0, 0, 1);
    assert_int_equal(leap_last_write(&one, 4, 2, 4, 8), 0);
    assert_int_equal(leap_last_write(&one, 4, 2, 4, 7), -1);
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
    assert_int_equal(leap_mdf_compute(l, &m), 0);
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

    /* The paper's cap: B needs an LMAD per nine elements, so its stream
     * goes past 30 LMADs at iteration 301; the load's sample stops there
     * (31 A, 270 B), still 10% / 90% within 0.5%. */
    l = two_stores(30, 1000);
    assert_int_equal(leap_mdf_compute(l, &m), 0);
    assert_int_equal(m.sampled[LOAD], 301);
    assert_int_equal(find_dep(&m, STORE_A, LOAD)->conflicts, 31);
    assert_int_equal(find_dep(&m, STORE_B, LOAD)->conflicts, 270);
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
    assert_int_equal(leap_mdf_compute(l, &m), 0);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.sampled[0], 500);
    assert_int_equal(m.sampled[1], 500);
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
    assert_int_equal(leap_mdf_compute(l, &m), 0);
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
        cmocka_unit_test(no_dependence),
        cmocka_unit_test(modify_passes),
        cmocka_unit_test(strides),
        cmocka_unit_test(summary),
        cmocka_unit_test(batch_as_accesses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
