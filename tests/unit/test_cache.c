/*
 * test_cache.c: the cache hierarchy of algo/cache.h on sequences computed
 * by hand: conflict misses in a 2-way set, LRU against tree pseudo-LRU and
 * random, a straddling access (native and Cachegrind conventions),
 * write-allocate, inclusive eviction, latencies of a preset, and bad
 * geometry rejected with one-line messages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "algo/cache.h"
#include "algo/cache_config.h"

/* A level for the tests. */
static cache_level_config lvl(const char *name, uint64_t size, uint32_t assoc,
                              uint32_t line, uint32_t latency, int policy)
{
    cache_level_config l = { .size = size, .assoc = assoc, .line = line,
                             .latency = latency, .policy = (uint8_t)policy };
    snprintf(l.name, sizeof l.name, "%s", name);
    return l;
}

static cache_sim *one_level(uint64_t size, uint32_t assoc, int policy)
{
    cache_config cfg = { .nlevels = 1, .memory_latency = 100 };
    cfg.level[0] = lvl("D1", size, assoc, 64, 1, policy);
    cache_sim *c = cache_new(&cfg);
    assert_non_null(c);
    return c;
}

/* 256 bytes, 2-way, 64 B lines: 2 sets; lines 0, 2, 4 (addresses 0, 128,
 * 256) all fall in set 0. MRU-first contents after each access:
 * A [A]  B [B A]  A hit [A B]  C evicts B [C A]  B evicts A [B C]
 * A evicts C [A B]  C evicts B [C A]. */
static void conflict_misses_in_a_2way_set(void **state)
{
    (void)state;
    cache_sim *c = one_level(256, 2, CACHE_LRU);
    const uint64_t seq[] = { 0, 128, 0, 256, 128, 0, 256 };
    const unsigned want[] = { 1, 1, 0, 1, 1, 1, 1 };   /* 1: memory */
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++)
        assert_int_equal(cache_access(c, seq[i], 4, CACHE_READ), want[i]);
    const cache_level_stats *st = cache_stats(c, 0);
    assert_int_equal(st->accesses[CACHE_READ], 7);
    assert_int_equal(st->misses[CACHE_READ], 6);
    assert_int_equal(st->evictions, 4);
    /* set 1 was never touched: line 1 (address 64) is a cold miss */
    assert_int_equal(cache_access(c, 64, 4, CACHE_READ), 1);
    assert_int_equal(cache_access(c, 64, 4, CACHE_READ), 0);
    cache_free(c);
}

/* One 4-way set. A B C D fill ways 0..3; then A B C. LRU's victim is D;
 * tree PLRU's bits after A, B, C point left at the root and, below, away
 * from B: the victim is A. E then lands on D (LRU) or A (PLRU). */
static void lru_against_plru(void **state)
{
    (void)state;
    const uint64_t A = 0, B = 64, C = 128, D = 192, E = 256;
    const uint64_t seq[] = { A, B, C, D, A, B, C, E };
    cache_sim *lru = one_level(256, 4, CACHE_LRU);
    cache_sim *plru = one_level(256, 4, CACHE_PLRU);
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        cache_access(lru, seq[i], 8, CACHE_READ);
        cache_access(plru, seq[i], 8, CACHE_READ);
    }
    assert_true(cache_holds(lru, 0, A));
    assert_false(cache_holds(lru, 0, D));
    assert_false(cache_holds(plru, 0, A));
    assert_true(cache_holds(plru, 0, D));
    /* so A now hits under LRU only */
    assert_int_equal(cache_access(lru, A, 8, CACHE_READ), 0);
    assert_int_equal(cache_access(plru, A, 8, CACHE_READ), 1);
    cache_free(lru);
    cache_free(plru);
}

/* Random replacement fills invalid ways first, evicts exactly one line on
 * a conflict, and repeats itself run after run (a fixed seed). */
static void random_policy(void **state)
{
    (void)state;
    cache_sim *a = one_level(256, 4, CACHE_RANDOM);
    cache_sim *b = one_level(256, 4, CACHE_RANDOM);
    for (uint64_t x = 0; x < 256; x += 64)
        assert_int_equal(cache_access(a, x, 8, CACHE_READ), 1);
    for (uint64_t x = 0; x < 256; x += 64)
        assert_int_equal(cache_access(a, x, 8, CACHE_READ), 0);
    cache_access(a, 256, 8, CACHE_READ);
    int held = 0;
    for (uint64_t x = 0; x < 256; x += 64)
        held += cache_holds(a, 0, x);
    assert_int_equal(held, 3);
    cache_reset(a);
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t x = (i * 7919 % 13) * 64;
        assert_int_equal(cache_access(a, x, 8, CACHE_READ),
                         cache_access(b, x, 8, CACHE_READ));
    }
    cache_free(a);
    cache_free(b);
}

/* D1 256 B 2-way (2 sets), L2 1 KiB 4-way, 64 B lines. An 8-byte access at
 * 60 touches lines 0 and 1: one access, one miss per level; served by
 * memory. After line 1 alone leaves D1 (lines 3 and 5 share its set) the
 * same access is one D1 miss served by L2. */
static void straddling_access(void **state)
{
    (void)state;
    cache_config cfg = { .nlevels = 2, .memory_latency = 100 };
    cfg.level[0] = lvl("D1", 256, 2, 64, 1, CACHE_LRU);
    cfg.level[1] = lvl("L2", 1024, 4, 64, 10, CACHE_LRU);
    cache_sim *c = cache_new(&cfg);
    assert_non_null(c);
    assert_int_equal(cache_access(c, 60, 8, CACHE_READ), 2);
    assert_int_equal(cache_stats(c, 0)->accesses[CACHE_READ], 1);
    assert_int_equal(cache_stats(c, 0)->misses[CACHE_READ], 1);
    assert_int_equal(cache_stats(c, 1)->accesses[CACHE_READ], 1);
    assert_int_equal(cache_stats(c, 1)->misses[CACHE_READ], 1);
    assert_true(cache_holds(c, 0, 0) && cache_holds(c, 0, 64));
    assert_int_equal(cache_access(c, 60, 8, CACHE_READ), 0);
    cache_access(c, 192, 4, CACHE_READ);
    cache_access(c, 320, 4, CACHE_READ);
    assert_true(cache_holds(c, 0, 0));
    assert_false(cache_holds(c, 0, 64));
    assert_int_equal(cache_access(c, 60, 8, CACHE_READ), 1);
    assert_int_equal(cache_latency(c, 1), 10);
    assert_int_equal(cache_stats(c, 0)->misses[CACHE_READ], 4);
    assert_int_equal(cache_stats(c, 1)->accesses[CACHE_READ], 4);
    assert_int_equal(cache_stats(c, 1)->misses[CACHE_READ], 3);
    cache_free(c);
}

/* Cachegrind's convention: on an L1 miss the whole access goes to LL,
 * both lines of a straddling one even when only one missed L1. D1 256 B
 * 2-way (2 sets), LL one set of 2 lines. The straddle at 60 brings lines
 * 0 and 1 in; lines 3 and 5 (D1 set 1) push line 1 out of D1 and lines 0
 * and 1 out of LL. The straddle again misses D1 in line 1 only:
 * Cachegrind asks LL for lines 0 and 1 (LL ends up holding line 0); the
 * native model asks for line 1 alone (LL holds 1 and 5). */
static void cachegrind_straddle(void **state)
{
    (void)state;
    for (int cg = 0; cg <= 1; cg++) {
        cache_config cfg = { .nlevels = 2, .memory_latency = 100,
                             .cachegrind = cg };
        cfg.i1 = lvl("I1", 256, 2, 64, 1, CACHE_LRU);
        cfg.level[0] = lvl("D1", 256, 2, 64, 1, CACHE_LRU);
        cfg.level[1] = lvl("LL", 128, 2, 64, 10, CACHE_LRU);
        cache_sim *c = cache_new(&cfg);
        assert_non_null(c);
        assert_int_equal(cache_access(c, 60, 8, CACHE_WRITE), 2);
        assert_int_equal(cache_stats(c, 0)->misses[CACHE_WRITE], 1);
        assert_int_equal(cache_stats(c, 1)->misses[CACHE_WRITE], 1);
        cache_access(c, 192, 4, CACHE_READ);
        cache_access(c, 320, 4, CACHE_READ);
        assert_true(cache_holds(c, 0, 0));
        assert_false(cache_holds(c, 0, 64));
        assert_int_equal(cache_access(c, 60, 8, CACHE_READ), 2);
        assert_int_equal(cache_holds(c, 1, 0), cg);
        assert_true(cache_holds(c, 1, 64));
        assert_int_equal(cache_holds(c, 1, 320), !cg);
        /* one LL miss per access, however many lines missed */
        assert_int_equal(cache_stats(c, 1)->misses[CACHE_READ], 3);
        /* instruction fetches go to I1 then the shared LL */
        assert_int_equal(cache_fetch(c, 4096, 4), 2);
        assert_int_equal(cache_fetch(c, 4096, 4), 0);
        assert_int_equal(cache_i1_stats(c)->misses[CACHE_FETCH], 1);
        assert_int_equal(cache_stats(c, 1)->misses[CACHE_FETCH], 1);
        cache_free(c);
    }
    /* Cachegrind's data sizes are cut to the smallest line: a 128-byte
     * access with 64-byte lines is one line */
    cache_config cfg = { .nlevels = 2, .memory_latency = 100, .cachegrind = 1 };
    cfg.i1 = lvl("I1", 256, 2, 64, 1, CACHE_LRU);
    cfg.level[0] = lvl("D1", 256, 2, 64, 1, CACHE_LRU);
    cfg.level[1] = lvl("LL", 1024, 2, 64, 10, CACHE_LRU);
    cache_sim *c = cache_new(&cfg);
    assert_non_null(c);
    cache_access(c, 0, 128, CACHE_READ);
    assert_true(cache_holds(c, 0, 0));
    assert_false(cache_holds(c, 0, 64));
    cache_free(c);
    /* Cachegrind mode refuses what Cachegrind cannot do */
    char buf[160];
    cfg.level[1].policy = CACHE_PLRU;
    assert_non_null(cache_config_check(&cfg, buf, sizeof buf));
    cfg.level[1].policy = CACHE_LRU;
    cfg.i1.size = 0;
    assert_non_null(cache_config_check(&cfg, buf, sizeof buf));
}

/* A store that misses allocates: the load after it hits. */
static void write_allocate(void **state)
{
    (void)state;
    cache_sim *c = one_level(1024, 2, CACHE_LRU);
    assert_int_equal(cache_access(c, 1000, 4, CACHE_WRITE), 1);
    assert_int_equal(cache_access(c, 1000, 4, CACHE_READ), 0);
    assert_int_equal(cache_access(c, 1020, 4, CACHE_READ), 0);
    const cache_level_stats *st = cache_stats(c, 0);
    assert_int_equal(st->misses[CACHE_WRITE], 1);
    assert_int_equal(st->accesses[CACHE_READ], 2);
    assert_int_equal(st->misses[CACHE_READ], 0);
    cache_free(c);
}

/* D1 one set of 2 ways; L2 direct-mapped with 2 sets, so lines 0 and 2
 * conflict in L2 but both fit in D1. Loading line 2 evicts line 0 from L2;
 * inclusive, D1 loses it too and the next access to it goes to memory. */
static void inclusive_eviction(void **state)
{
    (void)state;
    for (int inclusive = 0; inclusive <= 1; inclusive++) {
        cache_config cfg = { .nlevels = 2, .memory_latency = 100,
                             .inclusive = inclusive };
        cfg.level[0] = lvl("D1", 128, 2, 64, 1, CACHE_LRU);
        cfg.level[1] = lvl("L2", 128, 1, 64, 10, CACHE_LRU);
        cache_sim *c = cache_new(&cfg);
        assert_non_null(c);
        assert_int_equal(cache_access(c, 0, 8, CACHE_READ), 2);
        assert_int_equal(cache_access(c, 128, 8, CACHE_READ), 2);
        assert_false(cache_holds(c, 1, 0));
        assert_int_equal(cache_holds(c, 0, 0), !inclusive);
        assert_int_equal(cache_stats(c, 0)->back_invalidations, inclusive);
        assert_int_equal(cache_access(c, 0, 8, CACHE_READ), inclusive ? 2 : 0);
        cache_free(c);
    }
}

/* The RDS preset: Table 1's latencies by serving level. */
static void rds_preset_latencies(void **state)
{
    (void)state;
    cache_config cfg;
    char err[160];
    assert_int_equal(cache_preset("rds", &cfg, err, sizeof err), 0);
    cache_sim *c = cache_new(&cfg);
    assert_non_null(c);
    unsigned lv = cache_access(c, 4096, 8, CACHE_READ);
    assert_int_equal(lv, 3);
    assert_int_equal(cache_latency(c, lv), 100);
    assert_int_equal(cache_latency(c, cache_access(c, 4096, 8, CACHE_READ)), 1);
    assert_int_equal(cache_latency(c, 1), 6);
    assert_int_equal(cache_latency(c, 2), 13);
    cache_free(c);
    assert_int_equal(cache_preset("lwptool", &cfg, err, sizeof err), 0);
    assert_null(cache_config_check(&cfg, err, sizeof err));
    assert_int_equal(cfg.level[2].size, 20u << 20);
    assert_int_equal(cache_preset("nosuch", &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "nosuch"));
}

/* Each bad geometry gets its own one-line message. */
static void bad_geometry(void **state)
{
    (void)state;
    static const struct { const char *spec, *says; } cases[] = {
        { "32768,8,48", "not a power of two" },
        { "384,2,64", "set count 3" },
        { "256,8,64", "associativity 8 is larger than the 4 lines" },
        { "1000,2,64", "not a multiple" },
        { "32768,0,64", "at least 1" },
        { "32768,8", "expected size,assoc,line" },
        { "32768,8,64,4,fifo", "not a valid cache level" },
        { "x,8,64", "not a valid cache level" },
        { "24576,6,64,4,plru", "pseudo-LRU" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cache_level_config lc;
        char err[200] = "";
        assert_int_equal(cache_parse_level("D1", cases[i].spec, 0, &lc, err,
                                           sizeof err), -1);
        if (!strstr(err, cases[i].says))
            fail_msg("%s: '%s' lacks '%s'", cases[i].spec, err, cases[i].says);
        assert_null(strchr(err, '\n'));
    }
    /* line sizes must not shrink going down */
    cache_config cfg = { .nlevels = 2 };
    cfg.level[0] = lvl("D1", 32768, 8, 128, 4, CACHE_LRU);
    cfg.level[1] = lvl("L2", 262144, 8, 64, 12, CACHE_LRU);
    char err[160];
    assert_non_null(cache_config_check(&cfg, err, sizeof err));
    assert_null(cache_new(&cfg));
}

/* Options build hierarchies by name: L2 goes after D1, LL replaces the
 * last level; a 12-way 1.5 MiB level is fine (sets are what must be a
 * power of two). */
static void options_by_name(void **state)
{
    (void)state;
    cache_config cfg = { .memory_latency = 100 };
    char err[200];
    assert_int_equal(cache_config_set(&cfg, "D1", "32768,8,64", err, sizeof err), 0);
    assert_int_equal(cache_config_set(&cfg, "LL", "1536K,12,128,13", err, sizeof err), 0);
    assert_int_equal(cache_config_set(&cfg, "L2", "262144,8,64", err, sizeof err), 0);
    assert_int_equal(cfg.nlevels, 3);
    assert_string_equal(cfg.level[1].name, "L2");
    assert_string_equal(cfg.level[2].name, "LL");
    assert_int_equal(cfg.level[2].size, 1536 << 10);
    assert_int_equal(cfg.level[2].latency, 13);
    assert_int_equal(cfg.level[1].latency, CACHE_DEFAULT_L2_LATENCY);
    assert_null(cache_config_check(&cfg, err, sizeof err));
    assert_int_equal(cache_config_set(&cfg, "L9", "32768,8,64", err, sizeof err), -1);
    cache_config_cachegrind(&cfg);
    assert_int_equal(cfg.nlevels, 2);
    assert_string_equal(cfg.level[1].name, "LL");
    assert_int_equal(cfg.level[1].size, 1536 << 10);
    assert_null(cache_config_check(&cfg, err, sizeof err));
}

/* The host preset from a sysfs-shaped directory of our own. */
static void write_file(const char *dir, const char *index, const char *name,
                       const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, index);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/%s", dir, index, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void sysfs_preset(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_cache_sysfsXXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *rows[][6] = {
        { "index0", "1", "Data", "48K", "12", "64" },
        { "index1", "1", "Instruction", "32K", "8", "64" },
        { "index2", "2", "Unified", "1024K", "16", "64" },
        { "index3", "3", "Unified", "32768K", "16", "64" },
    };
    for (int i = 0; i < 4; i++) {
        write_file(dir, rows[i][0], "level", rows[i][1]);
        write_file(dir, rows[i][0], "type", rows[i][2]);
        write_file(dir, rows[i][0], "size", rows[i][3]);
        write_file(dir, rows[i][0], "ways_of_associativity", rows[i][4]);
        write_file(dir, rows[i][0], "coherency_line_size", rows[i][5]);
    }
    cache_config cfg;
    char err[300];
    assert_int_equal(cache_preset_sysfs(dir, &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.nlevels, 3);
    assert_int_equal(cfg.level[0].size, 48 << 10);
    assert_int_equal(cfg.level[0].assoc, 12);
    assert_int_equal(cfg.i1.size, 32 << 10);
    assert_int_equal(cfg.level[2].size, 32 << 20);
    /* a level with 3 sets is refused with the directory named */
    write_file(dir, "index2", "size", "1536K");
    write_file(dir, "index2", "ways_of_associativity", "8");
    assert_int_equal(cache_preset_sysfs(dir, &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "set count 3"));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(cache_preset_sysfs("/nonexistent", &cfg, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conflict_misses_in_a_2way_set),
        cmocka_unit_test(lru_against_plru),
        cmocka_unit_test(random_policy),
        cmocka_unit_test(straddling_access),
        cmocka_unit_test(cachegrind_straddle),
        cmocka_unit_test(write_allocate),
        cmocka_unit_test(inclusive_eviction),
        cmocka_unit_test(rds_preset_latencies),
        cmocka_unit_test(bad_geometry),
        cmocka_unit_test(options_by_name),
        cmocka_unit_test(sysfs_preset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
