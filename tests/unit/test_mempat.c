/*
 * test_mempat.c: the MemPat algorithm on synthetic access sequences, with
 * the expected text worked out by hand (docs/trace-mempat.md explains the
 * rules these follow).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mempat/mempat.h"

#define R 1
#define W 2
#define M 3

static void feed(mempat *m, uint64_t instr, int kind, uint64_t addr,
                 uint32_t size)
{
    uint32_t s = mempat_slot(m, instr, kind);
    assert_int_not_equal(s, UINT32_MAX);
    mempat_access(m, mempat_runs(m), s, addr, size);
}

/* Finishes the analysis and returns every line, in output order, each
 * followed by a newline (malloc'd). */
static char *all_lines(mempat *m)
{
    mempat_finish(m);
    uint32_t n = mempat_count(m);
    uint32_t *order = malloc((n + 1) * sizeof *order);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    n = mempat_order(m, order);
    for (uint32_t i = 0; i < n; i++) {
        char *line = mempat_line(m, order[i], NULL);
        assert_non_null(line);
        fprintf(f, "%s\n", line);
        free(line);
    }
    fclose(f);
    free(order);
    assert_false(mempat_failed(m));
    return out;
}

/* One instruction, one kind: the text after '='. */
static void expect_pattern(mempat *m, const char *want)
{
    mempat_finish(m);
    assert_int_equal(mempat_count(m), 1);
    char *got = mempat_pattern_text(m, 0);
    assert_string_equal(got, want);
    free(got);
}

static mempat_info info_of(mempat *m, uint32_t slot)
{
    mempat_info info;
    mempat_get_info(m, slot, &info);
    return info;
}

/* Figure 2 of the paper: five instructions, accesses interleaved as a
 * trace would have them; each line is the figure's, in address order. */
static void test_figure2(void **state)
{
    (void)state;
    mempat *m = mempat_new(MEMPAT_DEFAULT_MAX_PATTERNS);
    feed(m, 0x86c, W, 0x140, 8);
    feed(m, 0x92e, R, 0x4a8, 1);
    feed(m, 0xe32, W, 0x010, 4);
    feed(m, 0x92e, R, 0x4a9, 1);
    feed(m, 0x7da, R, 0x680, 8);
    feed(m, 0x92e, R, 0x4aa, 1);
    feed(m, 0xe32, W, 0x018, 4);
    feed(m, 0x7da, R, 0x688, 8);
    feed(m, 0x92e, R, 0x4ab, 1);
    feed(m, 0x280, R, 0x18c, 4);
    feed(m, 0x92e, R, 0x4ac, 1);
    feed(m, 0x7da, R, 0x6a0, 8);
    feed(m, 0xe32, W, 0x020, 4);
    feed(m, 0x92e, R, 0x4a8, 1);  /* the same five bytes again: a repeat */
    feed(m, 0x280, R, 0x194, 4);
    feed(m, 0x92e, R, 0x4a9, 1);
    feed(m, 0x7da, R, 0x6a8, 8);
    feed(m, 0x92e, R, 0x4aa, 1);
    feed(m, 0x280, R, 0x198, 4);
    feed(m, 0x92e, R, 0x4ab, 1);
    feed(m, 0x92e, R, 0x4ac, 1);
    char *got = all_lines(m);
    assert_string_equal(got,
                        "R4@280={Fix:[4x1] +4+ Seq:[4x2]}\n"
                        "R8@7da=SeqStr:[8x2,+16+,8x2]\n"
                        "W8@86c=Fix:[8x1]\n"
                        "R1@92e=REP2Seq:[1x5]\n"
                        "W4@e32=Str:[4x1,(+4+,4x1)*2]\n");
    free(got);
    mempat_info i = info_of(m, mempat_slot(m, 0x280, R));
    assert_int_equal(i.kind, MEMPAT_COMPLEX);
    assert_int_equal(i.accesses, 3);
    assert_int_equal(info_of(m, mempat_slot(m, 0x92e, R)).kind, MEMPAT_REP);
    assert_int_equal(info_of(m, mempat_slot(m, 0x92e, R)).accesses, 10);
    assert_int_equal(info_of(m, mempat_slot(m, 0x7da, R)).kind,
                     MEMPAT_SEQSTR);
    assert_int_equal(info_of(m, mempat_slot(m, 0xe32, W)).kind, MEMPAT_STR);
    assert_int_equal(info_of(m, mempat_slot(m, 0x86c, W)).kind, MEMPAT_FIX);
    mempat_free(m);
}

static void test_fix(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    feed(m, 0x10, R, 0x1000, 8);
    expect_pattern(m, "Fix:[8x1]");
    assert_int_equal(info_of(m, 0).kind, MEMPAT_FIX);
    mempat_free(m);
}

static void test_seq(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int i = 0; i < 100; i++)
        feed(m, 0x10, R, 0x1000 + 4 * i, 4);
    expect_pattern(m, "Seq:[4x100]");
    assert_int_equal(info_of(m, 0).kind, MEMPAT_SEQ);
    mempat_free(m);
}

/* Offsets count from the byte after an item: 4-byte accesses 16 apart
 * leave 12 bytes between them. */
static void test_str(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int i = 0; i < 10; i++)
        feed(m, 0x10, W, 0x2000 + 16 * i, 4);
    expect_pattern(m, "Str:[4x1,(+12+,4x1)*9]");
    mempat_free(m);
}

/* One lasting item: written without parentheses and count, as the paper's
 * SeqStr:[8x2,+16+,8x2]; the same holds for Str. */
static void test_str_one_lasting(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    feed(m, 0x10, W, 0x2000, 4);
    feed(m, 0x10, W, 0x2010, 4);
    expect_pattern(m, "Str:[4x1,+12+,4x1]");
    mempat_free(m);
}

static void test_seqstr(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 3; col++)
            feed(m, 0x20, R, 0x3000 + 40 * row + 8 * col, 8);
    expect_pattern(m, "SeqStr:[8x3,(+16+,8x3)*3]");
    assert_int_equal(info_of(m, 0).kind, MEMPAT_SEQSTR);
    assert_int_equal(info_of(m, 0).accesses, 12);
    mempat_free(m);
}

static void test_negative_stride(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    feed(m, 0x10, R, 100, 4);
    feed(m, 0x10, R, 96, 4);
    feed(m, 0x10, R, 92, 4);
    expect_pattern(m, "Str:[4x1,(-8-,4x1)*2]");
    mempat_free(m);
}

/* A Repeat is a stride whose items all start at the same address. */
static void test_repeat_fix(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int i = 0; i < 5; i++)
        feed(m, 0x10, W, 0x140, 8);
    expect_pattern(m, "REP5Fix:[8x1]");
    assert_int_equal(info_of(m, 0).kind, MEMPAT_REP);
    mempat_free(m);
}

static void test_repeat_str(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 3; i++)
            feed(m, 0x10, R, 0x10 + 8 * i, 4);
    expect_pattern(m, "REP3Str:[4x1,(+4+,4x1)*2]");
    mempat_free(m);
}

/* Each row read twice before the next: repeats become the elements of a
 * stride, written with their kind inside it. */
static void test_stride_of_repeats(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int row = 0; row < 3; row++)
        for (int twice = 0; twice < 2; twice++)
            for (int col = 0; col < 4; col++)
                feed(m, 0x10, R, 0x1000 + 64 * row + 8 * col, 8);
    expect_pattern(m, "SeqStr:[REP2Seq:[8x4],(+32+,REP2Seq:[8x4])*2]");
    mempat_free(m);
}

/* Complex: the first item differs from the next, so nothing folds (the
 * paper's R4@280); later members are separated by their offsets. */
static void test_complex(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    feed(m, 0x10, R, 0x1000, 8);               /* Seq:[8x2] */
    feed(m, 0x10, R, 0x1008, 8);
    feed(m, 0x10, R, 0x0ff8, 8);               /* -24-: Fix */
    feed(m, 0x10, R, 0x2000, 8);               /* +4096: Seq:[8x3] */
    feed(m, 0x10, R, 0x2008, 8);
    feed(m, 0x10, R, 0x2010, 8);
    expect_pattern(m, "{Seq:[8x2] -24- Fix:[8x1] +4096+ Seq:[8x3]}");
    assert_int_equal(info_of(m, 0).kind, MEMPAT_COMPLEX);
    mempat_free(m);
}

/* A size change ends a run even when contiguous: offset 0. */
static void test_size_change(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    feed(m, 0x10, R, 0x1000, 4);
    feed(m, 0x10, R, 0x1004, 8);
    expect_pattern(m, "{Fix:[4x1] +0+ Fix:[8x1]}");
    /* The line's size is the first access's. */
    char *line = mempat_line(m, 0, NULL);
    assert_string_equal(line, "R4@10={Fix:[4x1] +0+ Fix:[8x1]}");
    free(line);
    mempat_free(m);
}

/* A 3-D Jacobi sweep over the interior of a 5x5x5 grid of doubles, twice:
 * rows of 3 (gap 2 doubles), 3 rows a plane (gap 12 doubles), the sweep
 * repeated. */
static void test_jacobi_nest(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    for (int t = 0; t < 2; t++)
        for (int i = 1; i <= 3; i++)
            for (int j = 1; j <= 3; j++)
                for (int k = 1; k <= 3; k++)
                    feed(m, 0x40, R, 0x10000 + ((i * 5 + j) * 5 + k) * 8, 8);
    expect_pattern(m, "REP2SeqStr:[SeqStr:[8x3,(+16+,8x3)*2],"
                      "(+96+,SeqStr:[8x3,(+16+,8x3)*2])*2]");
    mempat_info i = info_of(m, 0);
    assert_int_equal(i.kind, MEMPAT_REP);
    assert_int_equal(i.accesses, 54);
    assert_int_equal(i.min, 0x10000 + 31 * 8);
    assert_int_equal(i.max, 0x10000 + 93 * 8);
    mempat_free(m);
}

/* Loads, stores and modifies of one instruction are separate lines, in the
 * order R, W, M; where-text follows a tab. */
static void test_kinds_and_order(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    feed(m, 0x500, M, 0x80, 4);
    feed(m, 0x500, W, 0x90, 8);
    feed(m, 0x500, R, 0xa0, 2);
    feed(m, 0x4ff, R, 0xb0, 1);
    /* A slot that never saw an access has no line. */
    assert_int_not_equal(mempat_slot(m, 0x400, W), UINT32_MAX);
    char *got = all_lines(m);
    assert_string_equal(got,
                        "R1@4ff=Fix:[1x1]\n"
                        "R2@500=Fix:[2x1]\n"
                        "W8@500=Fix:[8x1]\n"
                        "M4@500=Fix:[4x1]\n");
    free(got);
    char *line = mempat_line(m, mempat_slot(m, 0x4ff, R), "main:12");
    assert_string_equal(line, "R1@4ff=Fix:[1x1]\tmain:12");
    free(line);
    mempat_free(m);
}

/* The cap: at most max_patterns committed patterns; beyond, a summary of
 * all accesses (count, min, max, dominant stride). Runs of 10 doubles with
 * ever-growing gaps never fold. */
static void test_overflow(void **state)
{
    (void)state;
    mempat *m = mempat_new(3);
    uint64_t addr = 0x1000, max = 0;
    for (int run = 0; run < 40; run++) {
        for (int i = 0; i < 10; i++) {
            max = addr + 8 * i;
            feed(m, 0x10, R, max, 8);
        }
        addr += 80 + 8 * (run + 1) * (run + 2);
    }
    mempat_finish(m);
    mempat_info i = info_of(m, 0);
    assert_true(i.overflowed);
    assert_int_equal(i.kind, MEMPAT_COMPLEX);
    assert_int_equal(i.accesses, 400);
    assert_int_equal(i.min, 0x1000);
    assert_int_equal(i.max, max);
    assert_int_equal(i.stride, 8);
    assert_true(i.has_stride);
    char want[128];
    snprintf(want, sizeof want,
             "Overflow:[count=400,min=1000,max=%llx,stride=8]",
             (unsigned long long)max);
    char *got = mempat_pattern_text(m, 0);
    assert_string_equal(got, want);
    free(got);
    mempat_free(m);
}

/* Exactly max_patterns members is not an overflow; one more is. */
static void test_overflow_boundary(void **state)
{
    (void)state;
    mempat *m = mempat_new(3);
    feed(m, 0x10, R, 0x1000, 8);   /* Seq:[8x2] */
    feed(m, 0x10, R, 0x1008, 8);
    feed(m, 0x10, R, 0x2000, 8);   /* Fix */
    feed(m, 0x10, R, 0x3000, 4);   /* Fix of another size */
    expect_pattern(m, "{Seq:[8x2] +4080+ Fix:[8x1] +4088+ Fix:[4x1]}");
    assert_false(info_of(m, 0).overflowed);
    mempat_free(m);

    m = mempat_new(2);
    feed(m, 0x10, R, 0x1000, 8);
    feed(m, 0x10, R, 0x1008, 8);
    feed(m, 0x10, R, 0x2000, 8);
    feed(m, 0x10, R, 0x3000, 4);
    expect_pattern(m, "Overflow:[count=4,min=1000,max=3000,stride=8]");
    assert_true(info_of(m, 0).overflowed);
    mempat_free(m);
}

/* Memory stays bounded however long the irregular sequence: the slot
 * stops keeping patterns once overflowed (checked by ASan's leak check
 * and by the count staying exact). */
static void test_overflow_long(void **state)
{
    (void)state;
    mempat *m = mempat_new(4);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        feed(m, 0x10, R, (x & 0xffff8), 8);
    }
    mempat_finish(m);
    assert_true(info_of(m, 0).overflowed);
    assert_int_equal(info_of(m, 0).accesses, 200000);
    /* Scattered accesses have no dominant stride. */
    assert_false(info_of(m, 0).has_stride);
    char *got = mempat_pattern_text(m, 0);
    assert_non_null(strstr(got, ",stride=none]"));
    free(got);
    mempat_free(m);
}

/* Single accesses at a constant stride are predicted inline; every way
 * out of the prediction must give what the plain algorithm gives. */
static void test_stride_prediction_exits(void **state)
{
    (void)state;
    mempat *m = mempat_new(8);
    /* A predicted element grows into a run. */
    feed(m, 0x10, R, 0, 4);
    feed(m, 0x10, R, 16, 4);
    feed(m, 0x10, R, 32, 4);
    feed(m, 0x10, R, 48, 4);
    feed(m, 0x10, R, 52, 4);
    /* Another size at the predicted address. */
    feed(m, 0x20, R, 0, 4);
    feed(m, 0x20, R, 16, 4);
    feed(m, 0x20, R, 32, 4);
    feed(m, 0x20, R, 48, 8);
    /* A prediction that never hits, then a jump. */
    feed(m, 0x30, R, 0, 4);
    feed(m, 0x30, R, 16, 4);
    feed(m, 0x30, R, 32, 4);
    feed(m, 0x30, R, 1000, 4);
    /* Many hits, then a jump back to a repeat of the whole. */
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < 100; i++)
            feed(m, 0x40, W, 0x800 + 24 * i, 8);
    /* One location many times, then the one next to it: the last access
     * and that one form a run, so the repeat has 999 copies. */
    for (int i = 0; i < 1000; i++)
        feed(m, 0x50, R, 0x40, 8);
    feed(m, 0x50, R, 0x48, 8);
    char *got = all_lines(m);
    assert_string_equal(got,
                        "R4@10={Str:[4x1,(+12+,4x1)*2] +12+ Seq:[4x2]}\n"
                        "R4@20={Str:[4x1,(+12+,4x1)*2] +12+ Fix:[8x1]}\n"
                        "R4@30={Str:[4x1,(+12+,4x1)*2] +964+ Fix:[4x1]}\n"
                        "W8@40=REP2Str:[8x1,(+16+,8x1)*99]\n"
                        "R8@50={REP999Fix:[8x1] -8- Seq:[8x2]}\n");
    free(got);
    mempat_info i = info_of(m, mempat_slot(m, 0x40, W));
    assert_int_equal(i.accesses, 200);
    assert_int_equal(i.min, 0x800);
    assert_int_equal(i.max, 0x800 + 24 * 99);
    assert_int_equal(i.stride, 24);
    i = info_of(m, mempat_slot(m, 0x50, R));
    assert_int_equal(i.accesses, 1001);
    assert_int_equal(i.stride, 0);
    assert_true(i.has_stride);   /* a real stride of 0: the repeat */
    mempat_free(m);
}

/* A small deterministic generator for the differential test. */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state % n;
}

/* Stride mode is only a faster way to the same result: on thousands of
 * sequences built from random loop nests, repeats, jumps and size changes,
 * over several instructions, both give the same lines and the
 * same summaries (with a small cap, so overflows are compared too). */
static void test_stride_mode_is_transparent(void **state)
{
    (void)state;
    for (int round = 0; round < 3000; round++) {
        uint32_t cap = 1 + (uint32_t)(round % 12);
        mempat *a = mempat_new(cap), *b = mempat_new(cap);
        mempat_set_stride_mode(b, 0);
        int pieces = 1 + (int)rng(8);
        for (int piece = 0; piece < pieces; piece++) {
            uint64_t instr = 0x100 + rng(3);
            uint32_t size = rng(4) ? 8 : 1u << rng(4);
            /* Far from 0: real address sequences do not wrap around. */
            uint64_t base = (1u << 20) + (rng(4096) & ~(uint64_t)(size - 1));
            uint64_t n1 = 1 + rng(5), n2 = 1 + rng(6), n3 = 1 + rng(3);
            int64_t s1 = (int64_t)size * (rng(3) ? 1 : (int64_t)rng(5) - 2);
            int64_t s2 = (int64_t)size * ((int64_t)rng(40) - 10);
            int64_t s3 = rng(2) ? 0 : (int64_t)size * ((int64_t)rng(400) - 100);
            for (uint64_t k = 0; k < n3; k++)
                for (uint64_t j = 0; j < n2; j++)
                    for (uint64_t i = 0; i < n1; i++) {
                        uint64_t addr = base + i * s1 + j * s2 + k * s3;
                        feed(a, instr, R, addr, size);
                        feed(b, instr, R, addr, size);
                    }
        }
        char *la = all_lines(a), *lb = all_lines(b);
        assert_string_equal(la, lb);
        for (uint32_t s = 0; s < mempat_count(a); s++) {
            mempat_info ia = info_of(a, s), ib = info_of(b, s);
            assert_int_equal(ia.instr, ib.instr);
            assert_int_equal(ia.size, ib.size);
            assert_int_equal(ia.accesses, ib.accesses);
            assert_int_equal(ia.overflowed, ib.overflowed);
            assert_int_equal(ia.kind, ib.kind);
            assert_int_equal(ia.min, ib.min);
            assert_int_equal(ia.max, ib.max);
            assert_int_equal(ia.stride, ib.stride);
            assert_int_equal(ia.has_stride, ib.has_stride);
        }
        free(la);
        free(lb);
        mempat_free(a);
        mempat_free(b);
    }
}

/* mempat_access_run is only a faster way to the same result: random loop
 * nests whose inner loops go in as runs give the lines and summaries of
 * the same accesses fed one by one. */
static void test_access_run_is_transparent(void **state)
{
    (void)state;
    for (int round = 0; round < 2000; round++) {
        uint32_t cap = 1 + (uint32_t)(round % 12);
        mempat *a = mempat_new(cap), *b = mempat_new(cap);
        int pieces = 1 + (int)rng(6);
        for (int piece = 0; piece < pieces; piece++) {
            uint64_t instr = 0x100 + rng(3);
            uint32_t size = rng(4) ? 8 : 1u << rng(4);
            uint64_t base = (1u << 20) + (rng(4096) & ~(uint64_t)(size - 1));
            uint64_t n1 = 1 + rng(rng(2) ? 200 : 5), n2 = 1 + rng(6);
            int64_t s1 = (int64_t)size * (rng(3) ? 1 : (int64_t)rng(5) - 2);
            int64_t s2 = (int64_t)size * ((int64_t)rng(40) - 10);
            uint32_t slot = mempat_slot(a, instr, R);
            assert_int_equal(slot, mempat_slot(b, instr, R));
            for (uint64_t j = 0; j < n2; j++) {
                uint64_t start = base + j * s2;
                mempat_access_run(a, mempat_runs(a), slot, start, (uint64_t)s1, n1, size);
                for (uint64_t i = 0; i < n1; i++)
                    mempat_access(b, mempat_runs(b), slot, start + i * s1, size);
            }
        }
        char *la = all_lines(a), *lb = all_lines(b);
        assert_string_equal(la, lb);
        for (uint32_t s = 0; s < mempat_count(a); s++) {
            mempat_info ia = info_of(a, s), ib = info_of(b, s);
            assert_int_equal(ia.accesses, ib.accesses);
            assert_int_equal(ia.overflowed, ib.overflowed);
            assert_int_equal(ia.min, ib.min);
            assert_int_equal(ia.max, ib.max);
            assert_int_equal(ia.stride, ib.stride);
        }
        free(la);
        free(lb);
        mempat_free(a);
        mempat_free(b);
    }
}

static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(mempat_kind_name(MEMPAT_FIX), "Fix");
    assert_string_equal(mempat_kind_name(MEMPAT_SEQ), "Seq");
    assert_string_equal(mempat_kind_name(MEMPAT_STR), "Str");
    assert_string_equal(mempat_kind_name(MEMPAT_SEQSTR), "SeqStr");
    assert_string_equal(mempat_kind_name(MEMPAT_REP), "Rep");
    assert_string_equal(mempat_kind_name(MEMPAT_COMPLEX), "Complex");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure2),
        cmocka_unit_test(test_fix),
        cmocka_unit_test(test_seq),
        cmocka_unit_test(test_str),
        cmocka_unit_test(test_str_one_lasting),
        cmocka_unit_test(test_seqstr),
        cmocka_unit_test(test_negative_stride),
        cmocka_unit_test(test_repeat_fix),
        cmocka_unit_test(test_repeat_str),
        cmocka_unit_test(test_stride_of_repeats),
        cmocka_unit_test(test_complex),
        cmocka_unit_test(test_size_change),
        cmocka_unit_test(test_jacobi_nest),
        cmocka_unit_test(test_kinds_and_order),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_overflow_boundary),
        cmocka_unit_test(test_overflow_long),
        cmocka_unit_test(test_stride_prediction_exits),
        cmocka_unit_test(test_stride_mode_is_transparent),
        cmocka_unit_test(test_access_run_is_transparent),
        cmocka_unit_test(test_kind_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
