/*
 * test_format_threados.c: the THREAD definition (SPEC.md section 5, op 8):
 * mr_write_thread_os puts "tid, os_tid" into the DEFS chunk, and the
 * reader delivers it as an MR_EV_THREAD of op MR_THREAD_OS, besides
 * exactly the events of the same trace without it.
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
#include <zstd.h>
#include "trace_internal.h"

static const mr_instr_def one_instr[] = { { 0x1000, 4 } };
static const mr_access_def one_load[] = { { 0, MR_LOAD, 0, 8 } };
static const mr_exit_def one_exit[] = { { 1, 1, MR_JUMP_BORING } };

/* A small trace into path: two threads, each executing the one block;
 * with os, each thread's OS thread id is defined first. */
static void write_trace(const char *path, int os)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_block_def b = { .id = 0, .addr = 0x1000, .ninstrs = 1, .instrs = one_instr,
                       .naccesses = 1, .accesses = one_load, .nexits = 1,
                       .exits = one_exit };
    assert_int_equal(mr_write_block_def(w, &b), 0);
    for (uint32_t tid = 1; tid <= 2; tid++) {
        if (os)
            assert_int_equal(mr_write_thread_os(w, tid, 4000000 + tid), 0);
        assert_int_equal(mr_write_thread_switch(w, tid), 0);
        for (uint64_t i = 0; i < 10; i++) {
            uint64_t a = 0x5000 + 8 * i;
            assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), 0);
        }
    }
    mr_end end = { .reason = MR_END_EXIT };
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*n);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* The "tid os_tid" pairs of the THREAD definitions of the trace at path,
 * from its DEFS chunks, into out (at most max); returns how many. */
static int thread_defs(const char *path, uint64_t *out, int max)
{
    size_t n, at = MR_FILE_HEADER_LEN;
    uint8_t *in = slurp(path, &n);
    int found = 0;
    mr_frame f;
    while (at + MR_FRAME_LEN <= n && !mr_frame_decode(in + at, &f) && f.kind != MR_CHUNK_INDEX) {
        if (f.kind == MR_CHUNK_DEFS) {
            uint8_t *raw = malloc(f.raw_size);
            assert_int_equal(ZSTD_decompress(raw, f.raw_size, in + at + MR_FRAME_LEN, f.comp_size),
                             f.raw_size);
            mr_cursor c = { raw, raw + f.raw_size, 0 };
            while (c.p < c.end) {
                uint8_t op = mr_cur_byte(&c);
                uint64_t len = mr_cur_varint(&c);
                mr_cursor body = { c.p, c.p + len, 0 };
                c.p += len;
                if (op == MR_DEF_THREAD && found + 2 <= max) {
                    out[found++] = mr_cur_varint(&body);
                    out[found++] = mr_cur_varint(&body);
                }
            }
            free(raw);
        }
        at += MR_FRAME_LEN + f.comp_size;
    }
    free(in);
    return found / 2;
}

static void test_thread_defs_written(void **state)
{
    (void)state;
    char path[] = "/tmp/memrec-threados-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_trace(path, 1);
    uint64_t pairs[8];
    assert_int_equal(thread_defs(path, pairs, 8), 2);
    assert_int_equal(pairs[0], 1);
    assert_int_equal(pairs[1], 4000001);
    assert_int_equal(pairs[2], 2);
    assert_int_equal(pairs[3], 4000002);
    unlink(path);
}

/* Every event of the trace at path but the OS thread ids, as "kind tid
 * time" lines; those go to os as "tid os_tid" lines. */
static char *events(const char *path, FILE *os)
{
    char *err = NULL, *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) > 0)
        if (ev.kind == MR_EV_THREAD && ev.u.thread.op == MR_THREAD_OS)
            fprintf(os, "%u %llu\n", ev.u.thread.tid, (unsigned long long)ev.u.thread.os_tid);
        else
            fprintf(out, "%d %u %llu\n", ev.kind, ev.tid, (unsigned long long)ev.time);
    assert_int_equal(rc, 0);
    assert_int_equal(mr_reader_truncated(r), 0);
    mr_reader_close(r);
    fclose(out);
    return text;
}

static void test_readers_deliver_them(void **state)
{
    (void)state;
    char with[] = "/tmp/memrec-threados-XXXXXX", without[] = "/tmp/memrec-threados-XXXXXX";
    int a = mkstemp(with), b = mkstemp(without);
    assert_true(a >= 0 && b >= 0);
    close(a);
    close(b);
    write_trace(with, 1);
    write_trace(without, 0);
    char *ids = NULL, *none = NULL;
    size_t nids = 0, nnone = 0;
    FILE *os = open_memstream(&ids, &nids), *os0 = open_memstream(&none, &nnone);
    char *x = events(with, os), *y = events(without, os0);
    fclose(os);
    fclose(os0);
    assert_true(strlen(x) > 40);
    assert_string_equal(x, y);
    assert_string_equal(ids, "1 4000001\n2 4000002\n");
    assert_string_equal(none, "");
    free(x);
    free(y);
    free(ids);
    free(none);
    unlink(with);
    unlink(without);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_defs_written),
        cmocka_unit_test(test_readers_deliver_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
