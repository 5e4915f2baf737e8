/*
 * test_scc.c: online strongly connected components (Pearce and Kelly)
 * against Tarjan's algorithm run from scratch after every edge, on many
 * random edge sequences of small and larger graphs: the same partition,
 * every join reported through the callback (a mirror union-find driven
 * only by the callbacks ends up with the same partition), a topological
 * order of the components, and self-loops making a lone node cyclic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "algo/scc.h"
#include "algo/unionfind.h"

enum { MAXN = 64, MAXE = 400 };

/* The graph so far, for Tarjan. */
typedef struct graph {
    uint32_t n, ne;
    uint32_t from[MAXE], to[MAXE];
} graph;

/* Tarjan's recursive algorithm: comp[v] = the smallest node of v's SCC. */
typedef struct tarjan {
    const graph *g;
    int index[MAXN], low[MAXN], on[MAXN];
    uint32_t stack[MAXN], nstack;
    int next;
    uint32_t comp[MAXN];
} tarjan;

static void strongconnect(tarjan *t, uint32_t v)
{
    t->index[v] = t->low[v] = t->next++;
    t->stack[t->nstack++] = v;
    t->on[v] = 1;
    for (uint32_t e = 0; e < t->g->ne; e++) {
        if (t->g->from[e] != v)
            continue;
        uint32_t w = t->g->to[e];
        if (t->index[w] < 0) {
            strongconnect(t, w);
            if (t->low[w] < t->low[v])
                t->low[v] = t->low[w];
        } else if (t->on[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->low[v] != t->index[v])
        return;
    uint32_t members[MAXN], n = 0, min = v, w;
    do {
        w = t->stack[--t->nstack];
        t->on[w] = 0;
        members[n++] = w;
        if (w < min)
            min = w;
    } while (w != v);
    for (uint32_t i = 0; i < n; i++)
        t->comp[members[i]] = min;
}

static void tarjan_run(tarjan *t, const graph *g)
{
    memset(t, 0, sizeof *t);
    t->g = g;
    for (uint32_t v = 0; v < MAXN; v++)
        t->index[v] = -1;
    for (uint32_t v = 0; v < g->n; v++)
        if (t->index[v] < 0)
            strongconnect(t, v);
}

/* The callback drives a mirror union-find: only reported joins merge. */
typedef struct mirror {
    unionfind uf;
    int joins;
    int bad;            /* a report that was not two representatives */
    scc *g;
} mirror;

static void on_merge(void *ctx, uint32_t into, uint32_t from)
{
    mirror *m = ctx;
    if (into == from || uf_same(&m->uf, into, from))
        m->bad++;
    uf_union(&m->uf, into, from);
    m->joins++;
}

/* One random sequence of edges over n nodes, checked after every edge. */
static void run_sequence(uint32_t n, uint32_t nedges, unsigned seed)
{
    graph g = { .n = n, .ne = 0 };
    mirror m = { .joins = 0, .bad = 0 };
    uf_init(&m.uf, NULL, NULL);
    assert_int_equal(uf_reserve(&m.uf, n), 0);
    scc *s = scc_new(on_merge, &m);
    assert_non_null(s);
    m.g = s;
    assert_int_equal(scc_reserve(s, n), 0);
    srand(seed);
    tarjan t;
    int prev_components = (int)n;
    for (uint32_t e = 0; e < nedges; e++) {
        uint32_t a = (uint32_t)rand() % n, b = (uint32_t)rand() % n;
        g.from[g.ne] = a;
        g.to[g.ne++] = b;
        int joined = scc_add_edge(s, a, b);
        assert_true(joined >= 0);
        tarjan_run(&t, &g);
        int components = 0;
        for (uint32_t v = 0; v < n; v++)
            components += t.comp[v] == v;
        /* The return value counts the joins this edge made. */
        assert_int_equal(joined, prev_components - components);
        prev_components = components;
        assert_int_equal(m.bad, 0);
        for (uint32_t v = 0; v < n; v++) {
            /* Same partition as Tarjan, in the structure and the mirror. */
            assert_int_equal(scc_same(s, v, t.comp[v]), 1);
            assert_int_equal(uf_same(&m.uf, v, t.comp[v]), 1);
            assert_int_equal(scc_component(s, v), uf_find(&m.uf, v));
        }
        assert_int_equal((int)m.uf.sets, components);
        /* A topological order of the condensation. */
        for (uint32_t i = 0; i < g.ne; i++)
            if (t.comp[g.from[i]] != t.comp[g.to[i]])
                assert_true(scc_order(s, g.from[i]) < scc_order(s, g.to[i]));
    }
    /* Cyclic: more than one node, or a self-loop. */
    for (uint32_t v = 0; v < n; v++) {
        uint32_t size = 0;
        int loop = 0;
        for (uint32_t w = 0; w < n; w++)
            size += t.comp[w] == t.comp[v];
        for (uint32_t i = 0; i < g.ne; i++)
            loop |= g.from[i] == v && g.to[i] == v;
        assert_int_equal(scc_size(s, v), size);
        if (size == 1)
            assert_int_equal(scc_cyclic(s, v), loop);
        else
            assert_int_equal(scc_cyclic(s, v), 1);
    }
    scc_free(s);
    uf_free(&m.uf);
}

/* A hand example: a chain 0->1->2->3, then 3->1 closes {1,2,3}, then
 * 2->0 pulls 0 in; a lone self-loop node is cyclic. */
static void chain_then_cycles(void **state)
{
    (void)state;
    mirror m = { .joins = 0 };
    uf_init(&m.uf, NULL, NULL);
    assert_int_equal(uf_reserve(&m.uf, 6), 0);
    scc *s = scc_new(on_merge, &m);
    assert_non_null(s);
    assert_int_equal(scc_add_edge(s, 0, 1), 0);
    assert_int_equal(scc_add_edge(s, 1, 2), 0);
    assert_int_equal(scc_add_edge(s, 2, 3), 0);
    assert_int_equal(scc_nodes(s), 4);
    assert_false(scc_cyclic(s, 1));
    assert_int_equal(scc_add_edge(s, 3, 1), 2);
    assert_int_equal(m.joins, 2);
    assert_true(scc_same(s, 1, 3));
    assert_false(scc_same(s, 0, 1));
    assert_true(scc_cyclic(s, 2));
    assert_true(scc_order(s, 0) < scc_order(s, 1));
    assert_int_equal(scc_add_edge(s, 2, 0), 1);
    assert_int_equal(scc_size(s, 0), 4);
    assert_int_equal(scc_add_edge(s, 5, 5), 0);   /* creates 4 and 5 */
    assert_true(scc_cyclic(s, 5));
    assert_false(scc_cyclic(s, 4));
    assert_int_equal(m.bad, 0);
    scc_free(s);
    uf_free(&m.uf);
}

static void random_small(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 300; seed++)
        run_sequence(2 + seed % 9, 30, seed);
}

static void random_larger(void **state)
{
    (void)state;
    /* Sparse enough that components form one by one over the sequence. */
    for (unsigned seed = 1; seed <= 40; seed++)
        run_sequence(MAXN, 120, 1000 + seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_then_cycles),
        cmocka_unit_test(random_small),
        cmocka_unit_test(random_larger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
