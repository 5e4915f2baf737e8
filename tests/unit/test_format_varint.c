/*
 * test_format_varint.c: the library's small encodings against a plain
 * reference: LEB128 varints at every length boundary (the inline encoder
 * and both decoders), zigzag, over-long encodings rejected, CRC-32 check
 * value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "trace_internal.h"

/* The obvious byte-at-a-time LEB128 encoder. */
static size_t ref_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static void check_value(uint64_t v)
{
    uint8_t buf[32], ref[16];
    memset(buf, 0xaa, sizeof buf);
    size_t n = ref_put(ref, v);
    uint8_t *end = mr_put_varint(buf, v);
    assert_int_equal((size_t)(end - buf), n);
    assert_memory_equal(buf, ref, n);
    const uint8_t *p = buf;
    int bad = 0;
    assert_true(mr_get_varint(&p, &bad) == v);
    assert_int_equal(bad, 0);
    assert_ptr_equal(p, end);
    mr_cursor c = { buf, buf + n, 0 };
    assert_true(mr_cur_varint(&c) == v);
    assert_int_equal(c.bad, 0);
    assert_ptr_equal(c.p, c.end);
    /* One byte short is an overrun for the bounded cursor. */
    mr_cursor s = { buf, buf + n - 1, 0 };
    mr_cur_varint(&s);
    assert_int_equal(s.bad, 1);
}

static void test_varint_boundaries(void **state)
{
    (void)state;
    for (int shift = 0; shift < 64; shift++)
        for (int d = -2; d <= 2; d++)
            check_value((1ULL << shift) + (uint64_t)(int64_t)d);
    check_value(0);
    check_value(UINT64_MAX);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        check_value(x >> (x & 63));
    }
}

static void test_varint_overlong(void **state)
{
    (void)state;
    uint8_t eleven[MR_PAD + 16];
    memset(eleven, 0x80, sizeof eleven);   /* never ends */
    const uint8_t *p = eleven;
    int bad = 0;
    mr_get_varint(&p, &bad);
    assert_int_equal(bad, 1);
    mr_cursor c = { eleven, eleven + sizeof eleven, 0 };
    mr_cur_varint(&c);
    assert_int_equal(c.bad, 1);
    /* A 10th byte above 1 overflows 64 bits. */
    uint8_t over[MR_PAD + 10];
    memset(over, 0xff, 9);
    over[9] = 0x02;
    p = over;
    bad = 0;
    mr_get_varint(&p, &bad);
    assert_int_equal(bad, 1);
}

static void test_zigzag(void **state)
{
    (void)state;
    assert_int_equal(mr_zigzag(0), 0);
    assert_int_equal(mr_zigzag(-1), 1);
    assert_int_equal(mr_zigzag(1), 2);
    assert_int_equal(mr_zigzag(-2), 3);
    assert_true(mr_zigzag(INT64_MIN) == UINT64_MAX);
    for (int64_t v = -100000; v <= 100000; v += 7)
        assert_true(mr_unzigzag(mr_zigzag(v)) == v);
    assert_true(mr_unzigzag(mr_zigzag(INT64_MAX)) == INT64_MAX);
}

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(mr_crc32("123456789", 9), 0xCBF43926u);
    assert_int_equal(mr_crc32("", 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_boundaries),
        cmocka_unit_test(test_varint_overlong),
        cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_crc32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
