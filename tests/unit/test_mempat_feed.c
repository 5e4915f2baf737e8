/*
 * test_mempat_feed.c: the feed's adaptive batching (mempat/feed.c). A
 * trace of short loops (block 1 runs 20 times in a row at stride 8, then
 * block 0 once at a scattered address) keeps batching on: its batches
 * stand for most accesses. Scattered executions of block 0 alone follow:
 * nothing batches there, and after a window of them batching is off. The
 * patterns are those of a feed that never batches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mempat/feed.h"

#define LOOPS 40000         /* loop runs: 2 or 3 events each when batched,
                             * more than a window (65536 events) in all */
#define LOOP_TRIPS 20
#define SCATTERED 140000    /* block 0 alone: two windows and more */

static const mr_instr_def scatter_instrs[] = {{0x401000, 4}};
static const mr_access_def scatter_acc[] = {{0, MR_LOAD, 0, 8}};
static const mr_instr_def loop_instrs[] = {{0x401100, 4}};
static const mr_access_def loop_acc[] = {{0, MR_LOAD, 0, 8}};
static const mr_exit_def one_exit[] = {{1, 1, MR_JUMP_BORING}};

/* A scattered address: a multiplicative hash of i, 8-aligned. */
static uint64_t scattered(uint64_t i)
{
    return 0x10000000 + ((i * 0x9E3779B97F4A7C15ull) >> 40 << 3);
}

static void write_trace(const char *path)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_block_def b0 = {0, 0x401000, 1, scatter_instrs, 1, scatter_acc, 1, one_exit};
    mr_block_def b1 = {1, 0x401100, 1, loop_instrs, 1, loop_acc, 1, one_exit};
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    uint64_t next = 0x20000000, i = 0;
    for (uint32_t l = 0; l < LOOPS; l++) {
        for (uint32_t t = 0; t < LOOP_TRIPS; t++, next += 8)
            assert_int_equal(mr_write_exec(w, 1, 0, &next, NULL), 0);
        uint64_t a = scattered(i++);
        assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), 0);
    }
    for (uint32_t s = 0; s < SCATTERED; s++) {
        uint64_t a = scattered(i++);
        assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), 0);
    }
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

/* Every line of m, each followed by a newline (malloc'd). */
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

/* Reads path through a new feed, adaptive or never batching; *on_after_loops
 * says whether batching was on when the first scattered-only execution
 * came, *on_at_end whether at the end. The lines (malloc'd). */
static char *read_trace(const char *path, int adaptive, int *on_after_loops,
                        int *on_at_end)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mempat *m = mempat_new(64);
    mempat_feed *f = mempat_feed_new(m);
    assert_non_null(f);
    if (adaptive)
        mempat_feed_batching(f, r);
    mr_event ev;
    uint64_t loop_execs = 0;
    int rc;
    *on_after_loops = -1;
    while ((rc = mr_next(r, &ev)) > 0) {
        if (ev.kind == MR_EV_EXEC && ev.u.exec.def->id == 1)
            loop_execs += ev.u.exec.repeat ? ev.u.exec.repeat : 1;
        else if (ev.kind == MR_EV_EXEC && loop_execs == (uint64_t)LOOPS * LOOP_TRIPS &&
                 *on_after_loops < 0)
            *on_after_loops = mempat_feed_batching_on(f);
        assert_int_equal(mempat_feed_event(f, &ev), 0);
    }
    assert_int_equal(rc, 0);
    *on_at_end = mempat_feed_batching_on(f);
    char *lines = all_lines(m);
    mempat_feed_free(f);
    mempat_free(m);
    mr_reader_close(r);
    return lines;
}

static void test_adaptive_batching(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_mempat_feed.XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.mr", dir);
    write_trace(path);
    int after_loops, at_end, unused;
    char *adaptive = read_trace(path, 1, &after_loops, &at_end);
    assert_int_equal(after_loops, 1);   /* the loops' windows kept it on */
    assert_int_equal(at_end, 0);        /* the scattered ones turned it off */
    char *plain = read_trace(path, 0, &unused, &unused);
    assert_string_equal(adaptive, plain);
    /* both instructions have their line: Str of block 1, block 0 overflowed
     * or complex; the content is test_mempat's, the equality is ours */
    assert_non_null(strstr(adaptive, "R8@401000="));
    assert_non_null(strstr(adaptive, "R8@401100="));
    free(adaptive);
    free(plain);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adaptive_batching),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
