/*
 * test_stackdist.c: LRU stack distances (algo/stackdist.h): a hand-made
 * stream, agreement with a naive LRU stack on a random stream long enough
 * to compact the time axis many times, the miss-ratio curve against a
 * fully associative LRU cache simulated directly, SHARDS' error against
 * exact on a synthetic stream, and bad arguments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "algo/cache.h"
#include "algo/stackdist.h"

#define C SD_COLD

/* a b c a b b d a (64-byte lines): distances C C C 2 2 0 C 2. */
static void hand_made_stream(void **state)
{
    (void)state;
    stackdist *s = sd_new(64, 1);
    assert_non_null(s);
    const uint64_t line[] = { 0, 1, 2, 0, 1, 1, 3, 0 };
    const uint64_t want[] = { C, C, C, 2, 2, 0, C, 2 };
    for (int i = 0; i < 8; i++)
        assert_int_equal(sd_access(s, line[i] * 64 + 8, 4), want[i]);
    assert_int_equal(sd_distinct(s), 4);
    /* misses at 1 line: 4 cold + 3 with d >= 1 = 7 of 8 */
    assert_true(fabs(sd_miss_ratio(s, 1) - 7.0 / 8) < 1e-12);
    assert_true(fabs(sd_miss_ratio(s, 2) - 7.0 / 8) < 1e-12);
    assert_true(fabs(sd_miss_ratio(s, 3) - 4.0 / 8) < 1e-12);
    assert_true(fabs(sd_miss_ratio(s, 1000) - 4.0 / 8) < 1e-12);
    /* a straddling access (60..67) touches lines 0 and 1: line 0 was the
     * last line (0), line 1 has {d, a} since (2): the larger, 2 */
    assert_int_equal(sd_access(s, 60, 8), 2);
    assert_int_equal(sd_access(s, 5 * 64, 8), C);
    sd_free(s);
}

/* A naive LRU stack: the position of a line is its distance. */
typedef struct naive { uint64_t *stack; size_t n; } naive;

static uint64_t naive_access(naive *v, uint64_t line)
{
    size_t i;
    for (i = 0; i < v->n && v->stack[i] != line; i++)
        ;
    uint64_t d = i < v->n ? i : C;
    if (i == v->n)
        v->n++;
    memmove(v->stack + 1, v->stack, i * sizeof *v->stack);
    v->stack[0] = line;
    return d;
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* 200k accesses over 5000 lines with a skewed reuse: the axis (4096 at
 * first) is compacted many times; every distance must match. */
static void agrees_with_naive_stack(void **state)
{
    (void)state;
    stackdist *s = sd_new(64, 1);
    naive v = { calloc(6000, sizeof(uint64_t)), 0 };
    assert_non_null(s);
    assert_non_null(v.stack);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = rnd(&x);
        uint64_t line = (r & 3) ? r % 64 : (r >> 8) % 5000;   /* hot + cold */
        uint64_t want = naive_access(&v, line);
        uint64_t got = sd_access(s, line * 64, 8);
        if (got != want)
            fail_msg("access %d line %llu: %llu, want %llu", i,
                     (unsigned long long)line, (unsigned long long)got,
                     (unsigned long long)want);
    }
    assert_false(sd_failed(s));
    free(v.stack);
    sd_free(s);
}

/* The curve at C lines equals a fully associative LRU cache of C lines
 * (one set of C ways) fed the same stream. */
static void curve_matches_fully_associative_cache(void **state)
{
    (void)state;
    const uint32_t sizes[] = { 1, 2, 8, 64, 256 };
    stackdist *s = sd_new(64, 1);
    assert_non_null(s);
    cache_sim *c[5];
    for (int k = 0; k < 5; k++) {
        cache_config cfg = { .nlevels = 1, .memory_latency = 1 };
        cfg.level[0] = (cache_level_config){ .name = "FA", .size = sizes[k] * 64u,
                                             .assoc = sizes[k], .line = 64 };
        assert_non_null(c[k] = cache_new(&cfg));
    }
    uint64_t x = 1234567;
    for (int i = 0; i < 50000; i++) {
        uint64_t r = rnd(&x), addr = ((r & 1) ? r % 40 : (r >> 4) % 700) * 64;
        sd_access(s, addr, 4);
        for (int k = 0; k < 5; k++)
            cache_access(c[k], addr, 4, CACHE_READ);
    }
    for (int k = 0; k < 5; k++) {
        double want = (double)cache_stats(c[k], 0)->misses[CACHE_READ] / 50000;
        assert_true(fabs(sd_miss_ratio(s, sizes[k]) - want) < 1e-12);
        cache_free(c[k]);
    }
    sd_free(s);
}

/* SHARDS at 10% on a stream of loops over arrays of several sizes and
 * random accesses: mean absolute error of the curve over powers of two
 * below 0.01, and the sample is about a tenth of the accesses. */
static void shards_error_is_small(void **state)
{
    (void)state;
    stackdist *exact = sd_new(64, 1), *sampled = sd_new(64, 0.1);
    assert_non_null(exact);
    assert_non_null(sampled);
    uint64_t x = 42, n = 0;
    for (int round = 0; round < 30; round++) {
        uint64_t len = 256u << (round % 6);   /* 256 .. 8192 lines */
        for (uint64_t i = 0; i < len; i++, n++) {
            uint64_t addr = (round % 3 == 2) ? (rnd(&x) % 20000) * 64
                                             : (1u << 24) * (round % 6) + i * 64;
            sd_access(exact, addr, 8);
            sd_access(sampled, addr, 8);
        }
    }
    double err = 0;
    int points = 0;
    for (uint64_t lines = 16; lines <= 32768; lines *= 2, points++)
        err += fabs(sd_miss_ratio(exact, lines) - sd_miss_ratio(sampled, lines));
    err /= points;
    if (err >= 0.01)
        fail_msg("mean absolute error %.4f", err);
    double share = (double)sd_sampled(sampled) / (double)n;
    assert_true(share > 0.07 && share < 0.13);
    sd_free(exact);
    sd_free(sampled);
}

static void bad_arguments(void **state)
{
    (void)state;
    assert_null(sd_new(48, 1));
    assert_null(sd_new(0, 1));
    assert_null(sd_new(64, 0));
    assert_null(sd_new(64, 1.5));
    assert_int_equal(sd_bucket(0), 0);
    assert_int_equal(sd_bucket(1), 1);
    assert_int_equal(sd_bucket(2), 2);
    assert_int_equal(sd_bucket(3), 2);
    assert_int_equal(sd_bucket(4), 3);
    assert_int_equal(sd_bucket(SD_COLD), SD_BUCKET_COLD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_made_stream),
        cmocka_unit_test(agrees_with_naive_stack),
        cmocka_unit_test(curve_matches_fully_associative_cache),
        cmocka_unit_test(shards_error_is_small),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
