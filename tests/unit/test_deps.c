/*
 * test_deps.c: the baselines of trace-deps on hand-made access streams:
 * the exact profiler's 10% / 90%, a dependence farther than Connors'
 * window (missed by Connors with its default window, found with a larger
 * one), a read after a read, the first-byte rule with partial overlaps,
 * the paged shadow memory, and the exact stride profile.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "deps/deps.h"
#include "deps/shadow.h"
#include "deps/stride.h"
#include "memrec_trace.h"

static uint64_t conflicts(deps *d, uint32_t store, uint32_t load)
{
    deps_pair *p;
    uint32_t n;
    uint64_t c = 0;
    assert_int_equal(deps_pairs(d, &p, &n), 0);
    for (uint32_t i = 0; i < n; i++)
        if (p[i].store == store && p[i].load == load)
            c = p[i].conflicts;
    free(p);
    return c;
}

static uint32_t npairs(deps *d)
{
    deps_pair *p;
    uint32_t n;
    assert_int_equal(deps_pairs(d, &p, &n), 0);
    free(p);
    return n;
}

static void ten_ninety(void **state)
{
    (void)state;
    for (int method = 0; method < 2; method++) {
        deps *d = deps_new(method, 0);
        assert_non_null(d);
        for (uint64_t i = 0; i < 1000; i++) {
            assert_int_equal(deps_access(d, i % 10 ? 1 : 0, MR_STORE, 4, 0x1000 + 4 * i), 0);
            assert_int_equal(deps_access(d, 2, MR_LOAD, 4, 0x1000 + 4 * i), 0);
        }
        assert_int_equal(conflicts(d, 0, 2), 100);
        assert_int_equal(conflicts(d, 1, 2), 900);
        assert_int_equal(deps_load_executions(d, 2), 1000);
        assert_int_equal(deps_load_executions(d, 0), 0);
        assert_int_equal(npairs(d), 2);
        deps_free(d);
    }
}

/* far[i] stored, 4096 other stores, far[i] loaded. */
static void farther_than_the_window(void **state)
{
    (void)state;
    uint32_t windows[] = { 0, 64, 10000 };
    uint64_t want_connors[] = { 0, 0, 4096 };
    for (int w = 0; w < 3; w++)
        for (int method = 0; method < 2; method++) {
            if (method == DEPS_EXACT && w)
                continue;
            deps *d = deps_new(method, windows[w]);
            for (uint64_t i = 0; i < 4096; i++)
                assert_int_equal(deps_access(d, 0, MR_STORE, 8, 0x10000 + 8 * i), 0);
            for (uint64_t i = 0; i < 4096; i++)
                assert_int_equal(deps_access(d, 1, MR_STORE, 8, 0x90000 + 8 * i), 0);
            for (uint64_t i = 0; i < 4096; i++)
                assert_int_equal(deps_access(d, 2, MR_LOAD, 8, 0x10000 + 8 * i), 0);
            assert_int_equal(conflicts(d, 0, 2),
                             method == DEPS_EXACT ? 4096 : want_connors[w]);
            deps_free(d);
        }
    /* Within the window Connors is exact. */
    deps *d = deps_new(DEPS_CONNORS, 0);
    for (uint64_t i = 0; i < 1000; i++) {
        assert_int_equal(deps_access(d, 0, MR_STORE, 8, 0x10000 + 8 * i), 0);
        for (uint64_t j = 0; j < 30; j++)
            assert_int_equal(deps_access(d, 1, MR_STORE, 8, 0x90000 + 8 * j), 0);
        assert_int_equal(deps_access(d, 2, MR_LOAD, 8, 0x10000 + 8 * i), 0);
    }
    assert_int_equal(conflicts(d, 0, 2), 1000);
    deps_free(d);
}

static void read_after_read(void **state)
{
    (void)state;
    for (int method = 0; method < 2; method++) {
        deps *d = deps_new(method, 0);
        for (uint64_t i = 0; i < 100; i++) {
            assert_int_equal(deps_access(d, 0, MR_LOAD, 8, 0x5000 + 8 * i), 0);
            assert_int_equal(deps_access(d, 1, MR_LOAD, 8, 0x5000 + 8 * i), 0);
        }
        assert_int_equal(npairs(d), 0);
        deps_free(d);
    }
}

/* An 8-byte store then loads of its second half (covered: depends), of
 * the 4 bytes before it (not covered), and straddling its start (first
 * byte not covered: no dependence). A modify reads before it writes. */
static void first_byte_rule(void **state)
{
    (void)state;
    for (int method = 0; method < 2; method++) {
        deps *d = deps_new(method, 0);
        assert_int_equal(deps_access(d, 0, MR_STORE, 8, 0x2008), 0);
        assert_int_equal(deps_access(d, 1, MR_LOAD, 4, 0x200c), 0);
        assert_int_equal(deps_access(d, 2, MR_LOAD, 4, 0x2004), 0);
        assert_int_equal(deps_access(d, 3, MR_LOAD, 8, 0x2004), 0);
        assert_int_equal(deps_access(d, 4, MR_MODIFY, 8, 0x3000), 0);
        assert_int_equal(deps_access(d, 4, MR_MODIFY, 8, 0x3000), 0);
        assert_int_equal(conflicts(d, 0, 1), 1);
        assert_int_equal(conflicts(d, 4, 4), 1);
        assert_int_equal(npairs(d), 2);
        deps_free(d);
    }
}

static void shadow_pages(void **state)
{
    (void)state;
    shadow s;
    shadow_init(&s);
    assert_int_equal(shadow_get(&s, 0x1234), 0);
    assert_int_equal(s.npages, 0);                 /* reads make nothing */
    assert_int_equal(shadow_set(&s, 0x1ffe, 4, 7), 0);   /* across a page */
    assert_int_equal(s.npages, 2);
    assert_int_equal(shadow_get(&s, 0x1ffd), 0);
    for (uint64_t a = 0x1ffe; a < 0x2002; a++)
        assert_int_equal(shadow_get(&s, a), 7);
    assert_int_equal(shadow_get(&s, 0x2002), 0);
    /* Pages far apart (and more than the cache holds): memory follows the
     * pages touched, not the span. */
    for (uint64_t p = 0; p < 1000; p++)
        assert_int_equal(shadow_set(&s, (p << 32) + 8, 1, (uint32_t)p + 1), 0);
    assert_int_equal(s.npages, 1002);
    for (uint64_t p = 1; p < 1000; p++)
        assert_int_equal(shadow_get(&s, (p << 32) + 8), p + 1);
    assert_true(shadow_bytes(&s) < 1002 * (16384 + 2 * 16384) + (1 << 20));
    /* Above 2^48 too; and the top of the radix range. */
    assert_int_equal(shadow_set(&s, 0xffffffffff000010ull, 8, 9), 0);
    assert_int_equal(shadow_set(&s, 0x0000fffffffffff8ull, 8, 10), 0);
    assert_int_equal(shadow_get(&s, 0xffffffffff000014ull), 9);
    assert_int_equal(shadow_get(&s, 0xffffffffff000018ull), 0);
    assert_int_equal(shadow_get(&s, 0x0000ffffffffffffull), 10);
    assert_int_equal(shadow_get(&s, 0x0000fffffffffff7ull), 0);
    assert_int_equal(s.npages, 1004);
    shadow_free(&s);
}

static const stride_info *info_of(const stride_info *s, uint32_t n, uint32_t insn)
{
    for (uint32_t i = 0; i < n; i++)
        if (s[i].insn == insn)
            return &s[i];
    return NULL;
}

static void exact_strides(void **state)
{
    (void)state;
    stride_prof *p = stride_new();
    uint64_t half = 0, late = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        assert_int_equal(stride_access(p, 0, 0, 0, 16 * i), 0);
        assert_int_equal(stride_access(p, 1, 1, 0, half), 0);
        half += i < 500 ? 8 : 24;
        assert_int_equal(stride_access(p, 2, 1, 0, late), 0);
        late += i < 750 ? 8 : 24;
        assert_int_equal(stride_access(p, 3, 2, (i * 7919) % 1000, 8), 0);
    }
    assert_int_equal(stride_access(p, 5, 0, 0, 0), 0);   /* ran once */
    stride_info *s;
    uint32_t n;
    assert_int_equal(stride_results(p, &s, &n), 0);
    assert_int_equal(n, 5);
    const stride_info *x = info_of(s, n, 0);
    assert_true(x->stride == 16 && x->share == 1.0 && x->strongly);
    x = info_of(s, n, 1);
    assert_int_equal(x->stride, 8);
    assert_int_equal(x->hits, 500);
    assert_int_equal(x->steps, 999);
    assert_false(x->strongly);
    x = info_of(s, n, 2);
    assert_int_equal(x->hits, 750);
    assert_true(x->strongly);
    x = info_of(s, n, 3);
    assert_int_equal(x->hits, 0);
    assert_false(x->strongly);
    x = info_of(s, n, 5);
    assert_int_equal(x->steps, 0);
    assert_false(x->strongly);
    free(s);
    stride_free(p);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* An irregular instruction: 60000 steps, most of distinct strides of both
 * signs and every size (the log, its compactions and its radix sort), a
 * few strides repeating in cycles of five (more than the tallies at hand),
 * and two tied winners; and a second instruction whose steps alternate
 * between the two ends of the 64-bit range. Checked against sorting the
 * steps. */
static void many_strides(void **state)
{
    (void)state;
    enum { N = 60001 };
    stride_prof *p = stride_new();
    int64_t *steps = malloc((N - 1) * sizeof *steps);
    assert_non_null(steps);
    uint64_t off = 1ULL << 40, r = 99;
    for (uint64_t i = 0; i < N; i++) {
        assert_int_equal(stride_access(p, 0, 0, 0, off), 0);
        int64_t d;
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        if (i % 7 == 0)
            d = (i / 7) % 2 ? -40 : 24;         /* tied: 4286 each */
        else if (i % 7 == 1)
            d = (int64_t)(i % 5) * 8 - 16;      /* five strides, cycling */
        else {                                  /* |d| >= 4096: no tie broken */
            d = 4096 + (int64_t)((r >> 24) >> (r % 30));
            d = r & 1 ? -d : d;
        }
        if (i + 1 < N)
            steps[i] = d;
        off += (uint64_t)d;
    }
    for (uint64_t i = 0; i < 5000; i++)
        assert_int_equal(stride_access(p, 1, 0, 0, i % 2 ? (uint64_t)INT64_MAX : 1), 0);
    stride_info *s;
    uint32_t n;
    assert_int_equal(stride_results(p, &s, &n), 0);
    qsort(steps, N - 1, sizeof *steps, cmp_i64);
    uint64_t best = 0;
    int64_t best_stride = 0;
    for (size_t i = 0, j; i < N - 1; i = j) {
        for (j = i; j < N - 1 && steps[j] == steps[i]; j++)
            ;
        if (j - i > best) {
            best = j - i;
            best_stride = steps[i];
        }
    }
    const stride_info *x = info_of(s, n, 0);
    assert_int_equal(x->steps, N - 1);
    assert_int_equal(x->hits, best);
    assert_int_equal(x->stride, best_stride);
    assert_int_equal(x->stride, -40);           /* the smaller of the tie */
    assert_true(x->error > 0);                  /* past the table's bound */
    assert_true(x->error <= (N - 1) / (STRIDE_KEPT + 1));
    x = info_of(s, n, 1);
    assert_int_equal(x->hits, 2500);            /* INT64_MAX - 1 up */
    assert_int_equal(x->stride, INT64_MAX - 1);
    assert_int_equal(x->error, 0);
    free(s);
    free(steps);
    stride_free(p);
}

/* The bounded histogram. Instruction 0 has 2 x STRIDE_KEPT distinct
 * strides, the most the table holds exactly: stride 8 * k is taken k + 1
 * times, in a scrambled order, and the answer (stride 8 * 511, 512 steps)
 * is exact. Instruction 1 first makes 100000 steps of 400 strides in
 * turn (250 steps each: the first reduction takes 250 from every count),
 * then takes a stride of 24 every sixth step among more
 * distinct ones for 40000 steps (five strides between: it falls out of the
 * tallies at hand each time): 24 enters late, after reductions, is found, and its
 * count is within the error bound, itself below steps / (STRIDE_KEPT + 1). */
static void bounded_strides(void **state)
{
    (void)state;
    enum { DISTINCT = 2 * STRIDE_KEPT };
    stride_prof *p = stride_new();
    uint64_t off = 1ULL << 40;
    assert_int_equal(stride_access(p, 0, 0, 0, off), 0);
    uint64_t total = 0;
    for (uint64_t round = 0; round < DISTINCT; round++)     /* k + 1 times k */
        for (uint64_t j = 0; j < DISTINCT; j++) {
            uint64_t k = (j * 307 + round) % DISTINCT;      /* scrambled */
            if (round > k)
                continue;
            off += 8 * k;
            total++;
            assert_int_equal(stride_access(p, 0, 0, 0, off), 0);
        }
    uint64_t r = 7, off1 = 1ULL << 40;
    for (uint64_t i = 0; i < 140000; i++) {        /* then mostly distinct */
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t d = 4096 + (i < 100000 ? 8 * (int64_t)(i % 400)
                                       : (int64_t)(r >> 40));
        if (i >= 100000 && i % 6 == 0)         /* 6667 times, never at hand */
            d = 24;
        off1 += (uint64_t)d;
        assert_int_equal(stride_access(p, 1, 0, 0, off1), 0);
    }
    stride_info *s;
    uint32_t n;
    assert_int_equal(stride_results(p, &s, &n), 0);
    const stride_info *x = info_of(s, n, 0);
    assert_int_equal(x->steps, total);
    assert_int_equal(x->stride, 8 * (DISTINCT - 1));
    assert_int_equal(x->hits, DISTINCT);
    assert_int_equal(x->error, 0);
    x = info_of(s, n, 1);
    assert_int_equal(x->stride, 24);
    assert_true(x->error > 0 && x->error <= 139999 / (STRIDE_KEPT + 1));
    assert_true(x->hits <= 6667 && x->hits + x->error >= 6667);
    free(s);
    stride_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ten_ninety),
        cmocka_unit_test(farther_than_the_window),
        cmocka_unit_test(read_after_read),
        cmocka_unit_test(first_byte_rule),
        cmocka_unit_test(shadow_pages),
        cmocka_unit_test(exact_strides),
        cmocka_unit_test(many_strides),
        cmocka_unit_test(bounded_strides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
