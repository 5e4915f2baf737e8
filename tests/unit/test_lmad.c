/*
 * test_lmad.c: the LMAD compressor of LEAP: the paper's offset example,
 * how a single point fixes the stride, the cap and the summary of what is
 * past it (min, max, granularity, count), (object, offset, time)
 * streams of three dimensions, and loop nests folded into outer levels.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "algo/lmad.h"

static void add1(lmad_stream *s, int64_t v)
{
    assert_int_equal(lmad_add(s, &v), 0);
}

static void assert_lmad1(const lmad *l, int64_t start, int64_t stride,
                         uint64_t count)
{
    assert_int_equal(l->start[0], start);
    assert_int_equal(l->stride[0], stride);
    assert_int_equal(l->count, count);
}

/* 0, 8, ..., 80, 4, 8, ..., 36: two LMADs. The paper prints [0,8,10], but
 * 0..80 by 8 is eleven points (its [4,4,9] counts the nine of 4..36). */
static void paper_example(void **state)
{
    (void)state;
    lmad_stream s;
    lmad_stream_init(&s, 1, 0);
    for (int64_t v = 0; v <= 80; v += 8)
        add1(&s, v);
    for (int64_t v = 4; v <= 36; v += 4)
        add1(&s, v);
    assert_int_equal(s.n, 2);
    assert_lmad1(&s.lmads[0], 0, 8, 11);
    assert_lmad1(&s.lmads[1], 4, 4, 9);
    assert_int_equal(s.over.count, 0);
    assert_int_equal(lmad_total(&s), 20);
    assert_int_equal(lmad_captured(&s), 20);
    lmad_stream_free(&s);

    /* Ten points 0..72 give the paper's [0,8,10]. */
    lmad_stream_init(&s, 1, 0);
    for (int64_t v = 0; v < 80; v += 8)
        add1(&s, v);
    assert_int_equal(s.n, 1);
    assert_lmad1(&s.lmads[0], 0, 8, 10);
    lmad_stream_free(&s);
}

/* A lone point takes any next point; a pair only its continuation; a
 * constant stream is stride 0; negative strides work. */
static void stride_rules(void **state)
{
    (void)state;
    lmad_stream s;
    lmad_stream_init(&s, 1, 0);
    int64_t in[] = { 5, 5, 5, 9, 1, -7, -15, 100 };
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        add1(&s, in[i]);
    assert_int_equal(s.n, 3);
    assert_lmad1(&s.lmads[0], 5, 0, 3);
    assert_lmad1(&s.lmads[1], 9, -8, 4);
    assert_lmad1(&s.lmads[2], 100, 0, 1);
    assert_int_equal(lmad_at(&s.lmads[1], 0, 3), -15);
    lmad_stream_free(&s);
}

/* With a cap of 3, a stream of 5 runs keeps 3 LMADs and summarises the
 * rest: min, max, granularity (gcd of distances from the first summarised
 * point) and count, counted as not captured. */
static void cap_and_summary(void **state)
{
    (void)state;
    lmad_stream s;
    lmad_stream_init(&s, 1, 3);
    /* runs: 0,1,2 | 10,20 | 7 ... */
    int64_t in[] = { 0, 1, 2, 10, 20, 7, 7, 3,
                     /* past the cap: */ 40, 100, 16, 40 };
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        add1(&s, in[i]);
    assert_int_equal(s.n, 3);
    assert_lmad1(&s.lmads[0], 0, 1, 3);
    assert_lmad1(&s.lmads[1], 10, 10, 2);
    assert_lmad1(&s.lmads[2], 7, 0, 2);
    /* 3 started a fourth LMAD: over the cap, so it and all after it are
     * summarised, even 40 that would have continued nothing anyway. */
    assert_int_equal(s.over.count, 5);
    assert_int_equal(s.over.min[0], 3);
    assert_int_equal(s.over.max[0], 100);
    assert_int_equal(s.over.gran[0], 1);     /* gcd(37, 97, 13, 37) */
    assert_int_equal(lmad_captured(&s), 7);
    assert_int_equal(lmad_total(&s), 12);
    lmad_stream_free(&s);

    /* Granularity of an 8-aligned tail. */
    lmad_stream_init(&s, 1, 1);
    add1(&s, 0);
    add1(&s, 1);
    int64_t tail[] = { 64, 8, 40, 64, 16 };
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        add1(&s, tail[i]);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.over.count, 5);
    assert_int_equal(s.over.gran[0], 8);
    assert_int_equal(s.over.first[0], 64);
    assert_int_equal(s.over.min[0], 8);
    assert_int_equal(s.over.max[0], 64);
    lmad_stream_free(&s);

    /* The default cap is the paper's 30. */
    lmad_stream_init(&s, 1, 0);
    for (int64_t i = 0; i < 80; i++)
        add1(&s, i * i);            /* never three in a line: pairs */
    assert_int_equal(s.max, 30);
    assert_int_equal(s.n, 30);
    assert_int_equal(lmad_captured(&s), 60);
    assert_int_equal(s.over.count, 20);
    assert_int_equal(s.over.min[0], 60 * 60);
    assert_int_equal(s.over.max[0], 79 * 79);
    lmad_stream_free(&s);
}

/* (object, offset, time): a row walk, then the next object; the offset
 * alone would continue, the object does not. A point must continue every
 * dimension. */
static void three_dimensions(void **state)
{
    (void)state;
    lmad_stream s;
    lmad_stream_init(&s, 3, 0);
    int64_t t = 0;
    for (int64_t obj = 0; obj < 2; obj++)
        for (int64_t off = 0; off < 64; off += 8) {
            int64_t p[3] = { obj, off, t };
            t += 3;
            assert_int_equal(lmad_add(&s, p), 0);
        }
    assert_int_equal(s.n, 2);
    for (int i = 0; i < 2; i++) {
        const lmad *l = &s.lmads[i];
        assert_int_equal(l->count, 8);
        assert_int_equal(l->start[0], i);
        assert_int_equal(l->stride[0], 0);
        assert_int_equal(l->start[1], 0);
        assert_int_equal(l->stride[1], 8);
        assert_int_equal(l->start[2], i * 24);
        assert_int_equal(l->stride[2], 3);
    }
    /* A point equal in object and offset but late in time breaks it; the
     * second row, now finished, repeats the first one object and 24 time
     * units further: they fold into one LMAD with an outer level. */
    int64_t late[3] = { 1, 64, t + 10 };
    assert_int_equal(lmad_add(&s, late), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.lmads[0].nouter, 1);
    assert_int_equal(s.lmads[0].outer[0].count, 2);
    assert_int_equal(s.lmads[0].outer[0].stride[0], 1);
    assert_int_equal(s.lmads[0].outer[0].stride[1], 0);
    assert_int_equal(s.lmads[0].outer[0].stride[2], 24);
    assert_int_equal(lmad_points(&s.lmads[0]), 16);
    assert_int_equal(s.lmads[1].count, 1);
    assert_int_equal(s.lmads[1].start[2], t + 10);
    /* Summaries are per dimension. */
    lmad_stream_free(&s);
    lmad_stream_init(&s, 3, 1);
    int64_t pts[][3] = { { 0, 0, 0 }, { 0, 4, 1 }, { 5, 12, 7 },
                         { 2, 0, 9 }, { 5, 24, 13 } };
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(lmad_add(&s, pts[i]), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.lmads[0].count, 2);
    assert_int_equal(s.over.count, 3);
    assert_int_equal(s.over.min[0], 2);
    assert_int_equal(s.over.max[0], 5);
    assert_int_equal(s.over.gran[0], 3);
    assert_int_equal(s.over.min[1], 0);
    assert_int_equal(s.over.max[1], 24);
    assert_int_equal(s.over.gran[1], 12);
    assert_int_equal(s.over.gran[2], 2);
    lmad_stream_free(&s);
}

/* The point of a 4-deep nest: sweep w, plane i, row j, column k of a
 * 4-byte grid with a border (rows of 8 columns, 6 used; planes of 6 rows,
 * 5 used), 10 accesses between sweeps. */
static void nest_point(int64_t w, int64_t i, int64_t j, int64_t k, int64_t *p)
{
    p[0] = 7;                                   /* one object */
    p[1] = 4 * ((i * 6 + j) * 8 + k);
    p[2] = w * (4 * 5 * 6 + 10) + (i * 5 + j) * 6 + k;
}

/* A loop nest is one LMAD: each finished row folds into the rows before
 * it, each finished plane into the planes, each sweep into the sweeps;
 * every point comes back from its index, and the time queries agree with
 * counting. */
static void loop_nest(void **state)
{
    (void)state;
    lmad_stream s;
    lmad_stream_init(&s, 3, 0);
    int64_t p[3];
    for (int64_t w = 0; w < 3; w++)
        for (int64_t i = 0; i < 4; i++)
            for (int64_t j = 0; j < 5; j++)
                for (int64_t k = 0; k < 6; k++) {
                    nest_point(w, i, j, k, p);
                    assert_int_equal(lmad_add(&s, p), 0);
                }
    /* Until the stream ends, the last sweep's last plane and last row
     * stand alone (the planes before it folded into a 2-level LMAD, then
     * into the sweeps before when it was done). */
    assert_int_equal(s.n, 4);
    assert_int_equal(s.lmads[1].nouter, 2);
    assert_int_equal(s.lmads[2].nouter, 1);
    assert_int_equal(s.lmads[3].nouter, 0);
    lmad_finish(&s);
    assert_int_equal(s.n, 1);
    const lmad *l = &s.lmads[0];
    assert_int_equal(l->count, 6);
    assert_int_equal(l->nouter, 3);
    assert_int_equal(l->outer[0].count, 5);
    assert_int_equal(l->outer[0].stride[1], 32);
    assert_int_equal(l->outer[0].stride[2], 6);
    assert_int_equal(l->outer[1].count, 4);
    assert_int_equal(l->outer[1].stride[1], 192);
    assert_int_equal(l->outer[1].stride[2], 30);
    assert_int_equal(l->outer[2].count, 3);
    assert_int_equal(l->outer[2].stride[1], 0);
    assert_int_equal(l->outer[2].stride[2], 130);
    assert_int_equal(lmad_points(l), 360);
    assert_int_equal(lmad_captured(&s), 360);
    uint64_t idx = 0;
    for (int64_t w = 0; w < 3; w++)
        for (int64_t i = 0; i < 4; i++)
            for (int64_t j = 0; j < 5; j++)
                for (int64_t k = 0; k < 6; k++, idx++) {
                    int64_t q[3];
                    nest_point(w, i, j, k, p);
                    lmad_point(l, 3, idx, q);
                    assert_int_equal(q[1], p[1]);
                    assert_int_equal(q[2], p[2]);
                    /* idx points have a time below this one's */
                    assert_int_equal(lmad_points_before(l, 2, p[2]), idx);
                    assert_int_equal(lmad_points_before(l, 2, p[2] + 1), idx + 1);
                }
    assert_int_equal(lmad_points_before(l, 2, INT64_MAX), 360);
    assert_int_equal(lmad_points_before(l, 2, 0), 0);
    /* Between sweeps, in the gap of 10: the whole first sweep. */
    assert_int_equal(lmad_points_before(l, 2, 125), 120);
    int64_t lo, hi;
    lmad_extent(l, 1, l->nouter + 1, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 4 * ((3 * 6 + 4) * 8 + 5));
    lmad_extent(l, 1, 1, &lo, &hi);             /* one row */
    assert_int_equal(hi, 20);
    assert_int_equal(lmad_last(l, 2), 2 * 130 + 119);
    lmad_stream_free(&s);

    /* A fifth loop has no level left: two 4-level LMADs. */
    lmad_stream_init(&s, 3, 0);
    int64_t t = 0;
    for (int v = 0; v < 2; v++)
        for (int w = 0; w < 2; w++)
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                    for (int k = 0; k < 3; k++) {
                        int64_t q[3] = { 0, 8 * k + 100 * j + 1000 * i + 10000 * v, t++ };
                        assert_int_equal(lmad_add(&s, q), 0);
                    }
                    t += 1 + j;     /* gaps repeat with the rows */
                }
    lmad_finish(&s);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.lmads[0].nouter, 3);
    assert_int_equal(s.lmads[1].nouter, 3);
    assert_int_equal(lmad_points(&s.lmads[0]) + lmad_points(&s.lmads[1]), 48);
    lmad_stream_free(&s);
}

/* Runs give exactly what their points one by one give: random streams of
 * runs (steps and lengths from a small set, so that runs continue each
 * other often), with small caps so that summaries are made too. */
static void runs_as_points(void **state)
{
    (void)state;
    srand(11);
    for (int round = 0; round < 300; round++) {
        lmad_stream a, b;
        uint32_t cap = 1 + (uint32_t)(rand() % 8);
        lmad_stream_init(&a, 3, cap);
        lmad_stream_init(&b, 3, cap);
        int64_t p[3] = { 0, 0, 0 };
        for (int r = 0; r < 12; r++) {
            int64_t step[3] = { rand() % 2, (rand() % 3 - 1) * 8, 1 + rand() % 2 };
            uint64_t n = (uint64_t)(rand() % 6);
            if (rand() % 3 == 0) {      /* jump somewhere new */
                p[0] += rand() % 3;
                p[1] += (rand() % 5 - 2) * 4;
            }
            assert_int_equal(lmad_add_run(&a, p, step, n), 0);
            for (uint64_t k = 0; k < n; k++) {
                int64_t q[3] = { p[0] + (int64_t)k * step[0], p[1] + (int64_t)k * step[1],
                                 p[2] + (int64_t)k * step[2] };
                assert_int_equal(lmad_add(&b, q), 0);
            }
            for (int d = 0; d < 3; d++)
                p[d] += (int64_t)n * step[d];
            p[2] += 1 + rand() % 3;
        }
        assert_int_equal(a.n, b.n);
        for (uint32_t i = 0; i < a.n; i++) {
            assert_int_equal(a.lmads[i].count, b.lmads[i].count);
            assert_int_equal(a.lmads[i].nouter, b.lmads[i].nouter);
            for (uint32_t j = 0; j < a.lmads[i].nouter; j++) {
                assert_int_equal(a.lmads[i].outer[j].count, b.lmads[i].outer[j].count);
                for (int d = 0; d < 3; d++)
                    assert_int_equal(a.lmads[i].outer[j].stride[d],
                                     b.lmads[i].outer[j].stride[d]);
            }
            for (int d = 0; d < 3; d++) {
                assert_int_equal(a.lmads[i].start[d], b.lmads[i].start[d]);
                if (a.lmads[i].count > 1)
                    assert_int_equal(a.lmads[i].stride[d], b.lmads[i].stride[d]);
            }
        }
        assert_int_equal(a.over.count, b.over.count);
        for (int d = 0; a.over.count && d < 3; d++) {
            assert_int_equal(a.over.min[d], b.over.min[d]);
            assert_int_equal(a.over.max[d], b.over.max[d]);
            assert_int_equal(a.over.gran[d], b.over.gran[d]);
            assert_int_equal(a.over.first[d], b.over.first[d]);
        }
        lmad_stream_free(&a);
        lmad_stream_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paper_example),
        cmocka_unit_test(stride_rules),
        cmocka_unit_test(cap_and_summary),
        cmocka_unit_test(three_dimensions),
        cmocka_unit_test(loop_nest),
        cmocka_unit_test(runs_as_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
