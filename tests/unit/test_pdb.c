/*
 * test_pdb.c: the profile database API: creation with the schema, the
 * schema version, runs found again by trace and process identity, shared
 * instruction rows, re-runs replacing only their own analysis's rows,
 * rollback leaving the file byte for byte as it was, read-only and newer
 * files refused, deleting a run.
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

#include "db/profiledb.h"
#include "db/sql_embedded.h"

static char dir[] = "/tmp/test_pdb.XXXXXX";
static char path[256];

static const char *const objects_tables[] = {"alloc_sites", NULL};
static const char *const mempat_tables[] = {"mempat", NULL};

static int64_t count(pdb *db, const char *sql)
{
    sqlite3_stmt *st = pdb_prepare(db, sql);
    assert_non_null(st);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return n;
}

static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n ? n : 1);
    assert_int_equal(fread(buf, 1, n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static pdb *open_new(void)
{
    unlink(path);
    char *err = NULL;
    pdb *db = pdb_open(path, PDB_CREATE, &err);
    if (!db)
        print_error("%s\n", err);
    assert_non_null(db);
    return db;
}

static const pdb_run_info trace_a = {"/tmp/a.mr", "prog a", 10, 1000};
static const pdb_run_info trace_b = {"/tmp/b.mr", "prog b", 11, 2000};

/* One analysis run: rows in alloc_sites (objects) or mempat. */
static int64_t fill(pdb *db, const pdb_run_info *t, const char *analysis,
                    int rows)
{
    int64_t run, insn;
    int objects = strcmp(analysis, "objects") == 0;
    assert_int_equal(pdb_begin_run(db, analysis, "test", t,
                                   objects ? objects_tables : mempat_tables, &run), 0);
    for (int i = 0; i < rows; i++) {
        assert_int_equal(pdb_instruction(db, run, 0x400000 + i, "f", "f.c",
                                         (uint32_t)i + 1, "load", 8, &insn), 0);
        sqlite3_stmt *st = pdb_prepare(db, objects
            ? "INSERT INTO alloc_sites (run, serial, kind, name) VALUES (?, ?, 'heap', 'f:1')"
            : "INSERT INTO mempat VALUES (?, ?, 'Fix:[8x1]', 'Fix', 1, 0)");
        assert_non_null(st);
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_int64(st, 2, objects ? i : insn);
        assert_int_equal(pdb_exec(db, st), 0);
    }
    assert_int_equal(pdb_set_totals(db, run, 100, 20, 10), 0);
    assert_int_equal(pdb_commit(db), 0);
    return run;
}

static void test_schema_version(void **state)
{
    (void)state;
    pdb *db = open_new();
    assert_int_equal(count(db, "PRAGMA user_version"), PDB_SCHEMA_VERSION);
    /* schema.sql states the same version as the header */
    char want[64];
    snprintf(want, sizeof want, "PRAGMA user_version = %d;", PDB_SCHEMA_VERSION);
    assert_non_null(strstr(mr_sql_schema, want));
    /* every table of the issue is there */
    const char *tables[] = {"runs", "instructions", "alloc_sites", "objects",
                            "object_offsets", "instr_groups", "threads",
                            "mempat", "analyses", "access_samples"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char sql[128];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM sqlite_master WHERE name = '%s'", tables[i]);
        assert_int_equal(count(db, sql), 1);
    }
    pdb_close(db);
}

static void test_runs_and_reruns(void **state)
{
    (void)state;
    pdb *db = open_new();
    int64_t r1 = fill(db, &trace_a, "objects", 3);
    int64_t r2 = fill(db, &trace_b, "objects", 2);
    assert_true(r1 != r2);
    int64_t r1m = fill(db, &trace_a, "mempat", 3);
    assert_int_equal(r1m, r1);      /* same trace and process: same run */
    /* instructions are shared: mempat found the rows objects made */
    assert_int_equal(count(db, "SELECT count(*) FROM instructions"), 5);
    assert_int_equal(count(db, "SELECT count(*) FROM mempat"), 3);
    /* re-running objects on a with fewer rows replaces its rows only */
    assert_int_equal(fill(db, &trace_a, "objects", 1), r1);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM alloc_sites WHERE run = %lld",
             (long long)r1);
    assert_int_equal(count(db, sql), 1);
    assert_int_equal(count(db, "SELECT count(*) FROM alloc_sites"), 3);
    assert_int_equal(count(db, "SELECT count(*) FROM mempat"), 3);
    assert_int_equal(count(db, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(count(db, "SELECT count(*) FROM analyses"), 3);
    assert_int_equal(count(db, "SELECT sum(instructions) FROM runs"), 200);
    /* a different start time is a different process */
    pdb_run_info again = trace_a;
    again.started = 1001;
    assert_true(fill(db, &again, "objects", 1) != r1);
    /* deleting a run takes every row of it */
    assert_int_equal(pdb_delete_run(db, r1), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM instructions WHERE run = %lld",
             (long long)r1);
    assert_int_equal(count(db, sql), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM mempat"), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(pdb_delete_run(db, r1), 1);   /* no such run now */
    pdb_close(db);
}

static void test_rollback_unchanged(void **state)
{
    (void)state;
    pdb *db = open_new();
    fill(db, &trace_a, "objects", 3);
    pdb_close(db);
    size_t n0, n1;
    char *before = slurp(path, &n0);
    char *err = NULL;
    db = pdb_open(path, PDB_CREATE, &err);
    assert_non_null(db);
    int64_t run, insn;
    assert_int_equal(pdb_begin_run(db, "objects", NULL, &trace_a, objects_tables,
                                   &run), 0);
    for (int i = 0; i < 20000; i++)
        assert_int_equal(pdb_instruction(db, run, 0x900000 + i, "g", NULL, 0,
                                         "store", 4, &insn), 0);
    pdb_abort(db);          /* the run failed */
    char *after = slurp(path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
    /* and a file created by a failed run is gone */
    unlink(path);
    db = pdb_open(path, PDB_CREATE, &err);
    assert_non_null(db);
    pdb_abort(db);
    assert_int_equal(access(path, F_OK), -1);
}

static void test_refusals(void **state)
{
    (void)state;
    char *err = NULL;
    /* missing without PDB_CREATE */
    unlink(path);
    assert_null(pdb_open(path, 0, &err));
    assert_non_null(err);
    free(err);
    /* not a database */
    FILE *f = fopen(path, "w");
    fputs("this is not a database, not at all, no header here...............\n"
          "more text so that the file is longer than a header................\n", f);
    fclose(f);
    assert_null(pdb_open(path, PDB_CREATE, &err));
    assert_non_null(strstr(err, "not a database"));
    free(err);
    /* newer schema */
    pdb *db = open_new();
    assert_int_equal(pdb_exec_sql(db, "PRAGMA user_version = 99"), 0);
    pdb_close(db);
    assert_null(pdb_open(path, PDB_CREATE, &err));
    assert_non_null(strstr(err, "newer"));
    free(err);
    /* read-only file (root may write anyway: then skip that part) */
    db = open_new();
    pdb_close(db);
    chmod(path, 0444);
    if (access(path, W_OK) != 0) {
        assert_null(pdb_open(path, PDB_CREATE, &err));
        assert_non_null(strstr(err, "read-only"));
        free(err);
    }
    chmod(path, 0644);
    /* unwritable place */
    assert_null(pdb_open("/nonexistent-dir/x.db", PDB_CREATE, &err));
    assert_non_null(err);
    free(err);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/p.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_version),
        cmocka_unit_test(test_runs_and_reruns),
        cmocka_unit_test(test_rollback_unchanged),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
