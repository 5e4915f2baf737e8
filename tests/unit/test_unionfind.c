/*
 * test_unionfind.c: disjoint sets over growing ids: singletons, joins,
 * sizes, the merge callback (told the surviving and the absorbed root, as
 * RDS instances merge their profiles), and random unions against a naive
 * labelling.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "algo/unionfind.h"

/* Per-root data for the callback: a sum that must follow the unions. */
typedef struct profile {
    uint64_t sum[256];
    int calls;
} profile;

static void merge_sum(void *ctx, uint32_t into, uint32_t from)
{
    profile *p = ctx;
    p->sum[into] += p->sum[from];
    p->sum[from] = 0;
    p->calls++;
}

static void basics(void **state)
{
    (void)state;
    profile p = { .calls = 0 };
    unionfind u;
    uf_init(&u, merge_sum, &p);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(uf_add(&u), i);
        p.sum[i] = i + 1;
    }
    assert_int_equal(u.sets, 6);
    assert_false(uf_same(&u, 0, 1));
    uint32_t r = uf_union(&u, 0, 1);
    assert_true(r == 0 || r == 1);
    assert_true(uf_same(&u, 0, 1));
    assert_int_equal(uf_set_size(&u, 1), 2);
    assert_int_equal(p.sum[uf_find(&u, 0)], 3);
    /* The larger set's root survives. */
    r = uf_union(&u, 2, 0);
    assert_int_equal(r, uf_find(&u, 1));
    assert_int_equal(p.sum[r], 6);
    /* A union within a set calls nothing. */
    int calls = p.calls;
    assert_int_equal(uf_union(&u, 1, 2), r);
    assert_int_equal(p.calls, calls);
    assert_int_equal(u.sets, 4);
    /* Growing keeps the sets. */
    assert_int_equal(uf_reserve(&u, 100), 0);
    assert_int_equal(u.n, 100);
    assert_int_equal(u.sets, 98);
    assert_true(uf_same(&u, 0, 2));
    assert_false(uf_same(&u, 0, 99));
    assert_int_equal(uf_set_size(&u, 99), 1);
    uf_free(&u);
}

/* Random unions over 256 ids; a naive label array (relabel on every
 * union) is the truth for membership, sizes and the merged sums. */
static void random_against_naive(void **state)
{
    (void)state;
    enum { N = 256 };
    srand(7);
    for (int round = 0; round < 20; round++) {
        profile p = { .calls = 0 };
        uint32_t label[N];
        unionfind u;
        uf_init(&u, merge_sum, &p);
        assert_int_equal(uf_reserve(&u, N), 0);
        for (uint32_t i = 0; i < N; i++) {
            label[i] = i;
            p.sum[i] = i;
        }
        int joins = 0;
        for (int step = 0; step < 300; step++) {
            uint32_t a = (uint32_t)rand() % N, b = (uint32_t)rand() % N;
            if (label[a] != label[b]) {
                uint32_t old = label[b];
                for (uint32_t i = 0; i < N; i++)
                    if (label[i] == old)
                        label[i] = label[a];
                joins++;
            }
            uf_union(&u, a, b);
            assert_int_equal(p.calls, joins);
            uint32_t c = (uint32_t)rand() % N, d = (uint32_t)rand() % N;
            assert_int_equal(uf_same(&u, c, d), label[c] == label[d]);
        }
        assert_int_equal(u.sets, N - joins);
        for (uint32_t i = 0; i < N; i++) {
            uint64_t want = 0, size = 0;
            for (uint32_t j = 0; j < N; j++)
                if (label[j] == label[i]) {
                    want += j;
                    size++;
                }
            assert_int_equal(p.sum[uf_find(&u, i)], want);
            assert_int_equal(uf_set_size(&u, i), size);
            assert_int_equal(uf_same(&u, i, label[i]), 1);
        }
        uf_free(&u);
    }
}

/* Path compression: after a find, every node of the path points at the
 * root. */
static void compresses_paths(void **state)
{
    (void)state;
    unionfind u;
    uf_init(&u, NULL, NULL);
    assert_int_equal(uf_reserve(&u, 64), 0);
    /* Build a chain by hand (what union by size never makes), then find. */
    for (uint32_t i = 1; i < 64; i++)
        u.parent[i] = i - 1;
    assert_int_equal(uf_find(&u, 63), 0);
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(u.parent[i], 0);
    uf_free(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(basics),
        cmocka_unit_test(random_against_naive),
        cmocka_unit_test(compresses_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
