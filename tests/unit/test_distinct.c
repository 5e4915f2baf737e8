/*
 * test_distinct.c: the distinct counter (base/distinct.h): a zeroed struct
 * is an empty set; below DISTINCT_EXACT the count is exact whatever the
 * order and the duplicates; the first member at or past it folds the
 * bitmap into the HyperLogLog sketch without losing the members so far;
 * the sketch's estimate stays within 5% of the truth, about three of its
 * standard errors (1.04 / sqrt(4096) = 1.6%), from a thousand members to
 * millions, and duplicates never move it. Bitmaps past the free 4 KiB draw
 * on the process-wide budget: a set whose growth the budget cannot pay
 * becomes a sketch (still within 5% of the exact answer), small sets stay
 * exact whatever the budget, and freeing a set pays its bytes back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/distinct.h"

/* The bound on the sketch's relative error this test holds it to. */
#define MAX_ERROR 0.05

/* A deterministic PRNG (xorshift64*) so failures reproduce. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void assert_near(uint64_t estimate, uint64_t truth)
{
    double err = ((double)estimate - (double)truth) / (double)truth;
    if (err > MAX_ERROR || err < -MAX_ERROR)
        fail_msg("estimate %llu of %llu members: %.2f%% off",
                 (unsigned long long)estimate, (unsigned long long)truth,
                 100 * err);
}

static void test_zeroed_is_empty(void **state)
{
    (void)state;
    distinct d = {0};
    assert_int_equal(distinct_count(&d), 0);
    assert_true(distinct_exact(&d));
    distinct_free(&d);          /* nothing to free, and still empty */
    assert_int_equal(distinct_count(&d), 0);
    assert_int_equal(distinct_add(&d, 5), 0);
    assert_int_equal(distinct_count(&d), 1);
    distinct_free(&d);
    assert_int_equal(distinct_count(&d), 0);
    assert_true(distinct_exact(&d));
}

/* Exact below DISTINCT_EXACT: random members (the bitmap grows under
 * them, duplicates among them), the range's ends included, against a
 * plain array of flags. */
static void test_exact(void **state)
{
    (void)state;
    distinct d = {0};
    unsigned char *seen = calloc(DISTINCT_EXACT, 1);
    assert_non_null(seen);
    uint64_t truth = 0;
    for (int i = 0; i < 600000; i++) {
        uint64_t m = i == 0 ? DISTINCT_EXACT - 1 : i == 1 ? 0 : rnd() % DISTINCT_EXACT;
        truth += !seen[m];
        seen[m] = 1;
        assert_int_equal(distinct_add(&d, m), 0);
    }
    assert_true(truth < 600000);            /* there were duplicates */
    assert_true(distinct_exact(&d));
    assert_int_equal(distinct_count(&d), truth);
    free(seen);
    distinct_free(&d);
    /* growing from a large first member down */
    assert_int_equal(distinct_add(&d, 1000000), 0);
    assert_int_equal(distinct_add(&d, 1), 0);
    assert_int_equal(distinct_add(&d, 64), 0);
    assert_int_equal(distinct_add(&d, 1000000), 0);
    assert_int_equal(distinct_count(&d), 3);
    assert_true(distinct_exact(&d));
    distinct_free(&d);
}

/* The first member past the exact range folds the members so far into
 * the sketch: the estimate counts them, and adding them again after the
 * fold changes nothing. */
static void test_fold(void **state)
{
    (void)state;
    distinct d = {0};
    const uint64_t n = 300000;
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(distinct_add(&d, i * 3), 0);    /* all below 2^20 */
    assert_true(distinct_exact(&d));
    assert_int_equal(distinct_count(&d), n);
    assert_int_equal(distinct_add(&d, DISTINCT_EXACT), 0);
    assert_false(distinct_exact(&d));
    uint64_t folded = distinct_count(&d);
    assert_near(folded, n + 1);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(distinct_add(&d, i * 3), 0);
    assert_int_equal(distinct_add(&d, DISTINCT_EXACT), 0);
    assert_int_equal(distinct_count(&d), folded);
    /* new members still count */
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(distinct_add(&d, DISTINCT_EXACT + 1 + i), 0);
    assert_near(distinct_count(&d), 2 * n + 1);
    distinct_free(&d);
    assert_true(distinct_exact(&d));
    assert_int_equal(distinct_count(&d), 0);
}

/* The sketch alone, at several cardinalities: members strided past the
 * exact range, and random 64-bit members (the top of the range included). */
static void test_estimate(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1000, 10000, 100000, 1000000, 4000000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        distinct strided = {0}, random = {0};
        for (uint64_t i = 0; i < sizes[k]; i++) {
            assert_int_equal(distinct_add(&strided, DISTINCT_EXACT + i * 24), 0);
            assert_int_equal(distinct_add(&random, rnd() | DISTINCT_EXACT), 0);
        }
        assert_false(distinct_exact(&strided));
        assert_near(distinct_count(&strided), sizes[k]);
        assert_near(distinct_count(&random), sizes[k]);
        /* duplicates do not move the estimate */
        uint64_t before = distinct_count(&strided);
        for (uint64_t i = 0; i < sizes[k]; i += 3)
            assert_int_equal(distinct_add(&strided, DISTINCT_EXACT + i * 24), 0);
        assert_int_equal(distinct_count(&strided), before);
        distinct_free(&strided);
        distinct_free(&random);
    }
    distinct d = {0};
    assert_int_equal(distinct_add(&d, UINT64_MAX), 0);
    assert_int_equal(distinct_add(&d, UINT64_MAX - 1), 0);
    assert_int_equal(distinct_count(&d), 2);
    distinct_free(&d);
}

/* The budget: with room for one full bitmap (2^20 bits = 128 KiB, 124 KiB
 * past the free part), the first set grown to it stays exact, the second
 * becomes a sketch on the growth the budget cannot pay, a third that stays
 * under 2^15 members (4 KiB) is exact with no budget left; freeing the
 * first pays back, and a fourth set then grows exact again. */
static void test_budget(void **state)
{
    (void)state;
    const uint64_t full = DISTINCT_EXACT / 8 - DISTINCT_FREE_BYTES;
    distinct_set_budget(full);
    assert_int_equal(distinct_budget_left(), full);
    distinct a = {0}, b = {0}, c = {0}, d = {0};
    const uint64_t n = 200000;
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(distinct_add(&a, (i * 5) % DISTINCT_EXACT), 0);
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(distinct_add(&b, (i * 5) % DISTINCT_EXACT), 0);
        assert_int_equal(distinct_add(&c, i % (8 * DISTINCT_FREE_BYTES)), 0);
    }
    assert_true(distinct_exact(&a));
    assert_int_equal(distinct_count(&a), n);
    assert_int_equal(distinct_budget_left(), 0);
    assert_false(distinct_exact(&b));
    assert_near(distinct_count(&b), n);
    assert_true(distinct_exact(&c));
    assert_int_equal(distinct_count(&c), 8 * DISTINCT_FREE_BYTES);
    distinct_free(&a);
    assert_int_equal(distinct_budget_left(), full);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(distinct_add(&d, DISTINCT_EXACT - 1 - i), 0);
    assert_true(distinct_exact(&d));
    assert_int_equal(distinct_count(&d), n);
    distinct_free(&b);
    distinct_free(&c);
    distinct_free(&d);
    assert_int_equal(distinct_budget_left(), full);
    distinct_set_budget(DISTINCT_BUDGET);
}

/* Thousands of sets over one range, the case that motivated the budget:
 * with the default budget, every set's estimate is within 5% of the exact
 * answer, and the bitmaps never exceed the budget. */
static void test_many_sets(void **state)
{
    (void)state;
    enum { SETS = 3000, EACH = 2000 };
    distinct *sets = calloc(SETS, sizeof *sets);
    assert_non_null(sets);
    for (uint64_t k = 0; k < SETS; k++)
        for (uint64_t i = 0; i < EACH; i++)    /* spread over 1 MiB, distinct */
            assert_int_equal(distinct_add(&sets[k], (k + i * 523) % DISTINCT_EXACT), 0);
    uint64_t exact = 0;
    for (uint64_t k = 0; k < SETS; k++) {
        exact += distinct_exact(&sets[k]);
        if (distinct_exact(&sets[k]))
            assert_int_equal(distinct_count(&sets[k]), EACH);
        else
            assert_near(distinct_count(&sets[k]), EACH);
    }
    assert_true(exact > 0 && exact < SETS);     /* both kinds were made */
    for (uint64_t k = 0; k < SETS; k++)
        distinct_free(&sets[k]);
    assert_int_equal(distinct_budget_left(), DISTINCT_BUDGET);
    free(sets);
}

/* A set whose first member is large starts sparse: exact, duplicates
 * included, up to DISTINCT_SPARSE_MAX members in 4 KiB, the budget
 * untouched; past it a bitmap (exact) while the budget pays, else the
 * sketch (within 5%). */
static void test_sparse(void **state)
{
    (void)state;
    distinct d = {0};
    for (int pass = 0; pass < 2; pass++)       /* the second: all duplicates */
        for (uint64_t i = 0; i < DISTINCT_SPARSE_MAX; i++)
            assert_int_equal(distinct_add(&d, DISTINCT_EXACT - 1 - i * 37), 0);
    assert_true(distinct_exact(&d));
    assert_int_equal(distinct_count(&d), DISTINCT_SPARSE_MAX);
    assert_non_null(d.sp);
    assert_null(d.w);
    assert_true(d.spcap * sizeof *d.sp <= 4096);
    assert_int_equal(distinct_budget_left(), DISTINCT_BUDGET);
    /* one more: a bitmap, every member kept */
    assert_int_equal(distinct_add(&d, 40000), 0);
    assert_int_equal(distinct_add(&d, 40000), 0);
    assert_null(d.sp);
    assert_non_null(d.w);
    assert_true(distinct_exact(&d));
    assert_int_equal(distinct_count(&d), DISTINCT_SPARSE_MAX + 1);
    distinct_free(&d);
    /* no budget: the sketch, still counting the sparse members */
    distinct_set_budget(0);
    for (uint64_t i = 0; i < 5000; i++)
        assert_int_equal(distinct_add(&d, 500000 + i * 97), 0);
    assert_false(distinct_exact(&d));
    assert_near(distinct_count(&d), 5000);
    distinct_free(&d);
    distinct_set_budget(DISTINCT_BUDGET);
    /* small members first: a bitmap as before, never sparse */
    assert_int_equal(distinct_add(&d, 3), 0);
    assert_int_equal(distinct_add(&d, 900000), 0);
    assert_null(d.sp);
    assert_int_equal(distinct_count(&d), 2);
    distinct_free(&d);
    assert_int_equal(distinct_budget_left(), DISTINCT_BUDGET);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zeroed_is_empty),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_fold),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_many_sets),
        cmocka_unit_test(test_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
