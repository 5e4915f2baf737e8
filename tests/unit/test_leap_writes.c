/*
 * test_leap_writes.c: the dependence solver's index of short store LMADs
 * (leap/leap_writes.h) against a brute-force scan of every point of every
 * LMAD: hand-made boundary cases (writes that touch the byte, end just
 * before it, are made at the load's time, a stride wider than the write,
 * an LMAD of no point, several sizes at one offset, negative offsets, two
 * writes at one time), then random LMAD sets, each query answered both
 * ways. Then the whole solver (leap_mdf_compute) on random access streams
 * against the exact last writer of every load, by shadow memory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "leap/leap.h"
#include "leap/leap_mdf.h"
#include "leap/leap_writes.h"
#include "memrec_trace.h"

/* One LMAD of the index with its size and writer (the brute force's
 * input). */
typedef struct entry {
    lmad m;
    uint32_t size, insn;
} entry;

static lmad make(int64_t o, int64_t f, int64_t t, int64_t dobj, int64_t doff,
                 int64_t dt, uint64_t count)
{
    lmad m = { .start = { o, f, t }, .stride = { dobj, doff, dt }, .count = count };
    return m;
}

/* The last write before t covering byte (object, offset), by scanning
 * every point: its time, and in *insn its writer, or when several writes
 * share that time (never in a trace: a time is one access) the one of
 * `prefer` if it is among them, else any. */
static int64_t brute_last(const entry *e, uint32_t n, int64_t object, int64_t offset,
                          int64_t t, uint32_t prefer, uint32_t *insn)
{
    int64_t best = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t np = lmad_points(&e[i].m);
        int64_t sz = e[i].size ? e[i].size : 1;
        for (uint64_t k = 0; k < np; k++) {
            int64_t p[LEAP_DIMS];
            lmad_point(&e[i].m, LEAP_DIMS, k, p);
            if (p[LEAP_OBJECT] != object || p[LEAP_TIME] >= t ||
                offset < p[LEAP_OFFSET] || offset >= p[LEAP_OFFSET] + sz)
                continue;
            if (p[LEAP_TIME] > best || (p[LEAP_TIME] == best && e[i].insn == prefer)) {
                best = p[LEAP_TIME];
                *insn = e[i].insn;
            }
        }
    }
    return best;
}

static void build(leap_writes *x, const entry *e, uint32_t n)
{
    leap_writes_clear(x);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(leap_writes_add(x, &e[i].m, e[i].size, e[i].insn), 0);
    assert_int_equal(leap_writes_sort(x), 0);
}

/* One query answered alike by the index and the scan. */
static void same_answer(const leap_writes *x, const entry *e, uint32_t n,
                        int64_t o, int64_t f, int64_t t)
{
    uint32_t wi = UINT32_MAX, bi = UINT32_MAX;
    int64_t w = leap_writes_last(x, o, f, t, &wi);
    int64_t b = brute_last(e, n, o, f, t, wi, &bi);
    if (w != b || wi != bi)
        fail_msg("object %lld offset %lld time %lld: index %lld (insn %u), "
                 "scan %lld (insn %u)", (long long)o, (long long)f,
                 (long long)t, (long long)w, wi, (long long)b, bi);
}

/* Every query of the box [o0, o1] x [f0, f1] x [t0, t1] answered alike. */
static void same_answers(const leap_writes *x, const entry *e, uint32_t n,
                         int64_t o0, int64_t o1, int64_t f0, int64_t f1,
                         int64_t t0, int64_t t1)
{
    for (int64_t o = o0; o <= o1; o++)
        for (int64_t f = f0; f <= f1; f++)
            for (int64_t t = t0; t <= t1; t++)
                same_answer(x, e, n, o, f, t);
}

/* The queries at the edges of every write: its first and last byte and
 * the bytes either side, at its time and just after, and random ones. */
static void same_at_edges(const leap_writes *x, const entry *e, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t k = 0; k < lmad_points(&e[i].m); k++) {
            int64_t p[LEAP_DIMS];
            lmad_point(&e[i].m, LEAP_DIMS, k, p);
            const int64_t at[] = { -1, 0, e[i].size - 1, e[i].size };
            for (int j = 0; j < 4; j++)
                for (int64_t dt = 0; dt <= 1; dt++)
                    same_answer(x, e, n, p[LEAP_OBJECT], p[LEAP_OFFSET] + at[j],
                                p[LEAP_TIME] + dt);
        }
    for (int q = 0; q < 2000; q++)
        same_answer(x, e, n, rand() % 6 - 1, rand() % 160 - 70, rand() % 520);
}

static void boundaries(void **state)
{
    (void)state;
    leap_writes x = { 0 };
    entry e[] = {
        /* 8 bytes at 8 and 16, touching: 8..15 then 16..23 */
        { make(1, 8, 10, 0, 8, 1, 2), 8, 1 },
        /* a stride wider than the write: 4 bytes at 40, 56, 72 */
        { make(1, 40, 20, 0, 16, 5, 3), 4, 2 },
        /* no point at all */
        { make(1, 8, 90, 0, 0, 0, 0), 8, 3 },
        /* one offset, three sizes, at three times */
        { make(2, 0, 30, 0, 0, 0, 1), 1, 4 },
        { make(2, 0, 31, 0, 0, 0, 1), 4, 5 },
        { make(2, 0, 32, 0, 0, 0, 1), 2, 6 },
        /* below the object's start, downwards */
        { make(2, -8, 40, 0, -8, 2, 2), 8, 7 },
        /* objects apart: one point in each of objects 3, 4, 5 */
        { make(3, 4, 50, 1, 0, 1, 3), 4, 8 },
        /* two writes of one byte at one time (no real trace has them) */
        { make(6, 0, 60, 0, 0, 0, 1), 1, 9 },
        { make(6, 0, 60, 0, 0, 0, 1), 1, 10 },
    };
    uint32_t n = sizeof e / sizeof *e;
    build(&x, e, n);
    uint32_t insn = 0;
    assert_int_equal(leap_writes_last(&x, 1, 15, 100, &insn), 10);   /* the first's last byte */
    assert_int_equal(insn, 1);
    assert_int_equal(leap_writes_last(&x, 1, 16, 100, &insn), 11);   /* the second's first */
    assert_int_equal(leap_writes_last(&x, 1, 16, 11, &insn), -1);    /* written at 11: not before */
    assert_int_equal(leap_writes_last(&x, 1, 7, 100, &insn), -1);    /* just before */
    assert_int_equal(leap_writes_last(&x, 1, 24, 100, &insn), -1);   /* just after */
    assert_int_equal(leap_writes_last(&x, 1, 59, 100, &insn), 25);   /* 56..59 */
    assert_int_equal(leap_writes_last(&x, 1, 60, 100, &insn), -1);   /* the gap */
    assert_int_equal(leap_writes_last(&x, 2, 3, 100, &insn), 31);    /* only the 4-byte one */
    assert_int_equal(leap_writes_last(&x, 2, 1, 100, &insn), 32);    /* the 2-byte one, last */
    assert_int_equal(leap_writes_last(&x, 2, 1, 32, &insn), 31);
    assert_int_equal(leap_writes_last(&x, 2, -9, 100, &insn), 42);   /* -16..-9 */
    assert_int_equal(leap_writes_last(&x, 4, 7, 100, &insn), 51);
    assert_int_equal(leap_writes_last(&x, 6, 0, 61, &insn), 60);
    same_answers(&x, e, n, 0, 7, -20, 80, 0, 100);
    leap_writes_free(&x);
}

/* A random LMAD of at most LEAP_WRITES_MAX_POINTS points in a small space
 * (objects 0..3, offsets -64..64), starting at a time in [t, t + 40):
 * strides of either sign, wider or narrower than the write, and folded
 * ones. */
static entry random_entry(uint32_t insn, int64_t t)
{
    static const uint32_t sizes[] = { 1, 2, 4, 8, 16 };
    entry e = { .size = sizes[rand() % 5], .insn = insn };
    uint64_t count = (uint64_t)(rand() % 5);    /* 0 .. 4 points a row */
    e.m = make(rand() % 4, rand() % 129 - 64, t + rand() % 40, rand() % 3 == 0,
               (rand() % 9 - 4) * (rand() % 2 ? 1 : 4), 1 + rand() % 7, count);
    if (count > 1 && rand() % 4 == 0) {         /* a row repeated */
        e.m.nouter = 1;
        e.m.outer[0] = (lmad_level){ { 0, rand() % 33 - 16, (int64_t)count * 7 + rand() % 9 },
                                     2 + (uint64_t)(rand() % 3) };
    }
    assert_true(lmad_points(&e.m) <= LEAP_WRITES_MAX_POINTS);
    return e;
}

static void random_sets(void **state)
{
    (void)state;
    srand(15);
    leap_writes x = { 0 };
    entry e[60];
    for (int round = 0; round < 200; round++) {
        uint32_t n = 1 + (uint32_t)(rand() % 60);
        for (uint32_t i = 0; i < n; i++)
            e[i] = random_entry(i % 13, (int64_t)(rand() % 400));
        build(&x, e, n);
        same_at_edges(&x, e, n);
    }
    leap_writes_free(&x);
}

/* The solver against the exact last writer: random stores and loads of
 * several sizes over two groups, loops among them (long LMADs, solved as
 * boxes of every width class: strides up to 100 times the size) and
 * scattered accesses in the first 512 bytes (short LMADs, solved as
 * writes), a cap that nothing reaches, every point solved. */
enum { NSTORES = 12, NLOADS = 12, SPAN = 16384 };

static void solver_exact(void **state)
{
    (void)state;
    srand(16);
    for (int round = 0; round < 6; round++) {
        leap *l = leap_new(100000);
        assert_non_null(l);
        static const uint32_t sizes[] = { 1, 2, 4, 8 };
        /* the exact answer: per group and byte, the last writer + 1 */
        static uint32_t shadow[2][SPAN + 16];
        static uint64_t want[NSTORES + 1][NSTORES + NLOADS];
        uint64_t loads[NSTORES + NLOADS] = { 0 };
        memset(shadow, 0, sizeof shadow);
        memset(want, 0, sizeof want);
        for (int i = 0; i < 3000; i++) {
            int store = rand() % 2;
            uint32_t insn = store ? (uint32_t)(rand() % NSTORES) : NSTORES + (uint32_t)(rand() % NLOADS);
            uint32_t size = sizes[insn % 4], group = insn % 2;
            uint64_t off = (uint64_t)(rand() % 512) & ~(uint64_t)(size - 1);
            int run = rand() % 10 == 0 ? 20 + rand() % 30 : 1;  /* a loop */
            uint64_t step = size * (rand() % 2 ? 1 : 1 + (uint64_t)(rand() % 100));
            for (int k = 0; k < run && off + size <= SPAN; k++, off += step) {
                assert_int_equal(leap_access(l, insn, store ? MR_STORE : MR_LOAD, size,
                                             group, 0, off), 0);
                if (store) {
                    for (uint32_t b = 0; b < size; b++)
                        shadow[group][off + b] = insn + 1;
                } else {
                    want[shadow[group][off]][insn]++;
                    loads[insn]++;
                }
            }
        }
        leap_finish(l);
        leap_mdf m;
        assert_int_equal(leap_mdf_compute(l, 0, &m), 0);
        uint32_t pairs = 0;
        for (uint32_t ld = NSTORES; ld < NSTORES + NLOADS; ld++) {
            if (!loads[ld])
                continue;
            assert_int_equal(m.sampled[ld], loads[ld]);
            for (uint32_t st = 0; st < NSTORES; st++) {
                uint64_t got = 0;
                for (uint32_t i = 0; i < m.n; i++)
                    if (m.deps[i].store == st && m.deps[i].load == ld)
                        got = m.deps[i].conflicts;
                if (got != want[st + 1][ld])
                    fail_msg("round %d: store %u load %u: %llu conflicts, exactly %llu",
                             round, st, ld, (unsigned long long)got,
                             (unsigned long long)want[st + 1][ld]);
                pairs += got > 0;
            }
        }
        assert_int_equal(m.n, pairs);
        leap_mdf_free(&m);
        leap_free(l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boundaries),
        cmocka_unit_test(random_sets),
        cmocka_unit_test(solver_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
