/*
 * test_twpp_deps.c: TWPP+'s exact dependence pass. Figure 4.2's loop
 * (B1 W(a); B2 W(b) or B3 two stores; B4 R(a) R(b), three iterations)
 * gives Figure 4.3's six edges and Figure 4.5's sequence numbers (and the
 * accesses a backward scan reads to find each); random
 * accesses across page boundaries agree with a flat last-writer table;
 * never-written memory gives no edge.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twpp/deps.h"

/* Figure 4.4's access points. */
enum { A1 = 1, A2, A3, A4, A5, A6 };
static const uint64_t a = 0x1000, b = 0x1008, c = 0x2000;

static void store(twpp_deps *d, uint32_t g, uint32_t bc, uint64_t addr)
{
    twpp_instance s = { g, 1, bc };
    assert_int_equal(twpp_deps_store(d, &s, addr, 8), 0);
}

static void load(twpp_deps *d, uint32_t g, uint32_t bc, uint64_t addr,
                 uint32_t want_g, uint32_t want_bc, uint32_t want_sn)
{
    twpp_instance l = { g, 1, bc };
    twpp_edge e;
    assert_int_equal(twpp_deps_load(d, &l, addr, 8, &e), 1);
    assert_int_equal(e.load.point, g);
    assert_int_equal(e.load.bc, bc);
    assert_int_equal(e.store.point, want_g);
    assert_int_equal(e.store.fc, 1);
    assert_int_equal(e.store.bc, want_bc);
    assert_int_equal(e.sn, want_sn);
}

static void test_figure_4_2(void **state)
{
    (void)state;
    twpp_deps *d = twpp_deps_new();
    /* iteration 1: B1 W(a), B2 W(b), B4 R(a) R(b) */
    store(d, A1, 1, a);
    store(d, A2, 1, b);
    load(d, A5, 1, a, A1, 1, 1);
    load(d, A6, 1, b, A2, 1, 1);
    /* iteration 2: B1 W(a), B3 W(b) W(a), B4 R(a) R(b) */
    store(d, A1, 2, a);
    store(d, A3, 1, b);
    store(d, A4, 1, a);
    load(d, A5, 2, a, A4, 1, 1);
    load(d, A6, 2, b, A3, 1, 1);
    /* iteration 3: B1 W(a), B3 W(a) W(c), B4 R(a) R(b) */
    store(d, A1, 3, a);
    store(d, A3, 2, a);
    store(d, A4, 2, c);
    load(d, A5, 3, a, A3, 2, 1);
    load(d, A6, 3, b, A3, 1, 2);     /* the second load from B3#1's store: SN 2 */
    /* a backward scan from each load to its store reads 2, 2, 1, 3, 2
     * and 8 accesses (Table 4.7's raw column) */
    uint64_t sum, max;
    twpp_deps_scan(d, &sum, &max);
    assert_int_equal(sum, 18);
    assert_int_equal(max, 8);
    twpp_deps_free(d);
}

static void test_never_written(void **state)
{
    (void)state;
    twpp_deps *d = twpp_deps_new();
    twpp_instance l = { 1, 1, 1 };
    twpp_edge e;
    assert_int_equal(twpp_deps_load(d, &l, 0x5000, 4, &e), 0);
    store(d, 2, 1, 0x5008);
    assert_int_equal(twpp_deps_load(d, &l, 0x5000, 8, &e), 0);   /* the granule before */
    assert_int_equal(twpp_deps_load(d, &l, 0x5004, 8, &e), 1);   /* straddles into it */
    twpp_deps_free(d);
}

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The flat reference: per granule of [base, base + span), the last store
 * (its serial and instance) and the loads it served. */
#define SPAN 12288
static const uint64_t base = 4096 - 64;

static void test_random_against_flat(void **state)
{
    (void)state;
    static uint64_t serial[SPAN / 8];
    static twpp_instance who[SPAN / 8];
    static uint32_t loads[SPAN / 8];
    memset(serial, 0, sizeof serial);
    memset(loads, 0, sizeof loads);
    twpp_deps *d = twpp_deps_new();
    uint64_t n = 0;
    for (int i = 0; i < 200000; i++) {
        uint32_t size = 1u << (rnd() % 5);       /* 1..16 bytes */
        uint64_t addr = base + rnd() % (SPAN - 64);
        twpp_instance x = { (uint32_t)(rnd() % 50), (uint32_t)(1 + rnd() % 9), (uint32_t)(1 + rnd() % 99) };
        uint64_t g0 = addr >> 3, g1 = (addr + size - 1) >> 3, lo = base >> 3;
        if (rnd() % 3 == 0) {
            ++n;
            assert_int_equal(twpp_deps_store(d, &x, addr, size), 0);
            for (uint64_t g = g0; g <= g1; g++) {
                serial[g - lo] = n;
                who[g - lo] = x;
                loads[g - lo] = 0;
            }
            continue;
        }
        int64_t best = -1;
        for (uint64_t g = g0; g <= g1; g++)
            if (serial[g - lo] && (best < 0 || serial[g - lo] > serial[best]))
                best = (int64_t)(g - lo);
        twpp_edge e;
        int got = twpp_deps_load(d, &x, addr, size, &e);
        assert_int_equal(got, best >= 0);
        if (best < 0)
            continue;
        assert_memory_equal(&e.store, &who[best], sizeof e.store);
        assert_int_equal(e.sn, ++loads[best]);
    }
    assert_true(twpp_deps_bytes(d) > 0);
    twpp_deps_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_4_2),
        cmocka_unit_test(test_never_written),
        cmocka_unit_test(test_random_against_flat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
