/*
 * test_info_counts.c: trace-info's counting (info_summary) against the
 * ground truth of synthetic traces of every pattern, written by
 * tools/lib/synth/synth.c through the real writer and read back through the
 * real reader; and on the same traces cut in the middle, where every count
 * must stay within the truth and the reader must report the truncation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "info/info_summary.h"
#include "memrec_trace.h"
#include "synth/synth.h"

static char dir[] = "/tmp/test_info_counts.XXXXXX";

/* Reads path to the end through info_summary; returns mr_next's last
 * result (0 complete, -1 error or truncation). *r is left open. */
static int summarise(const char *path, info_summary *s, mr_reader **r)
{
    char *err = NULL;
    *r = mr_reader_open(path, &err);
    if (!*r)
        print_error("%s: %s\n", path, err ? err : "?");
    assert_non_null(*r);
    info_summary_init(s);
    mr_event ev;
    int rc;
    while ((rc = mr_next(*r, &ev)) > 0)
        info_summary_add(s, &ev);
    return rc;
}

/* Writes a synthetic trace of pattern p in small chunks (so that it has
 * many) and returns its truth. */
static synth_truth write_synth(const char *path, synth_pattern p,
                               uint64_t accesses)
{
    synth_options o = {0};
    o.pattern = p;
    o.accesses = accesses;
    o.seed = 42;
    mr_writer_options wo = { .chunk_bytes = 16384 };
    synth_truth t;
    char *err = NULL;
    if (synth_write_file(path, &o, &wo, &t, &err) != 0)
        print_error("synth: %s\n", err ? err : "?");
    assert_null(err);
    return t;
}

static void expect_truth(const info_summary *s, const synth_truth *t)
{
    assert_int_equal(s->counted.instructions, t->instructions);
    assert_int_equal(s->counted.blocks, t->blocks);
    assert_int_equal(s->counted.loads, t->loads);
    assert_int_equal(s->counted.stores, t->stores);
    assert_int_equal(s->counted.modifies, t->modifies);
    assert_int_equal(s->counted.loads + s->counted.stores + s->counted.modifies,
                     t->accesses);
    assert_int_equal(s->counted.calls, t->calls);
    assert_int_equal(s->counted.returns, t->returns);
    assert_int_equal(s->counted.allocs, t->allocs);
    assert_int_equal(s->counted.frees, t->frees);
    assert_int_equal(s->counted.threads, t->threads);
    assert_int_equal(s->marks, t->marks);
    assert_int_equal(s->values, t->values);
}

/* Every pattern: the counts equal the truth and the end record agrees. */
static void complete_traces(void **state)
{
    (void)state;
    for (int p = 0; p < SYNTH_NPATTERNS; p++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.trace", dir, synth_pattern_name(p));
        synth_truth t = write_synth(path, p, 50000);
        info_summary s;
        mr_reader *r;
        assert_int_equal(summarise(path, &s, &r), 0);
        print_message("# %s: %llu instructions, %llu accesses, %llu chunks\n",
                      synth_pattern_name(p),
                      (unsigned long long)s.counted.instructions,
                      (unsigned long long)t.accesses,
                      (unsigned long long)mr_reader_chunks(r));
        expect_truth(&s, &t);
        assert_int_equal(info_summary_totals_match(&s), 1);
        assert_non_null(s.process);
        assert_non_null(s.end);
        assert_true(s.block_defs > 0);
        assert_true(s.memory_instructions > 0);
        assert_false(mr_reader_truncated(r));
        assert_true(mr_reader_chunks(r) > 1);
        info_summary_free(&s);
        mr_reader_close(r);
    }
}

/* Copies the first n bytes of src to dst. */
static void cut_file(const char *src, const char *dst, long n)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    assert_non_null(in);
    assert_non_null(out);
    for (long i = 0; i < n; i++) {
        int c = getc(in);
        assert_true(c != EOF);
        putc(c, out);
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* A trace cut in the middle: the reader says truncated, the counts are
 * those of the complete chunks before the cut: some, not all. */
static void truncated_traces(void **state)
{
    (void)state;
    char path[256], cut[256];
    snprintf(path, sizeof path, "%s/mixed.trace", dir);
    snprintf(cut, sizeof cut, "%s/cut.trace", dir);
    synth_truth t = write_synth(path, SYNTH_MIXED, 50000);
    cut_file(path, cut, file_size(path) / 2);
    info_summary s;
    mr_reader *r;
    assert_int_equal(summarise(cut, &s, &r), -1);
    assert_true(mr_reader_truncated(r));
    assert_non_null(mr_reader_error(r));
    assert_null(s.end);
    assert_int_equal(info_summary_totals_match(&s), -1);
    assert_true(s.counted.instructions > 0);
    assert_true(s.counted.instructions < t.instructions);
    assert_true(s.counted.loads <= t.loads);
    assert_true(s.counted.stores <= t.stores);
    assert_true(s.counted.modifies <= t.modifies);
    assert_true(mr_reader_chunks(r) > 0);
    info_summary_free(&s);
    mr_reader_close(r);
}

/* A block execution whose guarded access did not happen is counted from
 * its accesses, not from the definition's per-exit counts. */
static void guarded_accesses(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/guarded.trace", dir);
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_instr_def ins[] = {{0x1000, 4}, {0x1004, 4}};
    mr_access_def acc[] = {{0, MR_STORE, MR_ACC_GUARDED, 8},
                           {1, MR_MODIFY, 0, 4}};
    mr_exit_def ex[] = {{2, 2, MR_JUMP_BORING}};
    mr_block_def b = {3, 0x1000, 2, ins, 2, acc, 1, ex};
    assert_int_equal(mr_write_block_def(w, &b), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    uint64_t happened[] = {0x8000, 0x9000}, skipped[] = {0, 0x9000};
    for (int i = 0; i < 10; i++)
        assert_int_equal(mr_write_exec(w, 3, 0, i % 2 ? skipped : happened,
                                       NULL), 0);
    assert_int_equal(mr_writer_close(w, NULL, &err), 0);

    info_summary s;
    mr_reader *r;
    summarise(path, &s, &r);
    assert_int_equal(s.counted.blocks, 10);
    assert_int_equal(s.counted.instructions, 20);
    assert_int_equal(s.counted.stores, 5);
    assert_int_equal(s.counted.modifies, 10);
    assert_int_equal(s.counted.loads, 0);
    assert_int_equal(s.counted.threads, 1);
    assert_int_equal(s.memory_instructions, 2);
    assert_int_equal(s.values, 0);
    info_summary_free(&s);
    mr_reader_close(r);
}

/* A block id defined again with other accesses (as when Valgrind discards
 * a translation and the recorder reuses its id): each execution is counted
 * with the definition in force when it ran. */
static void redefined_block(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/redefined.trace", dir);
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_instr_def ins[] = {{0x1000, 4}};
    mr_access_def loads[] = {{0, MR_LOAD, 0, 8}, {0, MR_LOAD, 0, 8}};
    mr_access_def store[] = {{0, MR_STORE, MR_ACC_VALUE, 8}};
    mr_exit_def two[] = {{1, 2, MR_JUMP_CALL}}, one[] = {{1, 1, MR_JUMP_RET}};
    mr_block_def a = {5, 0x1000, 1, ins, 2, loads, 1, two};
    mr_block_def b = {5, 0x1000, 1, ins, 1, store, 1, one};
    uint64_t addrs[] = {0x8000, 0x8008}, values[] = {7};
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    assert_int_equal(mr_write_block_def(w, &a), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(mr_write_exec(w, 5, 0, addrs, NULL), 0);
    assert_int_equal(mr_write_block_def(w, &b), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(mr_write_exec(w, 5, 0, addrs, values), 0);
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);

    info_summary s;
    mr_reader *r;
    assert_int_equal(summarise(path, &s, &r), 0);
    assert_int_equal(s.block_defs, 2);
    assert_int_equal(s.counted.blocks, 7);
    assert_int_equal(s.counted.loads, 6);
    assert_int_equal(s.counted.stores, 4);
    assert_int_equal(s.values, 4);
    assert_int_equal(s.counted.calls, 3);
    assert_int_equal(s.counted.returns, 4);
    assert_int_equal(s.memory_instructions, 1);
    assert_int_equal(info_summary_totals_match(&s), 1);
    info_summary_free(&s);
    mr_reader_close(r);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(complete_traces),
        cmocka_unit_test(truncated_traces),
        cmocka_unit_test(guarded_accesses),
        cmocka_unit_test(redefined_block),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
