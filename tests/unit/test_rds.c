/*
 * test_rds.c: the RDS profile builder on event sequences worked out by
 * hand: the paper's Figure 3 walk (two trees under a heap array: two
 * instances, the array's edges queued forever), a list built by
 * prepending (every edge backward), mutually recursive sites (queued edges
 * revisited when the SCC forms), overwritten fields and the RSF, frees,
 * traversal patterns, self-pointers, a node with many pointer fields; and
 * the field map against a plain array on random insertions and deletions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rds/fieldmap.h"
#include "rds/rds.h"

/* The instances not absorbed by others, in order. */
static size_t live_instances(rds *p, const rds_instance **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < rds_ninstances(p); i++) {
        const rds_instance *in = rds_get_instance(p, i);
        if (in->merged_into == RDS_NONE && n < max)
            out[n++] = in;
    }
    return n;
}

/* Figure 2's program, event by event as Figure 3 walks it. Site 0 is the
 * array's malloc (A), site 1 the tree's (T); times are allocation order. */
static void test_figure3(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t arr = rds_node_new(p, 0, 1);
    uint32_t t[7];
    uint64_t time = 10;
    for (int tree = 0; tree < 2; tree++) {
        uint32_t root = t[1 + 3 * tree] = rds_node_new(p, 1, time++);
        uint32_t left = t[2 + 3 * tree] = rds_node_new(p, 1, time++);
        assert_int_equal(rds_store(p, root, 8, left, 7, time++), 0);
        uint32_t right = t[3 + 3 * tree] = rds_node_new(p, 1, time++);
        assert_int_equal(rds_store(p, root, 16, right, 10, time++), 0);
        /* arr[tree] = root: A and T are not in one SCC, the edge waits. */
        assert_int_equal(rds_store(p, arr, 8 * tree, root, 15 + 2 * tree, time++), 0);
        assert_false(rds_site_cyclic(p, 0));
    }
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in[4];
    assert_int_equal(live_instances(p, in, 4), 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(in[k]->nodes, 3);
        assert_int_equal(in[k]->edges, 2);
        assert_int_equal(in[k]->forward_edges, 2);
        assert_int_equal(in[k]->backward_edges, 0);
        assert_int_equal(rds_instance_type(p, in[k]), rds_site_component(p, 1));
    }
    assert_int_equal(in[0]->birth, 10);
    assert_int_equal(in[1]->birth, 16);
    const rds_stats *s = rds_get_stats(p);
    assert_int_equal(s->edges_queued, 2);
    assert_int_equal(s->edges_dequeued, 0);
    assert_int_equal(s->ssg_edges, 2);
    assert_true(rds_site_cyclic(p, 1));
    assert_int_not_equal(rds_site_component(p, 0), rds_site_component(p, 1));
    rds_free(p);
}

/* A list built by prepending: each new node points at the older head. */
static void test_prepend_backward(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t head = rds_node_new(p, 3, 1);
    for (int i = 2; i <= 20; i++) {
        uint32_t n = rds_node_new(p, 3, (uint64_t)i);
        assert_int_equal(rds_store(p, n, 8, head, 1, 100 + (uint64_t)i), 0);
        head = n;
    }
    /* Walk it twice from the head: every step goes deeper. */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t n = 19; n > 0; n--)
            assert_int_equal(rds_traverse(p, n, n - 1, 2, 5, 1000), 0);
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in[2];
    assert_int_equal(live_instances(p, in, 2), 1);
    assert_int_equal(in[0]->nodes, 20);
    assert_int_equal(in[0]->edges, 19);
    assert_int_equal(in[0]->backward_edges, 19);
    assert_int_equal(in[0]->forward_edges, 0);
    assert_int_equal(in[0]->traversals, 38);
    assert_int_equal(in[0]->latency, 38 * 5);
    assert_int_equal(in[0]->depth_steps, 36);   /* not at the restart */
    assert_int_equal(in[0]->breadth_steps, 0);
    assert_int_equal(in[0]->rsf, 1);            /* never changed while walked */
    rds_free(p);
}

/* A -> B first (no SCC: queued), then B -> A closes the cycle: the queued
 * edge is revisited and all three objects form one instance. */
static void test_mutual_recursion(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t a1 = rds_node_new(p, 0, 1), b1 = rds_node_new(p, 1, 2),
             a2 = rds_node_new(p, 0, 3);
    assert_int_equal(rds_store(p, a1, 0, b1, 1, 10), 0);
    assert_int_equal(rds_ninstances(p), 0);
    assert_int_equal(rds_get_stats(p)->edges_queued, 1);
    assert_int_equal(rds_store(p, b1, 0, a2, 2, 11), 0);
    assert_int_equal(rds_get_stats(p)->edges_dequeued, 1);
    assert_true(rds_site_cyclic(p, 0));
    assert_int_equal(rds_site_component(p, 0), rds_site_component(p, 1));
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in[2];
    assert_int_equal(live_instances(p, in, 2), 1);
    assert_int_equal(in[0]->nodes, 3);
    assert_int_equal(in[0]->edges, 2);
    assert_int_equal(in[0]->forward_edges, 2);
    rds_free(p);
}

/* Two separate lists that a later edge joins: the instances merge, the
 * older keeps its number and the profiles add up. */
static void test_merge_instances(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t n[4];
    for (int i = 0; i < 4; i++)
        n[i] = rds_node_new(p, 0, (uint64_t)i + 1);
    assert_int_equal(rds_store(p, n[0], 0, n[1], 1, 10), 0);
    assert_int_equal(rds_store(p, n[2], 0, n[3], 1, 11), 0);
    assert_int_equal(rds_traverse(p, n[2], n[3], 2, 100, 12), 0);
    assert_int_equal(rds_store(p, n[1], 0, n[2], 1, 13), 0);
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in[3];
    assert_int_equal(live_instances(p, in, 3), 1);
    assert_int_equal(in[0]->id, 0);
    assert_int_equal(in[0]->nodes, 4);
    assert_int_equal(in[0]->edges, 3);
    assert_int_equal(in[0]->traversals, 1);
    assert_int_equal(in[0]->latency, 100);
    assert_int_equal(rds_get_instance(p, 1)->merged_into, 0);
    rds_free(p);
}

/* An overwritten field removes its edge: an alteration between two runs
 * of traversals gives RSF 2 at t = 0.99; storing the same pointer again
 * changes nothing. */
static void test_overwrite_rsf(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t n0 = rds_node_new(p, 0, 1), n1 = rds_node_new(p, 0, 2),
             n2 = rds_node_new(p, 0, 3);
    assert_int_equal(rds_store(p, n0, 8, n1, 1, 10), 0);
    assert_int_equal(rds_store(p, n1, 8, n2, 1, 11), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(rds_traverse(p, n0, n1, 2, 1, 20), 0);
    assert_int_equal(rds_store(p, n0, 8, n1, 1, 21), 0);   /* the same */
    assert_int_equal(rds_get_stats(p)->edges_removed, 0);
    assert_int_equal(rds_store(p, n0, 8, n2, 1, 22), 0);   /* unlink n1 */
    assert_int_equal(rds_get_stats(p)->edges_removed, 1);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rds_traverse(p, n0, n2, 2, 1, 30), 0);
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in = rds_get_instance(p, 0);
    assert_int_equal(in->edges, 3);
    assert_int_equal(in->live_edges, 2);
    assert_int_equal(in->rsf, 2);
    rds_free(p);
}

/* Freeing every node ends the instance: no live node or edge, a death
 * time, and the free's call site among its deleters. */
static void test_free_all(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t n[5];
    for (int i = 0; i < 5; i++)
        n[i] = rds_node_new(p, 2, (uint64_t)i + 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(rds_store(p, n[i], 0, n[i + 1], 1, 10), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rds_node_delete(p, n[i], 0x4000, 50 + (uint64_t)i), 0);
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in = rds_get_instance(p, 0);
    assert_int_equal(in->nodes, 5);
    assert_int_equal(in->live_nodes, 0);
    assert_int_equal(in->live_edges, 0);
    assert_int_equal(in->death, 54);
    assert_int_equal(rds_get_stats(p)->live_edges, 0);
    int found = 0;
    for (size_t i = 0; i < in->ninsns; i++)
        if (in->insns[i].role == RDS_DELETE && in->insns[i].where == 0x4000)
            found = in->insns[i].count == 5;
    assert_true(found);
    rds_free(p);
}

/* A root visited child after child: breadth steps. A pointer into the
 * object itself is no edge. */
static void test_breadth_and_self(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t root = rds_node_new(p, 0, 1), c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = rds_node_new(p, 0, 2 + (uint64_t)i);
        assert_int_equal(rds_store(p, root, 8 * (uint64_t)i, c[i], 1, 10), 0);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(rds_traverse(p, root, c[i], 2, 1, 20), 0);
    assert_int_equal(rds_store(p, c[0], 0, c[0], 3, 21), 0);
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in = rds_get_instance(p, 0);
    assert_int_equal(in->breadth_steps, 3);
    assert_int_equal(in->depth_steps, 0);
    assert_int_equal(in->edges, 4);
    assert_int_equal(rds_get_stats(p)->edges_added, 4);
    rds_free(p);
}

/* Freed nodes are reused: at once when in no instance, when the last one
 * goes for an instance (also one absorbed by a merge); the dead instance
 * keeps its profile and type, the new one built on the reused nodes is
 * right. */
static void test_recycle(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t lone = rds_node_new(p, 0, 1);
    assert_int_equal(rds_node_delete(p, lone, 0, 2), 0);
    assert_int_equal(rds_node_new(p, 5, 3), lone);
    /* Two lists of site 1 merged into one, then freed entirely. */
    uint32_t n[6];
    for (int i = 0; i < 6; i++)
        n[i] = rds_node_new(p, 1, 10 + (uint64_t)i);
    assert_int_equal(rds_store(p, n[0], 0, n[1], 1, 20), 0);
    assert_int_equal(rds_store(p, n[2], 0, n[3], 1, 21), 0);
    assert_int_equal(rds_node_delete(p, n[3], 0, 22), 0);   /* dead, set alive */
    assert_int_equal(rds_store(p, n[2], 0, n[4], 1, 23), 0);
    assert_int_equal(rds_store(p, n[1], 0, n[2], 1, 24), 0); /* merge */
    uint32_t fresh = rds_node_new(p, 1, 25);
    for (int i = 0; i < 6; i++)
        assert_int_not_equal(fresh, n[i]);   /* nothing reusable yet */
    for (int i = 0; i < 5; i++)
        if (i != 3)
            assert_int_equal(rds_node_delete(p, n[i], 0, 30 + (uint64_t)i), 0);
    /* All five members of the dead instance come back before new ids. */
    uint32_t again[5];
    for (int i = 0; i < 5; i++) {
        again[i] = rds_node_new(p, 2, 40 + (uint64_t)i);
        int member = 0;
        for (int k = 0; k < 5; k++)
            member |= again[i] == n[k];
        assert_true(member);
    }
    /* They work as new nodes of another site. */
    assert_int_equal(rds_store(p, again[0], 0, again[1], 1, 50), 0);
    assert_int_equal(rds_traverse(p, again[0], again[1], 2, 7, 51), 0);
    assert_int_equal(rds_finish(p), 0);
    const rds_instance *in[4];
    assert_int_equal(live_instances(p, in, 4), 2);
    assert_int_equal(in[0]->nodes, 5);
    assert_int_equal(in[0]->live_nodes, 0);
    assert_int_equal(in[0]->death, 34);
    assert_int_equal(rds_instance_type(p, in[0]), rds_site_component(p, 1));
    assert_int_equal(in[1]->nodes, 2);
    assert_int_equal(in[1]->traversals, 1);
    assert_int_equal(rds_instance_type(p, in[1]), rds_site_component(p, 2));
    rds_free(p);
}

static void test_rsf_definition(void **state)
{
    (void)state;
    uint64_t a[] = { 5, 90, 5 };
    assert_int_equal(rds_rsf(a, 3, 0.9), 1);
    uint64_t b[] = { 5, 90, 5 };
    assert_int_equal(rds_rsf(b, 3, 0.99), 3);
    uint64_t c[] = { 1, 98, 1 };
    assert_int_equal(rds_rsf(c, 3, 0.98), 1);
    assert_int_equal(rds_rsf(NULL, 0, 0.99), 0);
    /* Counted: 20000 intervals of 1 traversal need 19800 of them; one
     * long interval first needs fewer. */
    rds_interval iv[] = { { 1, 20000 } };
    assert_int_equal(rds_rsf_counted(iv, 1, 0.99), 19800);
    rds_interval jv[] = { { 1, 100 }, { 9900, 1 } };
    assert_int_equal(rds_rsf_counted(jv, 2, 0.99), 1);
    rds_interval kv[] = { { 2, 50 }, { 100, 2 } };
    assert_int_equal(rds_rsf_counted(kv, 2, 0.99), 2 + 49);   /* 200 + 98 >= 297 */
}

/* The field map against a plain array of small keys. */
/* A node holding many pointer fields (an array of pointers) goes from its
 * out-list to the field map past NODE_LIST_MAX edges: random stores over
 * 40 fields (an offset 2^32 further naming the same field, as the map's
 * keys do) against a plain array, then the node freed and its record
 * reused with a few fields. */
static void test_many_fields(void **state)
{
    (void)state;
    rds *p = rds_new(RDS_DEFAULT_THRESHOLD);
    uint32_t src = rds_node_new(p, 0, 1), dst[12];
    for (int i = 0; i < 12; i++)
        dst[i] = rds_node_new(p, 1, 2 + (uint64_t)i);
    int cur[40];
    for (int f = 0; f < 40; f++)
        cur[f] = -1;
    uint64_t seed = 7, added = 0, removed = 0, live = 0;
    for (int step = 0; step < 3000; step++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int f = (int)((seed >> 33) % 40), d = (int)((seed >> 45) % 13);
        uint64_t off = 8 * (uint64_t)f + ((seed >> 20) & 1 ? 1ull << 32 : 0);
        uint32_t to = d == 12 ? RDS_NONE : dst[d];
        assert_int_equal(rds_store(p, src, off, to, 1, 10 + (uint64_t)step), 0);
        if (cur[f] != (d == 12 ? -1 : d)) {
            removed += cur[f] != -1;
            live -= cur[f] != -1;
            added += d != 12;
            live += d != 12;
            cur[f] = d == 12 ? -1 : d;
        }
        assert_int_equal(rds_get_stats(p)->edges_added, added);
        assert_int_equal(rds_get_stats(p)->edges_removed, removed);
        assert_int_equal(rds_get_stats(p)->live_edges, live);
    }
    assert_true(live > 8);   /* the map was used */
    assert_int_equal(rds_node_delete(p, src, 0, 5000), 0);
    assert_int_equal(rds_get_stats(p)->live_edges, 0);
    uint32_t again = rds_node_new(p, 0, 5001);
    assert_int_equal(again, src);   /* in no instance: reused at once */
    assert_int_equal(rds_store(p, again, 0, dst[0], 1, 5002), 0);
    assert_int_equal(rds_store(p, again, 8, dst[1], 1, 5003), 0);
    assert_int_equal(rds_store(p, again, 0, dst[2], 1, 5004), 0);
    assert_int_equal(rds_get_stats(p)->live_edges, 2);
    assert_int_equal(rds_get_stats(p)->edges_removed, removed + live + 1);
    assert_int_equal(rds_finish(p), 0);
    rds_free(p);
}

static void test_fieldmap_random(void **state)
{
    (void)state;
    enum { KEYS = 4096, STEPS = 200000 };
    static uint32_t ref[KEYS];
    fieldmap m;
    fieldmap_init(&m);
    for (int i = 0; i < KEYS; i++)
        ref[i] = FIELDMAP_NONE;
    srand(7);
    size_t count = 0;
    for (int s = 0; s < STEPS; s++) {
        uint32_t k = (uint32_t)rand() % KEYS;
        uint64_t key = (uint64_t)(k % 64) << 32 | (k / 64) * 8;
        if (rand() % 3) {
            uint32_t v = (uint32_t)rand() % 1000;
            assert_int_equal(fieldmap_put(&m, key, v), 0);
            count += ref[k] == FIELDMAP_NONE;
            ref[k] = v;
        } else {
            assert_int_equal(fieldmap_del(&m, key), ref[k] != FIELDMAP_NONE);
            count -= ref[k] != FIELDMAP_NONE;
            ref[k] = FIELDMAP_NONE;
        }
        if (s % 1000 == 0)
            for (uint32_t j = 0; j < KEYS; j++)
                assert_int_equal(fieldmap_get(&m, (uint64_t)(j % 64) << 32 | (j / 64) * 8),
                                 ref[j]);
    }
    assert_int_equal(m.count, count);
    fieldmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure3),
        cmocka_unit_test(test_prepend_backward),
        cmocka_unit_test(test_mutual_recursion),
        cmocka_unit_test(test_merge_instances),
        cmocka_unit_test(test_overwrite_rsf),
        cmocka_unit_test(test_free_all),
        cmocka_unit_test(test_breadth_and_self),
        cmocka_unit_test(test_recycle),
        cmocka_unit_test(test_rsf_definition),
        cmocka_unit_test(test_many_fields),
        cmocka_unit_test(test_fieldmap_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
