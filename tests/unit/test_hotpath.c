/*
 * test_hotpath.c: Larus's hot subpaths computed on the grammar agree with
 * counting every window of the expanded stream, for random streams and
 * every length bound; the threshold and the order are as documented.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wpp/hotpath.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A window of the stream, for the brute-force count. */
typedef struct window {
    uint32_t len;
    uint64_t s[HOT_MAX_LEN];
} window;

static int cmp_window(const void *a, const void *b)
{
    const window *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->s, y->s, x->len * sizeof x->s[0]);
}

/* Occurrences of p in v by scanning. */
static uint64_t occurrences(const uint64_t *v, size_t n, const hot_path *p)
{
    uint64_t c = 0;
    for (size_t i = 0; i + p->length <= n; i++)
        c += memcmp(v + i, p->symbols, p->length * sizeof *v) == 0;
    return c;
}

static void check_stream(const uint64_t *v, size_t n, uint32_t max_len)
{
    sequitur *b = sq_new();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(sq_append(b, v[i]), 0);
    sq_grammar *g = sq_finish(b);
    hot_path *hot;
    size_t nhot;
    assert_int_equal(hot_paths(g, max_len, 1, SIZE_MAX, &hot, &nhot), 0);
    /* Brute force: every window of 1..max_len, sorted, counted. */
    size_t nw = 0;
    window *w = malloc(sizeof *w * (n * max_len + 1));
    for (size_t i = 0; i < n; i++)
        for (uint32_t len = 1; len <= max_len && i + len <= n; len++) {
            w[nw].len = len;
            memcpy(w[nw].s, v + i, len * sizeof *v);
            nw++;
        }
    qsort(w, nw, sizeof *w, cmp_window);
    size_t distinct = 0;
    for (size_t i = 0; i < nw; i++)
        distinct += i == 0 || cmp_window(&w[i - 1], &w[i]) != 0;
    assert_int_equal(nhot, distinct);
    for (size_t i = 0; i < nhot; i++) {
        assert_int_equal(hot[i].executions, occurrences(v, n, &hot[i]));
        assert_int_equal(hot[i].cost, hot[i].executions * hot[i].length);
        /* The documented order: cost, then length (both descending), then
         * the terminals; the order decides which paths a --top keeps. */
        if (i > 0) {
            const hot_path *a = &hot[i - 1], *c = &hot[i];
            assert_true(a->cost >= c->cost);
            if (a->cost == c->cost) {
                assert_true(a->length >= c->length);
                if (a->length == c->length)
                    assert_true(memcmp(a->symbols, c->symbols, a->length * sizeof *v) < 0);
            }
        }
    }
    free(w);
    free(hot);
    sq_grammar_free(g);
    sq_free(b);
}

static void agrees_with_brute_force(void **state)
{
    (void)state;
    uint64_t v[1500];
    for (int round = 0; round < 150; round++) {
        size_t n = 1 + rnd() % 1500, plen = 1 + rnd() % 12;
        uint64_t alphabet = 1 + rnd() % 5, phrase[12];
        for (size_t i = 0; i < plen; i++)
            phrase[i] = rnd() % alphabet;
        for (size_t i = 0; i < n;) {
            if (rnd() % 4)
                for (size_t j = 0; j < plen && i < n; j++)
                    v[i++] = phrase[j];
            else
                v[i++] = rnd() % (alphabet + 3);
        }
        check_stream(v, n, 1 + (uint32_t)(rnd() % 9));
    }
}

static void threshold_and_limit(void **state)
{
    (void)state;
    /* (1 2 3) x 100, then 9: "1 2 3" occurs 100 times, cost 300. */
    sequitur *b = sq_new();
    for (int i = 0; i < 100; i++)
        for (uint64_t s = 1; s <= 3; s++)
            sq_append(b, s);
    sq_append(b, 9);
    sq_grammar *g = sq_finish(b);
    hot_path *hot;
    size_t n;
    assert_int_equal(hot_paths(g, 3, 297, 100, &hot, &n), 0);
    /* Cost >= 297: the three runs of 3 (300, 297, 297); no runs of 2 (<= 200). */
    assert_int_equal(n, 3);
    assert_int_equal(hot[0].length, 3);
    assert_int_equal(hot[0].executions, 100);
    assert_int_equal(hot[0].symbols[0], 1);
    assert_int_equal(hot[1].cost, 297);
    free(hot);
    assert_int_equal(hot_paths(g, 3, 1, 2, &hot, &n), 0);
    assert_int_equal(n, 2);
    free(hot);
    assert_int_equal(hot_paths(g, 0, 1, 2, &hot, &n), -1);
    assert_int_equal(hot_paths(g, HOT_MAX_LEN + 1, 1, 2, &hot, &n), -1);
    sq_grammar_free(g);
    sq_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agrees_with_brute_force),
        cmocka_unit_test(threshold_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
