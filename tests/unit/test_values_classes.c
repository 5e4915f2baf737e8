/*
 * test_values_classes.c: the value classes of Zhang's chapter 6 on values
 * made by hand at their boundaries (values/vclass.h), the Space-Saving
 * table of most frequent values (values/topvalues.h), and Figures 6.4 and
 * 6.5 from a hand-filled histogram (values/widths.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "values/topvalues.h"
#include "values/vclass.h"
#include "values/widths.h"

#define FAR 0x7f0012345678ull   /* an address far from every value below, also in its low 32 bits */

/* -16384 and 16383 fit 15 bits, 16384 and -16385 do not: in a 32-bit word
 * (the paper's test, "the 18 higher order bits identical") and in a 64-bit
 * one. */
static void small_boundaries(void **state)
{
    (void)state;
    assert_int_equal(vc_classify(0xffffc000u, FAR, 32, 15), VC_SMALL);   /* -16384 */
    assert_int_equal(vc_classify(16383, FAR, 32, 15), VC_SMALL);
    assert_int_equal(vc_classify(16384, FAR, 32, 15), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_classify(0xffffbfffu, FAR, 32, 15), VC_INCOMPRESSIBLE); /* -16385 */
    assert_int_equal(vc_classify(0, FAR, 32, 15), VC_SMALL);
    assert_int_equal(vc_classify(0xffffffffu, FAR, 32, 15), VC_SMALL);  /* -1 */
    assert_int_equal(vc_classify((uint64_t)-16384, FAR, 64, 15), VC_SMALL);
    assert_int_equal(vc_classify(16383, FAR, 64, 15), VC_SMALL);
    assert_int_equal(vc_classify(16384, FAR, 64, 15), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_classify((uint64_t)-16385, FAR, 64, 15), VC_INCOMPRESSIBLE);
    /* a 32-bit -16384 seen as a 64-bit word is a large positive number */
    assert_int_equal(vc_classify(0xffffc000u, FAR, 64, 15), VC_INCOMPRESSIBLE);
    /* another payload: 7 bits hold -64..63 */
    assert_int_equal(vc_classify(63, FAR, 64, 7), VC_SMALL);
    assert_int_equal(vc_classify(64, FAR, 64, 7), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_classify((uint64_t)-64, FAR, 64, 7), VC_SMALL);
    /* sub-words: every byte fits 15 bits; a 16-bit word by its sign */
    assert_int_equal(vc_classify(0xff, FAR, 8, 15), VC_SMALL);
    assert_int_equal(vc_classify(0xc000, FAR, 16, 15), VC_SMALL);       /* -16384 */
    assert_int_equal(vc_classify(0xbfff, FAR, 16, 15), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_classify(0x4000, FAR, 16, 15), VC_INCOMPRESSIBLE);
    /* a 16-bit word is never a pointer, however close to its address */
    assert_int_equal(vc_classify(0x4000, 0x4010, 16, 15), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_small_bits(16383, 64), 15);
    assert_int_equal(vc_small_bits((uint64_t)-16384, 64), 15);
    assert_int_equal(vc_small_bits(16384, 64), 16);
    assert_int_equal(vc_small_bits(0, 64), 1);
}

/* A pointer compresses when it lies in the 32 KB-aligned region of the
 * address it is stored at: one byte past the region (or before it) it
 * does not; nor does the region's first byte, whose kept bits are 0 (nil). */
static void pointer_boundaries(void **state)
{
    (void)state;
    uint64_t at = 0x20000010;                   /* region 0x20000000..0x20007fff */
    assert_int_equal(vc_classify(0x20007fff, at, 64, 15), VC_POINTER);
    assert_int_equal(vc_classify(0x20000018, at, 64, 15), VC_POINTER);
    assert_int_equal(vc_classify(0x20008000, at, 64, 15), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_classify(0x1fffffff, at, 64, 15), VC_INCOMPRESSIBLE);
    assert_int_equal(vc_classify(0x20000000, at, 64, 15), VC_INCOMPRESSIBLE);
    /* stored at the region's last byte, pointing one byte past it */
    assert_int_equal(vc_classify(0x20008000, 0x20007fff, 64, 15), VC_INCOMPRESSIBLE);
    /* a 64-bit heap pointer near its slot */
    uint64_t heap = 0x55d4c3a21010ull;
    assert_int_equal(vc_classify(heap + 0x40, heap, 64, 15), VC_POINTER);
    assert_int_equal(vc_classify(heap + 0x8000, heap, 64, 15), VC_INCOMPRESSIBLE);
    /* a 32-bit word compares with the low 32 bits of its address */
    assert_int_equal(vc_classify(0x20000020, 0x7fff20000010ull, 32, 15), VC_POINTER);
    assert_int_equal(vc_classify(0x20008020, 0x7fff20000010ull, 32, 15), VC_INCOMPRESSIBLE);
    /* small wins over pointer: a small value near a low address is small */
    assert_int_equal(vc_classify(0x10, 0x20, 64, 15), VC_SMALL);
    assert_int_equal(vc_pointer_bits(0x20007fff, at, 64), 15);
    assert_int_equal(vc_pointer_bits(0x20008000, at, 64), 16);
    assert_int_equal(vc_pointer_bits(at, at, 64), 0);
    /* the fewest bits: the smaller of the two */
    assert_int_equal(vc_need(0x20000018, at, 64), 4);
    assert_int_equal(vc_need(16384, FAR, 64), 16);
    assert_int_equal(vc_need(3, FAR, 32), 3);
}

/* Space-Saving keeps every value seen more than n/k times, counts the
 * table's values exactly until it fills, and a replacement inherits the
 * least count as its error. */
static void top_values(void **state)
{
    (void)state;
    enum { K = 4 };
    topv *t = calloc(1, topv_bytes(K));
    assert_non_null(t);
    for (int i = 0; i < 10; i++)
        topv_add(t, K, 7);
    for (int i = 0; i < 5; i++)
        topv_add(t, K, 9);
    topv_add(t, K, 1);
    topv_add(t, K, 2);          /* table full: 7x10, 9x5, 1x1, 2x1 */
    topv_add(t, K, 3);          /* replaces 1 (least, first): 3 x2, error 1 */
    topv_sort(t, K);
    assert_int_equal(t->n, 4);
    assert_int_equal(topv_get(t, K, 0).value, 7);
    assert_int_equal(topv_get(t, K, 0).count, 10);
    assert_int_equal(topv_get(t, K, 0).error, 0);
    assert_int_equal(topv_get(t, K, 1).value, 9);
    assert_int_equal(topv_get(t, K, 1).count, 5);
    assert_int_equal(topv_get(t, K, 2).value, 3);
    assert_int_equal(topv_get(t, K, 2).count, 2);
    assert_int_equal(topv_get(t, K, 2).error, 1);
    assert_int_equal(topv_get(t, K, 3).value, 2);
    assert_int_equal(topv_get(t, K, 3).count, 1);
    /* after sorting, counting goes on */
    topv_add(t, K, 9);
    topv_add(t, K, 9);
    topv_sort(t, K);
    assert_int_equal(topv_get(t, K, 1).value, 9);
    assert_int_equal(topv_get(t, K, 1).count, 7);
    free(t);
}

/* Many distinct values: the frequent one (more than n/k) stays. */
static void top_values_frequent_survives(void **state)
{
    (void)state;
    enum { K = 4 };
    topv *t = calloc(1, topv_bytes(K));
    assert_non_null(t);
    uint64_t n = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        topv_add(t, K, 1000 + i);               /* each once */
        n++;
        if (i % 2 == 0) {
            topv_add(t, K, 42);                 /* a third of the stream */
            n++;
        }
    }
    topv_sort(t, K);
    assert_int_equal(topv_get(t, K, 0).value, 42);
    assert_true(topv_get(t, K, 0).count >= 500);
    assert_true(topv_get(t, K, 0).count - topv_get(t, K, 0).error <= 500);
    free(t);
}

/* Figure 6.4 and 6.5 by hand: 32-bit words, two needing 3 bits, one
 * needing 16, one needing 32; one 64-bit word needing 15. */
static void widths_by_hand(void **state)
{
    (void)state;
    values_summary s = {0};
    s.need[2][3] = 2;
    s.need[2][16] = 1;
    s.need[2][32] = 1;
    s.need[3][15] = 1;
    values_width w;
    values_width_at(&s, 4, &w);
    assert_int_equal(w.valued, 5);
    assert_int_equal(w.base_bits, 4 * 32 + 64);
    assert_int_equal(w.fitting, 2);
    assert_int_equal(w.bits, 2 * 4 + 2 * 32 + 64);
    values_width_at(&s, 16, &w);
    assert_int_equal(w.fitting, 4);
    assert_int_equal(w.bits, 3 * 16 + 32 + 16);
    values_width_at(&s, 32, &w);            /* as wide as the 32-bit words */
    assert_int_equal(w.fitting, 5);
    assert_int_equal(w.bits, 4 * 32 + 32);
    values_width_at(&s, 64, &w);            /* no saving at all */
    assert_int_equal(w.bits, w.base_bits);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_boundaries),
        cmocka_unit_test(pointer_boundaries),
        cmocka_unit_test(top_values),
        cmocka_unit_test(top_values_frequent_survives),
        cmocka_unit_test(widths_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
