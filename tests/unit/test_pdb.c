/*
 * test_pdb.c: the profile database API: creation with the schema, the
 * schema version, runs found again by trace and process identity, shared
 * instruction rows, re-runs replacing only their own analysis's rows,
 * rollback leaving the file byte for byte as it was, read-only and newer
 * files refused, deleting a run, runs.complete (complete unless said
 * otherwise) and the in-place upgrade of a version-1 file that lacks it. The unwritable places are ones root cannot
 * write either (the tests run as root, where permission bits prove nothing):
 * a directory where the file should be, a path under a regular file, /proc
 * and /sys, and, where a private mount namespace can be had, a read-only
 * tmpfs and a full one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
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

static const pdb_run_info trace_a = {.trace = "/tmp/a.mr", .command = "prog a",
                                     .pid = 10, .started = 1000};
static const pdb_run_info trace_b = {.trace = "/tmp/b.mr", .command = "prog b",
                                     .pid = 11, .started = 2000};

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
    /* the schema (sql/schema/) states the same version as the header */
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
    /* a read-only file, where permission bits are obeyed (not for root:
     * see test_readonly_mount for the check that holds there too) */
    db = open_new();
    pdb_close(db);
    chmod(path, 0444);
    if (access(path, W_OK) != 0) {
        assert_null(pdb_open(path, PDB_CREATE, &err));
        assert_non_null(strstr(err, "read-only"));
        free(err);
    }
    chmod(path, 0644);
}

/* pdb_open(p, PDB_CREATE) fails, with a message holding want. */
static void refused(const char *p, const char *want)
{
    char *err = NULL;
    pdb *db = pdb_open(p, PDB_CREATE, &err);
    if (db)
        pdb_close(db);
    assert_null(db);
    assert_non_null(err);
    if (!strstr(err, want))
        print_error("%s: '%s' lacks '%s'\n", p, err, want);
    assert_non_null(strstr(err, want));
    free(err);
}

/* Places nobody can write a database into, root included. */
static void test_unwritable_places(void **state)
{
    (void)state;
    char p[300];
    /* a directory where the file should be: refused, left empty */
    snprintf(p, sizeof p, "%s/dir.db", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    refused(p, "not a regular file");
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(rmdir(p), 0);      /* still empty: nothing written in it */
    /* a path under a regular file (ENOTDIR): the file is untouched */
    snprintf(p, sizeof p, "%s/file", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("plain\n", f);
    fclose(f);
    char under[320];
    snprintf(under, sizeof under, "%s/p.db", p);
    refused(under, "cannot create database");
    assert_int_equal(stat(p, &sb), 0);
    assert_true(S_ISREG(sb.st_mode) && sb.st_size == 6);
    unlink(p);
    /* a sysctl file: the kernel refuses root a read-write open, so SQLite
     * falls back to read-only, which pdb_open must refuse by name */
    if (access("/proc/sys/kernel/ostype", R_OK) == 0)
        refused("/proc/sys/kernel/ostype", "read-only");
    /* new files in /proc and /sys: no such thing */
    refused("/proc/memrec-test.db", "cannot create database");
    refused("/sys/memrec-test.db", "cannot create database");
    /* a missing directory */
    refused("/nonexistent-dir/x.db", "cannot create database");
}

/* A private mount namespace, so the tmpfs mounts below are ours alone and
 * vanish with the process; 0 when had (root with CAP_SYS_ADMIN), else -1. */
static int private_mounts(void)
{
    static int state = 0;       /* 0 untried, 1 had, -1 not possible */
    if (state == 0)
        state = unshare(CLONE_NEWNS) == 0 &&
                mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 ? 1 : -1;
    return state == 1 ? 0 : -1;
}

/* Mounts a tmpfs of size bytes on a fresh directory under dir. */
static int small_tmpfs(char *mnt, size_t len, const char *name, size_t size)
{
    char opts[64];
    snprintf(mnt, len, "%s/%s", dir, name);
    snprintf(opts, sizeof opts, "size=%zu", size);
    if (private_mounts() < 0 || mkdir(mnt, 0755) < 0)
        return -1;
    if (mount("memrec-test", mnt, "tmpfs", 0, opts) < 0) {
        rmdir(mnt);
        return -1;
    }
    return 0;
}

static void unmount_tmpfs(const char *mnt)
{
    assert_int_equal(umount(mnt), 0);
    rmdir(mnt);
}

/* A sound database of the current version on a read-only mount: root
 * cannot write it either, and pdb_open says so instead of failing at the
 * first write. */
static void test_readonly_mount(void **state)
{
    (void)state;
    char mnt[300], p[320];
    if (small_tmpfs(mnt, sizeof mnt, "ro", 1 << 20) < 0)
        skip();     /* no mount namespace here: the run lists the skip */
    snprintf(p, sizeof p, "%s/p.db", mnt);
    char *err = NULL;
    pdb *db = pdb_open(p, PDB_CREATE, &err);
    assert_non_null(db);
    fill(db, &trace_a, "objects", 3);
    pdb_close(db);
    size_t n0, n1;
    char *before = slurp(p, &n0);
    assert_int_equal(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
    refused(p, "read-only");
    /* queries still work read-only */
    db = pdb_open(p, PDB_READONLY, &err);
    assert_non_null(db);
    assert_int_equal(count(db, "SELECT count(*) FROM alloc_sites"), 3);
    pdb_close(db);
    char *after = slurp(p, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
    unmount_tmpfs(mnt);
}

/* Fills the filesystem holding dirpath with one file, to ENOSPC. */
static void fill_up(const char *dirpath)
{
    char p[340];
    snprintf(p, sizeof p, "%s/filler", dirpath);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    static const char block[4096];
    while (fwrite(block, 1, sizeof block, f) == sizeof block)
        ;
    fclose(f);
}

/* A full filesystem: a new database cannot be created (and no file is left
 * behind), and a run into an existing one fails and leaves it unchanged. */
static void test_full_filesystem(void **state)
{
    (void)state;
    char mnt[300], p[320], fresh[320];
    if (small_tmpfs(mnt, sizeof mnt, "full", 1 << 20) < 0)
        skip();
    snprintf(p, sizeof p, "%s/p.db", mnt);
    snprintf(fresh, sizeof fresh, "%s/fresh.db", mnt);
    char *err = NULL;
    pdb *db = pdb_open(p, PDB_CREATE, &err);
    assert_non_null(db);
    fill(db, &trace_a, "objects", 3);
    pdb_close(db);
    size_t n0, n1;
    char *before = slurp(p, &n0);
    fill_up(mnt);
    /* new: refused, and the half-made file removed */
    assert_null(pdb_open(fresh, PDB_CREATE, &err));
    assert_non_null(err);
    free(err);
    assert_int_equal(access(fresh, F_OK), -1);
    /* existing: the run fails somewhere before its commit succeeds */
    db = pdb_open(p, PDB_CREATE, &err);
    assert_non_null(db);
    int64_t run, insn;
    int rc = pdb_begin_run(db, "objects", NULL, &trace_b, objects_tables, &run);
    for (int i = 0; rc == 0 && i < 20000; i++)
        rc = pdb_instruction(db, run, 0x900000 + i, "g", "g.c", 1, "store", 4,
                             &insn);
    if (rc == 0)
        rc = pdb_commit(db);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(pdb_error(db), "full"));
    pdb_abort(db);
    char *after = slurp(p, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
    unmount_tmpfs(mnt);
}

static int64_t run_complete(pdb *db, int64_t run)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT coalesce(complete, -1) FROM runs WHERE id = %lld",
             (long long)run);
    return count(db, sql);
}

/* runs.complete: 1 unless a caller says the trace was cut short, at
 * pdb_begin_run (pdb_run_info.truncated) or later (pdb_set_complete). */
static void test_complete(void **state)
{
    (void)state;
    pdb *db = open_new();
    int64_t r1 = fill(db, &trace_a, "objects", 1);     /* truncated not set */
    assert_int_equal(run_complete(db, r1), 1);
    pdb_run_info cut = trace_b;
    cut.truncated = 1;
    int64_t r2 = fill(db, &cut, "objects", 1);
    assert_int_equal(run_complete(db, r2), 0);
    /* the last analysis written says: the whole trace this time */
    assert_int_equal(fill(db, &trace_b, "mempat", 1), r2);
    assert_int_equal(run_complete(db, r2), 1);
    int64_t run;
    assert_int_equal(pdb_begin_run(db, "objects", NULL, &trace_a, objects_tables, &run), 0);
    assert_int_equal(pdb_set_complete(db, run, 0), 0);
    assert_int_equal(pdb_commit(db), 0);
    assert_int_equal(run_complete(db, r1), 0);
    /* the column refuses anything but 0 and 1 */
    assert_int_equal(pdb_exec_sql(db, "UPDATE runs SET complete = 2"), -1);
    pdb_close(db);
}

/* pdb_instruction: one id per (run, address, kind, size), the same when
 * asked again in the transaction, in a later transaction (the rows come
 * from the table then), outside one, and after a rollback dropped rows it
 * had made; another run or kind or size is another row. */
static void test_instruction_ids(void **state)
{
    (void)state;
    pdb *db = open_new();
    int64_t run, other, a, again, store, narrow, b, gone;
    assert_int_equal(pdb_begin_run(db, "mempat", NULL, &trace_a, mempat_tables, &run), 0);
    assert_int_equal(pdb_instruction(db, run, 0x400000, "f", "f.c", 1, "load", 8, &a), 0);
    assert_int_equal(pdb_instruction(db, run, 0x400000, "f", "f.c", 1, "load", 8, &again), 0);
    assert_int_equal(again, a);
    assert_int_equal(pdb_instruction(db, run, 0x400000, "f", "f.c", 1, "store", 8, &store), 0);
    assert_int_equal(pdb_instruction(db, run, 0x400000, "f", "f.c", 1, "load", 4, &narrow), 0);
    assert_true(store != a && narrow != a && narrow != store);
    assert_int_equal(pdb_commit(db), 0);
    /* a later transaction on the same run: the rows are read back */
    assert_int_equal(pdb_begin_run(db, "objects", NULL, &trace_a, objects_tables, &again), 0);
    assert_int_equal(again, run);
    assert_int_equal(pdb_instruction(db, run, 0x400000, "f", "f.c", 1, "store", 8, &again), 0);
    assert_int_equal(again, store);
    assert_int_equal(pdb_instruction(db, run, 0x400008, "f", "f.c", 2, "load", 8, &b), 0);
    assert_true(b != a && b != store && b != narrow);
    assert_int_equal(pdb_commit(db), 0);
    /* outside a transaction */
    assert_int_equal(pdb_instruction(db, run, 0x400000, "f", "f.c", 1, "load", 8, &again), 0);
    assert_int_equal(again, a);
    /* another run has rows of its own */
    assert_int_equal(pdb_begin_run(db, "mempat", NULL, &trace_b, mempat_tables, &other), 0);
    assert_int_equal(pdb_instruction(db, other, 0x400000, "f", "f.c", 1, "load", 8, &again), 0);
    assert_true(again != a);
    assert_int_equal(pdb_commit(db), 0);
    /* a row made in a transaction that is rolled back is gone, and made again */
    assert_int_equal(pdb_begin_run(db, "mempat", NULL, &trace_a, mempat_tables, &run), 0);
    assert_int_equal(pdb_instruction(db, run, 0x500000, "g", NULL, 0, "load", 8, &gone), 0);
    pdb_rollback(db);
    assert_int_equal(pdb_begin_run(db, "mempat", NULL, &trace_a, mempat_tables, &run), 0);
    assert_int_equal(pdb_instruction(db, run, 0x500000, "g", NULL, 0, "load", 8, &gone), 0);
    assert_int_equal(pdb_instruction(db, run, 0x400008, "f", "f.c", 2, "load", 8, &again), 0);
    assert_int_equal(again, b);
    assert_int_equal(pdb_commit(db), 0);
    sqlite3_stmt *st = pdb_prepare(db, "SELECT count(*) FROM instructions");
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    /* the id given is the row's */
    int64_t check;
    assert_int_equal(pdb_instruction(db, run, 0x500000, "g", NULL, 0, "load", 8, &check), 0);
    assert_int_equal(check, gone);
    assert_int_equal(sqlite3_column_int(st, 0), 6);   /* a, store, narrow, b, other's, gone */
    sqlite3_reset(st);
    pdb_close(db);
}

/* A version-1 file (runs without complete) opened by today's code: the
 * column is added, old rows keep their values (complete NULL: not known),
 * the version is 2, and opening again changes nothing. */
static void test_upgrade_v1(void **state)
{
    (void)state;
    unlink(path);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h,
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, trace TEXT NOT NULL, command TEXT,"
        " pid INTEGER NOT NULL, started INTEGER NOT NULL, instructions INTEGER,"
        " loads INTEGER, stores INTEGER, UNIQUE (trace, pid, started));"
        "INSERT INTO runs VALUES (1, '/old.mr', 'old prog', 7, 8, 9, 10, 11);"
        "PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    char *err = NULL;
    pdb *db = pdb_open(path, PDB_READONLY, &err);  /* read-only: left as it is */
    assert_non_null(db);
    assert_int_equal(count(db, "PRAGMA user_version"), 1);
    pdb_close(db);
    db = pdb_open(path, 0, &err);
    assert_non_null(db);
    assert_int_equal(count(db, "PRAGMA user_version"), PDB_SCHEMA_VERSION);
    assert_int_equal(count(db, "SELECT count(*) FROM pragma_table_info('runs') "
                               "WHERE name = 'complete'"), 1);
    assert_int_equal(count(db, "SELECT count(*) FROM runs WHERE id = 1 AND trace = '/old.mr' "
                               "AND command = 'old prog' AND pid = 7 AND started = 8 "
                               "AND instructions = 9 AND loads = 10 AND stores = 11 "
                               "AND complete IS NULL"), 1);
    assert_int_equal(count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'mempat'"), 1);
    int64_t r = fill(db, &trace_a, "objects", 2);      /* and it takes new runs */
    assert_int_equal(run_complete(db, r), 1);
    pdb_close(db);
    /* again: nothing to do (ALTER TABLE would fail on the existing column) */
    db = pdb_open(path, 0, &err);
    assert_non_null(db);
    assert_int_equal(pdb_upgrade(db), PDB_SCHEMA_VERSION);
    assert_int_equal(count(db, "SELECT count(*) FROM runs"), 2);
    /* and an upgrade of a file that has the column already adds nothing */
    assert_int_equal(pdb_exec_sql(db, "PRAGMA user_version = 1"), 0);
    assert_int_equal(pdb_upgrade(db), 1);
    assert_int_equal(count(db, "PRAGMA user_version"), PDB_SCHEMA_VERSION);
    assert_int_equal(count(db, "SELECT count(*) FROM runs"), 2);
    pdb_close(db);
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
        cmocka_unit_test(test_complete),
        cmocka_unit_test(test_instruction_ids),
        cmocka_unit_test(test_upgrade_v1),
        cmocka_unit_test(test_unwritable_places),
        cmocka_unit_test(test_readonly_mount),
        cmocka_unit_test(test_full_filesystem),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
