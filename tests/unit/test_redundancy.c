/*
 * test_redundancy.c: the direct redundancy pass (redundancy/direct.h) on
 * constructed cases (a load repeated with no store between, a store
 * overwritten unread, a store read once, never-written memory, accesses
 * straddling granules, an instruction storing twice in one execution),
 * and on random accesses against TWPP+'s
 * dependence edges (twpp/deps.h): redundant loads are exactly the edges
 * with SN > 1, redundant stores exactly the store instances in no edge.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "redundancy/direct.h"
#include "twpp/deps.h"

enum { LOAD1, LOAD2, STORE1, STORE2, NINSNS };

static redund_insn counts(const redund_direct *d, uint32_t insn)
{
    redund_insn c;
    memset(&c, 0, sizeof c);
    redund_direct_counts(d, insn, &c);
    return c;
}

static void load(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size)
{
    assert_int_equal(redund_direct_load(d, insn, addr, size), 0);
}

static void store(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size)
{
    assert_int_equal(redund_direct_store(d, insn, addr, size), 0);
}

/* st a; ld a; ld a; ld a (another instruction): the second and third loads
 * read what the first did; st a; ld a: a fresh value again. */
static void test_load_repeated(void **state)
{
    (void)state;
    redund_direct *d = redund_direct_new();
    store(d, STORE1, 0x1000, 8);
    load(d, LOAD1, 0x1000, 8);
    load(d, LOAD1, 0x1000, 8);
    load(d, LOAD2, 0x1004, 4);          /* the same granule: the same value */
    store(d, STORE1, 0x1000, 8);
    load(d, LOAD1, 0x1000, 8);
    redund_insn l1 = counts(d, LOAD1), l2 = counts(d, LOAD2), s1 = counts(d, STORE1);
    assert_int_equal(l1.loads, 3);
    assert_int_equal(l1.redundant_loads, 1);
    assert_int_equal(l2.loads, 1);
    assert_int_equal(l2.redundant_loads, 1);
    assert_int_equal(s1.stores, 2);
    assert_int_equal(s1.redundant_stores, 0);    /* both were read */
    assert_int_equal(redund_direct_accesses(d), 6);
    redund_direct_free(d);
}

/* st a; st a; ld a: the first store was overwritten unread; a store read
 * once is not redundant; a store never read up to the end is. */
static void test_store_overwritten(void **state)
{
    (void)state;
    redund_direct *d = redund_direct_new();
    store(d, STORE1, 0x2000, 8);        /* overwritten unread: redundant */
    store(d, STORE2, 0x2000, 8);        /* read once */
    load(d, LOAD1, 0x2000, 8);
    store(d, STORE1, 0x3000, 8);        /* never read before the end: redundant */
    store(d, STORE2, 0x3008, 8);        /* read twice */
    load(d, LOAD1, 0x3008, 8);
    load(d, LOAD2, 0x3008, 8);
    redund_insn s1 = counts(d, STORE1), s2 = counts(d, STORE2);
    assert_int_equal(s1.stores, 2);
    assert_int_equal(s1.redundant_stores, 2);
    assert_int_equal(s2.stores, 2);
    assert_int_equal(s2.redundant_stores, 0);
    assert_int_equal(counts(d, LOAD1).redundant_loads, 0);
    assert_int_equal(counts(d, LOAD2).redundant_loads, 1);
    redund_direct_free(d);
}

/* Loads of memory no store wrote have no edge: unwritten, not redundant. */
static void test_never_written(void **state)
{
    (void)state;
    redund_direct *d = redund_direct_new();
    load(d, LOAD1, 0x5000, 8);
    load(d, LOAD1, 0x5000, 8);
    redund_insn l1 = counts(d, LOAD1);
    assert_int_equal(l1.loads, 2);
    assert_int_equal(l1.unwritten_loads, 2);
    assert_int_equal(l1.redundant_loads, 0);
    assert_int_equal(counts(d, LOAD2).loads, 0);
    redund_direct_free(d);
}

/* A store over two granules is one instance: read through either granule
 * it is read; a load over two granules reads the most recent store. */
static void test_straddling(void **state)
{
    (void)state;
    redund_direct *d = redund_direct_new();
    store(d, STORE1, 0x7004, 8);        /* granules 0x7000 and 0x7008 */
    load(d, LOAD1, 0x7008, 4);
    load(d, LOAD1, 0x7000, 4);          /* the other granule: SN 1 there */
    store(d, STORE2, 0x7000, 4);
    load(d, LOAD2, 0x7004, 8);          /* both granules: STORE2 is the newer */
    load(d, LOAD2, 0x7008, 8);          /* STORE1 in 0x7008, read there before */
    redund_insn s1 = counts(d, STORE1), l1 = counts(d, LOAD1), l2 = counts(d, LOAD2);
    assert_int_equal(s1.stores, 1);
    assert_int_equal(s1.redundant_stores, 0);
    assert_int_equal(l1.redundant_loads, 0);
    assert_int_equal(l2.redundant_loads, 1);
    assert_int_equal(counts(d, STORE2).redundant_stores, 0);
    redund_direct_free(d);
}

/* One block execution by hand: accesses (instruction index, kind, address,
 * size) numbered as instructions insn[]. */
static void exec(redund_direct *d, const mr_access *acc, const uint32_t *insn, uint32_t n)
{
    access_exec x;
    memset(&x, 0, sizeof x);
    x.n = n;
    x.acc = acc;
    x.insn = insn;
    x.repeat = 1;
    assert_int_equal(redund_direct_exec(d, &x), 0);
}

/* An instruction that stores twice in one execution (xsave, a push of a
 * memory operand) makes one store instance, as TWPP+'s <G, FC, BC>: read
 * through either of its stores, it is read. */
static void test_one_instance_per_execution(void **state)
{
    (void)state;
    redund_direct *d = redund_direct_new();
    const mr_access xsave[] = {
        { .addr = 0x9000, .size = 16, .instr = 3, .kind = MR_STORE },
        { .addr = 0x9010, .size = 8, .instr = 3, .kind = MR_STORE },
        { .addr = 0x9100, .size = 8, .instr = 4, .kind = MR_STORE },  /* the next instruction */
    };
    const uint32_t insn[] = { STORE1, STORE1, STORE2 };
    exec(d, xsave, insn, 3);
    load(d, LOAD1, 0x9010, 8);          /* reads the second store of STORE1's execution */
    exec(d, xsave, insn, 3);            /* again: nothing reads it */
    redund_insn s1 = counts(d, STORE1), s2 = counts(d, STORE2);
    assert_int_equal(s1.stores, 2);     /* two executions, four stores */
    assert_int_equal(s1.redundant_stores, 1);
    assert_int_equal(s2.stores, 2);
    assert_int_equal(s2.redundant_stores, 2);
    assert_int_equal(redund_direct_accesses(d), 7);
    redund_direct_free(d);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define RANDOM_INSNS 40
#define RANDOM_ACCESSES 200000

/* Random accesses of 1..16 bytes over three pages, against the edges of
 * twpp/deps: per instruction, redundant loads = its edges with SN > 1,
 * loads without an edge = unwritten, redundant stores = its instances
 * (numbered per instruction, as TWPP+'s instance numbers) in no edge. */
static void test_random_against_deps(void **state)
{
    (void)state;
    redund_direct *d = redund_direct_new();
    twpp_deps *deps = twpp_deps_new();
    static uint64_t redundant[RANDOM_INSNS], unwritten[RANDOM_INSNS], instances[RANDOM_INSNS];
    static uint8_t read[RANDOM_INSNS][RANDOM_ACCESSES];
    memset(redundant, 0, sizeof redundant);
    memset(unwritten, 0, sizeof unwritten);
    memset(instances, 0, sizeof instances);
    memset(read, 0, sizeof read);
    for (int i = 0; i < RANDOM_ACCESSES; i++) {
        uint32_t insn = (uint32_t)(rnd() % RANDOM_INSNS), size = 1u << (rnd() % 5);
        uint64_t addr = 0x10000 - 64 + rnd() % 12288;
        twpp_instance x = { insn, 1, 0 };
        twpp_edge e;
        if (insn % 2) {                 /* odd instructions store */
            x.bc = (uint32_t)++instances[insn];
            store(d, insn, addr, size);
            assert_int_equal(twpp_deps_store(deps, &x, addr, size), 0);
        } else {
            load(d, insn, addr, size);
            if (twpp_deps_load(deps, &x, addr, size, &e)) {
                redundant[insn] += e.sn > 1;
                read[e.store.point][e.store.bc] = 1;
            } else {
                unwritten[insn]++;
            }
        }
    }
    uint64_t total_redundant = 0, total_unread = 0;
    for (uint32_t insn = 0; insn < RANDOM_INSNS; insn++) {
        redund_insn c = counts(d, insn);
        if (insn % 2 == 0) {
            assert_int_equal(c.redundant_loads, redundant[insn]);
            assert_int_equal(c.unwritten_loads, unwritten[insn]);
            total_redundant += redundant[insn];
            continue;
        }
        uint64_t unread = 0;
        for (uint64_t k = 1; k <= instances[insn]; k++)
            unread += !read[insn][k];
        assert_int_equal(c.stores, instances[insn]);
        assert_int_equal(c.redundant_stores, unread);
        total_unread += unread;
    }
    assert_true(total_redundant > 1000 && total_unread > 1000);  /* both cases occur */
    assert_true(redund_direct_bytes(d) > 0);
    twpp_deps_free(deps);
    redund_direct_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_repeated),
        cmocka_unit_test(test_store_overwritten),
        cmocka_unit_test(test_never_written),
        cmocka_unit_test(test_straddling),
        cmocka_unit_test(test_one_instance_per_execution),
        cmocka_unit_test(test_random_against_deps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
