/*
 * test_objstore.c: the object profile of the trace of test_objects_common.h
 * written into a profile database (objects/objstore.h) and read back row by
 * row: groups with their names and call sites, objects with lifetimes and
 * counts, field heat, instruction x group, threads, samples and the run's
 * totals, all as worked out by hand in the header; a second store of the
 * same trace replaces the rows; a store into a database that fails says so.
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

#include "test_objects_common.h"
#include "objects/objstore.h"
#include "db/profiledb.h"

static char dir[] = "/tmp/test_objstore.XXXXXX";
static char trace[256], dbpath[256];

/* Profiles the trace into db as trace-objects does; returns the run. */
static int64_t store_trace(pdb *db, uint32_t samples, uint32_t depth)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(trace, &err);
    assert_non_null(r);
    mr_event ev;
    pdb_run_info info = {.trace = trace, .command = "prog --fast", .pid = 4242,
                         .started = 1700000000000000ULL};
    int64_t run;
    assert_int_equal(pdb_begin_run(db, "objects", "test", &info, OBJSTORE_TABLES,
                                   &run), 0);
    objstore *s = objstore_new(db, run, r);
    assert_non_null(s);
    objprof_options o = {.group_depth = depth, .samples = samples, .reader = r,
                         .on_object = objstore_object, .ctx = s};
    objprof *p = objprof_new(&o);
    assert_non_null(p);
    int rc;
    while ((rc = mr_next(r, &ev)) > 0)
        assert_int_equal(objprof_event(p, &ev), 0);
    assert_int_equal(rc, 0);
    objprof_finish(p);
    assert_int_equal(objstore_finish(s, p, 7), 0);
    assert_false(objstore_failed(s));
    assert_int_equal(pdb_commit(db), 0);
    objstore_free(s);
    objprof_free(p);
    mr_reader_close(r);
    return run;
}

/* The rows of a query as "a|b|c;a|b|c" (NULL as "-"). */
static char *rows(pdb *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(pdb_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
    static char out[4096];
    size_t used = 0;
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            used += (size_t)snprintf(out + used, sizeof out - used, "%s%s",
                                     c ? "|" : used ? ";" : "", v ? v : "-");
            assert_true(used < sizeof out);
        }
    }
    sqlite3_finalize(st);
    return out;
}

static void check_rows(pdb *db, const char *sql, const char *want)
{
    const char *got = rows(db, sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n  want %s\n  got  %s", sql, want, got);
}

static pdb *fresh_db(void)
{
    unlink(dbpath);
    char *err = NULL;
    pdb *db = pdb_open(dbpath, PDB_CREATE, &err);
    assert_non_null(db);
    return db;
}

static void test_groups(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    store_trace(db, 0, 1);
    check_rows(db, "SELECT serial, kind, name, function, file, line, "
                   "iif(address IS NULL, '-', printf('0x%x', address)), "
                   "stack, objects, accesses, bytes FROM alloc_sites ORDER BY serial",
               "0|static|prog:table|-|-|-|0x600000|-|1|1|4;"
               "1|heap|make_a@a.c:12|make_a|a.c|12|0x402000|make_a@a.c:12|2|4|28;"
               "2|heap|make_b@b.c:20|make_b|b.c|20|0x402100|make_b@b.c:20|1|1|8;"
               "3|unknown|unknown|-|-|-|-|-|0|1|4");
    pdb_close(db);
}

/* At depth 2 the groups are named, and their stacks given, by both frames. */
static void test_depth_names(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    store_trace(db, 0, 2);
    check_rows(db, "SELECT name, stack FROM alloc_sites WHERE kind = 'heap' ORDER BY serial",
               "make_a@a.c:12 <- main@m.c:40|make_a@a.c:12 <- main@m.c:40;"
               "make_b@b.c:20 <- main@m.c:40|make_b@b.c:20 <- main@m.c:40");
    pdb_close(db);
}

static void test_objects(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    store_trace(db, 0, 1);
    check_rows(db, "SELECT s.name, o.serial, o.kind, printf('0x%x', o.address), o.size, "
                   "o.alloc_time, o.free_time, o.tid, o.accesses, o.loads, o.stores, "
                   "o.bytes, o.offsets, o.first_access, o.last_access "
                   "FROM objects o JOIN alloc_sites s ON s.id = o.site ORDER BY o.address",
               "prog:table|0|static|0x600000|64|0|-|-|1|0|1|4|1|3|3;"
               "make_a@a.c:12|0|heap|0x10000000|32|0|5|1|1|1|0|8|1|0|0;"
               "make_a@a.c:12|1|heap|0x10000040|32|0|-|1|3|2|1|20|2|1|5;"
               "make_b@b.c:20|0|heap|0x10001000|100|0|-|1|1|1|1|8|1|4|4");
    check_rows(db, "SELECT s.name, f.offset, f.span, f.loads, f.stores FROM object_offsets f "
                   "JOIN alloc_sites s ON s.id = f.site ORDER BY s.serial, f.offset",
               "prog:table|16|1|0|1;make_a@a.c:12|0|1|0|1;make_a@a.c:12|8|1|3|0;make_b@b.c:20|96|1|1|1");
    pdb_close(db);
}

static void test_instructions_threads_totals(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    store_trace(db, 0, 1);
    check_rows(db, "SELECT printf('0x%x', i.address), i.function, i.file, i.line, i.kind, "
                   "i.size, s.name, g.accesses, g.bytes, g.objects, g.offsets, "
                   "g.first_access, g.last_access FROM instr_groups g "
                   "JOIN instructions i ON i.id = g.instruction "
                   "JOIN alloc_sites s ON s.id = g.site ORDER BY i.address, s.serial",
               "0x401000|walk|w.c|10|load|8|make_a@a.c:12|3|24|2|1|0|5;"
               "0x401004|walk|w.c|11|store|4|prog:table|1|4|1|1|3|3;"
               "0x401004|walk|w.c|11|store|4|make_a@a.c:12|1|4|1|1|1|1;"
               "0x401004|walk|w.c|11|store|4|unknown|1|4|-|-|6|6;"
               "0x401100|bump|b.c|5|modify|8|make_b@b.c:20|1|8|1|1|4|4");
    check_rows(db, "SELECT tid, parent, loads, stores, bytes, heap, static, stack, unknown, "
                   "allocs, first_access, last_access, instructions FROM threads ORDER BY tid",
               /* instructions: thread 1 ran walk twice and bump (2 + 2 + 1),
                * thread 2 walk once */
               "1|-|3|3|32|4|1|0|0|3|0|4|5;2|1|1|1|12|1|0|0|1|0|5|6|2");
    char want[600];
    snprintf(want, sizeof want, "%s|prog --fast|4242|1700000000000000|7|4|4", trace);
    check_rows(db, "SELECT trace, command, pid, started, instructions, loads, stores "
                   "FROM runs", want);
    pdb_close(db);
}

/* Samples: every access of each group with room for them all. */
static void test_samples(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    store_trace(db, 100, 1);
    check_rows(db, "SELECT s.name, a.time, printf('0x%x', i.address), a.object, a.offset, "
                   "a.kind, a.tid FROM access_samples a JOIN alloc_sites s ON s.id = a.site "
                   "JOIN instructions i ON i.id = a.instruction ORDER BY a.time",
               "make_a@a.c:12|0|0x401000|0|8|load|1;make_a@a.c:12|1|0x401004|1|0|store|1;"
               "make_a@a.c:12|2|0x401000|1|8|load|1;prog:table|3|0x401004|0|16|store|1;"
               "make_b@b.c:20|4|0x401100|0|96|modify|1;make_a@a.c:12|5|0x401000|1|8|load|2;"
               "unknown|6|0x401004|0|629145|store|2");
    pdb_close(db);
}

/* Storing the same trace again replaces its rows: same counts, one run. */
static void test_rerun(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    int64_t r1 = store_trace(db, 100, 1);
    static const char counts[] =
        "SELECT (SELECT count(*) FROM alloc_sites), (SELECT count(*) FROM objects), "
        "(SELECT count(*) FROM object_offsets), (SELECT count(*) FROM instr_groups), "
        "(SELECT count(*) FROM threads), (SELECT count(*) FROM access_samples), "
        "(SELECT count(*) FROM instructions), (SELECT count(*) FROM runs)";
    char before[256];
    snprintf(before, sizeof before, "%s", rows(db, counts));
    assert_string_equal(before, "4|4|4|5|2|7|3|1");
    assert_int_equal(store_trace(db, 100, 1), r1);
    check_rows(db, counts, before);
    pdb_close(db);
}

/* A write that fails stops the store and is kept: objstore_finish
 * returns -1 with the database's message, and objstore_failed says so
 * from then on (objects rows go 64 at a time: a failing one is known when
 * its batch is written, here at the end). */
static void test_failure(void **state)
{
    (void)state;
    pdb *db = fresh_db();
    /* a trigger makes every objects row fail */
    assert_int_equal(pdb_exec_sql(db, "CREATE TRIGGER no_objects BEFORE INSERT ON objects "
                                      "BEGIN SELECT RAISE(ABORT, 'objects refused'); END"), 0);
    char *err = NULL;
    mr_reader *r = mr_reader_open(trace, &err);
    assert_non_null(r);
    pdb_run_info info = {.trace = trace};
    int64_t run;
    assert_int_equal(pdb_begin_run(db, "objects", NULL, &info, OBJSTORE_TABLES, &run), 0);
    objstore *s = objstore_new(db, run, r);
    assert_non_null(s);
    objprof_options o = {.group_depth = 1, .reader = r, .on_object = objstore_object,
                         .ctx = s};
    objprof *p = objprof_new(&o);
    mr_event ev;
    while (mr_next(r, &ev) > 0)
        assert_int_equal(objprof_event(p, &ev), 0);
    objprof_finish(p);
    assert_int_equal(objstore_finish(s, p, 7), -1);
    assert_non_null(strstr(pdb_error(db), "objects refused"));
    assert_true(objstore_failed(s));
    pdb_abort(db);
    objstore_free(s);
    objprof_free(p);
    mr_reader_close(r);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(trace, sizeof trace, "%s/t.mr", dir);
    snprintf(dbpath, sizeof dbpath, "%s/p.db", dir);
    write_objects_trace(trace);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace);
    unlink(dbpath);
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_depth_names),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_instructions_threads_totals),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_rerun),
        cmocka_unit_test(test_failure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
