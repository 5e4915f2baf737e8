/*
 * test_objects_common.h: one small hand-written trace for the object
 * profile's tests (test_objprof, test_objstore, test_objreport), with every
 * number the profile must find worked out by hand below, and the loop that
 * feeds it through objprof's public API.
 *
 * Thread 1 allocates A#0 and A#1 (site make_a, a.c:12) and B#0 (site
 * make_b, b.c:20); block 0 (walk: a load of 8 bytes, then a store of 4)
 * and block 1 (bump: a modify of 8 bytes) touch them and the static
 * `table`; A#0 is freed; thread 2 (made by 1) runs block 0 once more, on
 * A#1 and on an address nothing covers. Time t of an access is the
 * instructions executed before it:
 *
 *   t  tid  instruction        address        object  offset
 *   0   1   walk load  8       0x10000008     A#0      8
 *   1   1   walk store 4       0x10000040     A#1      0
 *   2   1   walk load  8       0x10000048     A#1      8
 *   3   1   walk store 4       0x600010       table   16
 *   4   1   bump modify 8      0x10001060     B#0     96
 *            (free A#0)
 *   5   2   walk load  8       0x10000048     A#1      8
 *   6   2   walk store 4       0x99999        unknown
 *
 * So: 7 accesses, 4 loads and 4 stores (the modify is both). Group A:
 * 4 accesses (3 loads, 1 store), 28 bytes, 2 objects, offset 8 loaded 3
 * times and offset 0 stored once; B: 1 access (a load and a store) of 8
 * bytes; table: 1 store of 4 bytes; unknown: 1 store of 4 bytes.
 */
#ifndef TEST_OBJECTS_COMMON_H
#define TEST_OBJECTS_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include "memrec_trace.h"
#include "objects/objprof.h"

#define SITE_A 0x402000ull
#define SITE_B 0x402100ull
#define OBJ_A0 0x10000000ull
#define OBJ_A1 0x10000040ull
#define OBJ_B0 0x10001000ull
#define TABLE  0x600000ull
#define NOWHERE 0x99999ull

static const mr_instr_def walk_instrs[] = {{0x401000, 4}, {0x401004, 4}};
static const mr_access_def walk_acc[] = {{0, MR_LOAD, 0, 8}, {1, MR_STORE, 0, 4}};
static const mr_exit_def walk_exits[] = {{2, 2, MR_JUMP_BORING}};
static const mr_instr_def bump_instrs[] = {{0x401100, 4}};
static const mr_access_def bump_acc[] = {{0, MR_MODIFY, 0, 8}};
static const mr_exit_def bump_exits[] = {{1, 1, MR_JUMP_BORING}};

/* Writes the trace above to path. (Unused by tests with their own trace.) */
__attribute__((unused))
static void write_objects_trace(const char *path)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"prog", "--fast"};
    mr_process p = {4242, 1, 1700000000000000ULL, "/bin/prog", 2, argv, ""};
    mr_module m = {0, "/bin/prog", 0x400000, 0x10000, 0};
    assert_int_equal(mr_write_process(w, &p), 0);
    assert_int_equal(mr_write_module(w, &m), 0);
    mr_symbol syms[] = {
        {0x401000, "walk", "w.c", 10}, {0x401004, "walk", "w.c", 11},
        {0x401100, "bump", "b.c", 5},
        /* the call instructions: frames are return addresses after them */
        {SITE_A - 5, "make_a", "a.c", 12}, {SITE_B - 5, "make_b", "b.c", 20},
        {0x403000 - 5, "main", "m.c", 40},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        assert_int_equal(mr_write_symbol(w, &syms[i]), 0);
    mr_dataobj table = {"table", TABLE, 64, 0};
    assert_int_equal(mr_write_dataobj(w, &table), 0);
    uint64_t ips_a[] = {SITE_A, 0x403000}, ips_b[] = {SITE_B, 0x403000};
    mr_stack sa = {1, 2, ips_a}, sb = {2, 2, ips_b};
    assert_int_equal(mr_write_stack(w, &sa), 0);
    assert_int_equal(mr_write_stack(w, &sb), 0);
    mr_block_def walk = {0, 0x401000, 2, walk_instrs, 2, walk_acc, 1, walk_exits};
    mr_block_def bump = {1, 0x401100, 1, bump_instrs, 1, bump_acc, 1, bump_exits};
    assert_int_equal(mr_write_block_def(w, &walk), 0);
    assert_int_equal(mr_write_block_def(w, &bump), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    mr_heap h = {MR_MALLOC, OBJ_A0, 32, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    h = (mr_heap){MR_MALLOC, OBJ_A1, 32, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    h = (mr_heap){MR_MALLOC, OBJ_B0, 100, 0, 0, 2};
    assert_int_equal(mr_write_heap(w, &h), 0);
    uint64_t e1[] = {OBJ_A0 + 8, OBJ_A1};
    assert_int_equal(mr_write_exec(w, 0, 0, e1, NULL), 0);
    uint64_t e2[] = {OBJ_A1 + 8, TABLE + 16};
    assert_int_equal(mr_write_exec(w, 0, 0, e2, NULL), 0);
    uint64_t e3[] = {OBJ_B0 + 96};
    assert_int_equal(mr_write_exec(w, 1, 0, e3, NULL), 0);
    h = (mr_heap){MR_FREE, OBJ_A0, 0, 0, 0, 0};
    assert_int_equal(mr_write_heap(w, &h), 0);
    assert_int_equal(mr_write_thread_create(w, 1, 2), 0);
    assert_int_equal(mr_write_thread_switch(w, 2), 0);
    uint64_t e4[] = {OBJ_A1 + 8, NOWHERE};
    assert_int_equal(mr_write_exec(w, 0, 0, e4, NULL), 0);
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

/* The shared trace of a test program: written once by objects_setup into
 * a directory of its own, removed by objects_teardown (cmocka group
 * fixtures). */
static char objects_dir[] = "/tmp/test_objects.XXXXXX";
static char objects_path[256];

static inline int objects_setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(objects_dir));
    snprintf(objects_path, sizeof objects_path, "%s/t.mr", objects_dir);
    write_objects_trace(objects_path);
    return 0;
}

static inline int objects_teardown(void **state)
{
    (void)state;
    unlink(objects_path);
    rmdir(objects_dir);
    return 0;
}

/* Opens path, feeds every event to a new profile with opts (its reader
 * set here) and finishes it. The reader is handed back for symbols.
 * (Unused by the tests that drive objprof themselves.) */
__attribute__((unused))
static objprof *profile_trace(const char *path, objprof_options opts,
                              mr_reader **reader)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    opts.reader = r;
    objprof *p = objprof_new(&opts);
    assert_non_null(p);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) > 0)
        assert_int_equal(objprof_event(p, &ev), 0);
    assert_int_equal(rc, 0);
    objprof_finish(p);
    *reader = r;
    return p;
}

#endif
