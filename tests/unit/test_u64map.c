/*
 * test_u64map.c: the hash map behind trace-info's and trace-dump's
 * per-definition caches and sets: key 0 is a key like any other, values
 * survive growth, sets count each key once, and a large random key set
 * agrees with a sorted array.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/u64map.h"

static void empty_map(void **state)
{
    (void)state;
    u64map m;
    u64map_init(&m);
    assert_null(u64map_get(&m, 0));
    assert_null(u64map_get(&m, 12345));
    assert_int_equal(m.count, 0);
    u64map_free(&m);
}

static void key_zero_and_growth(void **state)
{
    (void)state;
    u64map m = {0};
    int added;
    void **slot = u64map_slot_of(&m, 0, &added);
    assert_non_null(slot);
    assert_true(added);
    assert_null(*slot);
    *slot = &m;
    /* Enough keys to double the table several times. */
    static int values[5000];
    for (int i = 1; i < 5000; i++) {
        slot = u64map_slot_of(&m, (uint64_t)i * 64, &added);
        assert_true(added);
        *slot = &values[i];
    }
    assert_int_equal(m.count, 5000);
    assert_ptr_equal(u64map_get(&m, 0), &m);
    for (int i = 1; i < 5000; i++)
        assert_ptr_equal(u64map_get(&m, (uint64_t)i * 64), &values[i]);
    assert_null(u64map_get(&m, 65));
    /* Asking again finds the same slot. */
    slot = u64map_slot_of(&m, 64 * 7, &added);
    assert_false(added);
    assert_ptr_equal(*slot, &values[7]);
    assert_int_equal(m.count, 5000);
    u64map_free(&m);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Random keys with repeats: the set's count is the number of distinct
 * keys, and u64set_add says "new" exactly once per key. */
static void set_against_sorting(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint64_t keys[N];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < N; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* xorshift64 */
        keys[i] = (x % 3000) * 0x1000 + (i % 2 ? UINT64_MAX - 4096 * 4096 : 0);
    }
    u64map m = {0};
    int fresh = 0;
    for (int i = 0; i < N; i++) {
        int r = u64set_add(&m, keys[i]);
        assert_true(r == 0 || r == 1);
        fresh += r;
    }
    qsort(keys, N, sizeof keys[0], cmp_u64);
    int distinct = 0;
    for (int i = 0; i < N; i++)
        distinct += i == 0 || keys[i] != keys[i - 1];
    assert_int_equal(fresh, distinct);
    assert_int_equal(m.count, distinct);
    u64map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_map),
        cmocka_unit_test(key_zero_and_growth),
        cmocka_unit_test(set_against_sorting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
