/*
 * test_shadowmap.c: paged shadow memory: elements start zeroed, reading an
 * untouched page makes nothing, each granule has its own element across
 * pages and far apart addresses (the page cache's collisions included),
 * and a random sequence of writes agrees with a plain map of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/shadowmap.h"

typedef struct cell {
    uint64_t value;
    uint32_t tag;
} cell;

static void zeroed_and_lazy(void **state)
{
    (void)state;
    shadowmap s;
    shadowmap_init(&s, sizeof(cell), 3, 12);
    assert_null(shadowmap_at(&s, 0x1000 >> 3, 0));     /* reading makes no page */
    assert_int_equal(s.npages, 0);
    cell *c = shadowmap_at(&s, 0x1008 >> 3, 1);
    assert_non_null(c);
    assert_int_equal(c->value, 0);
    assert_int_equal(s.npages, 1);
    c->value = 7;
    assert_ptr_equal(shadowmap_at(&s, 0x1008 >> 3, 0), c);
    assert_int_equal(((cell *)shadowmap_at(&s, 0x1000 >> 3, 0))->value, 0);  /* its neighbour */
    assert_true(shadowmap_bytes(&s) >= 512 * sizeof(cell));
    shadowmap_free(&s);
    assert_int_equal(s.npages, 0);
}

/* Pages SHADOWMAP_CACHE apart share a cache entry: each keeps its own cells. */
static void cache_collisions(void **state)
{
    (void)state;
    shadowmap s;
    shadowmap_init(&s, sizeof(cell), 3, 12);
    uint64_t stride = (uint64_t)SHADOWMAP_CACHE << 9;   /* granules of SHADOWMAP_CACHE pages */
    for (uint64_t k = 0; k < 8; k++)
        ((cell *)shadowmap_at(&s, 5 + k * stride, 1))->value = k + 100;
    ((cell *)shadowmap_at(&s, UINT64_MAX >> 3, 1))->value = 99;   /* the top of memory */
    for (uint64_t k = 0; k < 8; k++)
        assert_int_equal(((cell *)shadowmap_at(&s, 5 + k * stride, 0))->value, k + 100);
    assert_int_equal(((cell *)shadowmap_at(&s, UINT64_MAX >> 3, 0))->value, 99);
    assert_int_equal(s.npages, 9);
    shadowmap_free(&s);
}

/* 100 000 random writes over a few sparse regions, against a sorted log. */
static int by_granule(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static void random_against_log(void **state)
{
    (void)state;
    enum { N = 100000 };
    uint64_t (*log)[2] = malloc(N * sizeof *log);   /* granule, write number */
    assert_non_null(log);
    shadowmap s;
    shadowmap_init(&s, sizeof(cell), 3, 12);
    srand(42);
    for (uint32_t i = 0; i < N; i++) {
        uint64_t region = (uint64_t)(rand() % 4) << 40;
        uint64_t g = (region + (uint64_t)(rand() % 200000)) >> 3;
        cell *c = shadowmap_at(&s, g, 1);
        assert_non_null(c);
        c->value = i + 1;
        log[i][0] = g;
        log[i][1] = i + 1;
    }
    qsort(log, N, sizeof *log, by_granule);
    for (uint32_t i = 0; i < N; i++)
        if (i + 1 == N || log[i + 1][0] != log[i][0])    /* the last write wins */
            assert_int_equal(((cell *)shadowmap_at(&s, log[i][0], 0))->value, log[i][1]);
    free(log);
    shadowmap_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zeroed_and_lazy),
        cmocka_unit_test(cache_collisions),
        cmocka_unit_test(random_against_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
