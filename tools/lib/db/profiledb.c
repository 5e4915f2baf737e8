/* profiledb.c: opening, upgrading and writing the profile database. */
#include "db/profiledb.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/u64map.h"
#include "db/sql_embedded.h"
#include "base/array.h"

/* One cached prepared statement, found again by its SQL text. */
typedef struct pdb_stmt {
    const char *sql;        /* the caller's text (compared by content) */
    sqlite3_stmt *st;
} pdb_stmt;

/* An open profile database: the SQLite handle, whether we made the file,
 * the transaction state, the statement cache and the last error. */
/* One row of the instructions table, as pdb_instruction looks it up: the
 * rows of one address chained (an address has one to three kinds). */
typedef struct insn_row {
    struct insn_row *next;
    uint32_t size;
    int64_t id;
    char kind[];
} insn_row;

struct pdb {
    sqlite3 *h;
    char *path;
    int created;            /* this pdb_open made the file: pdb_abort removes it */
    int in_tx;              /* a transaction of ours is open */
    pdb_stmt *stmts;        /* statement cache, a few dozen at most */
    size_t nstmts, capstmts;
    /* The instructions rows of one run, read once in a transaction, so
     * that pdb_instruction needs no SELECT per instruction (an analysis
     * asks for tens of thousands). Rows come only from pdb_instruction;
     * the set is dropped when the transaction ends or a run is deleted. */
    int64_t insn_run;       /* the run whose rows are here; 0: none */
    u64map insns;           /* address -> its insn_row chain */
    char err[512];
};

static void insns_drop(pdb *db);

/* Records an error message; "what: sqlite's message" when what is given. */
static int fail(pdb *db, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(pdb *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->err, sizeof db->err, fmt, ap);
    va_end(ap);
    return -1;
}

static int fail_sqlite(pdb *db, const char *what)
{
    return fail(db, "%s: %s", what, sqlite3_errmsg(db->h));
}

const char *pdb_error(pdb *db) { return db ? db->err : "no database"; }
sqlite3 *pdb_sqlite(pdb *db) { return db->h; }
int64_t pdb_last_id(pdb *db) { return sqlite3_last_insert_rowid(db->h); }

int pdb_exec_sql(pdb *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fail(db, "%s", msg ? msg : sqlite3_errmsg(db->h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

sqlite3_stmt *pdb_prepare(pdb *db, const char *sql)
{
    for (size_t i = 0; i < db->nstmts; i++)
        if (db->stmts[i].sql == sql || strcmp(db->stmts[i].sql, sql) == 0)
            return db->stmts[i].st;
    if (ARRAY_FIT(db->stmts, db->capstmts, db->nstmts + 1) < 0) {
        fail(db, "out of memory");
        return NULL;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
        fail_sqlite(db, "cannot prepare statement");
        return NULL;
    }
    /* Keep our own copy of the text: the caller's may be a stack buffer. */
    char *copy = strdup(sql);
    if (!copy) {
        sqlite3_finalize(st);
        fail(db, "out of memory");
        return NULL;
    }
    db->stmts[db->nstmts++] = (pdb_stmt){ copy, st };
    return st;
}

int pdb_exec(pdb *db, sqlite3_stmt *st)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return fail_sqlite(db, "cannot write");
    return 0;
}

/* Reads PRAGMA user_version; -1 with the error set if the file is not a
 * database we can read. */
static int schema_version(pdb *db)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) !=
        SQLITE_OK) {
        fail_sqlite(db, "cannot read database");
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    else
        fail_sqlite(db, "cannot read database");
    sqlite3_finalize(st);
    return v;
}

/* Columns added to a table after it was first made: CREATE TABLE IF NOT
 * EXISTS leaves an older table as it is, so the upgrade adds them, with
 * the same declaration as in sql/schema/ (NULL in the old rows). */
static const struct added_column {
    const char *table, *column, *declaration;
} added_columns[] = {
    {"runs", "complete", "INTEGER CHECK (complete IN (0, 1))"},    /* version 2 */
    {"threads", "instructions", "INTEGER"},     /* per-thread counts (issue 14) */
    {"threads", "os_tid", "INTEGER"},           /* version 4 */
};

/* 1 if table exists and lacks column, 0 if not, -1 on error. */
static int lacks_column(pdb *db, const char *table, const char *column)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT count(*), coalesce(sum(name = ?2), 0) "
                                  "FROM pragma_table_info(?1)", -1, &st, NULL) != SQLITE_OK)
        return fail_sqlite(db, "cannot read schema");
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st), lacks = -1;
    if (rc == SQLITE_ROW)
        lacks = sqlite3_column_int(st, 0) > 0 && sqlite3_column_int(st, 1) == 0;
    sqlite3_finalize(st);
    if (lacks < 0)
        fail_sqlite(db, "cannot read schema");
    return lacks;
}

/* Adds the columns an older file's tables lack. */
static int add_columns(pdb *db)
{
    for (size_t i = 0; i < sizeof added_columns / sizeof *added_columns; i++) {
        const struct added_column *c = &added_columns[i];
        int lacks = lacks_column(db, c->table, c->column);
        if (lacks < 0)
            return -1;
        if (!lacks)
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", c->table,
                 c->column, c->declaration);
        if (pdb_exec_sql(db, sql) < 0)
            return -1;
    }
    return 0;
}

int pdb_upgrade(pdb *db)
{
    int v = schema_version(db);
    if (v < 0)
        return -1;
    if (v > PDB_SCHEMA_VERSION)
        return fail(db, "database schema version %d is newer than this "
                        "memrec's (%d)", v, PDB_SCHEMA_VERSION);
    if (v == PDB_SCHEMA_VERSION)
        return v;
    /* The schema is idempotent: running it adds what an older file lacks.
     * One transaction, so a failed upgrade leaves the old file intact. */
    if (pdb_exec_sql(db, "BEGIN IMMEDIATE") < 0)
        return -1;
    if (add_columns(db) < 0 || pdb_exec_sql(db, mr_sql_schema) < 0) {
        char msg[sizeof db->err];
        memcpy(msg, db->err, sizeof msg);
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return fail(db, "cannot create schema: %.480s", msg);
    }
    if (pdb_exec_sql(db, "COMMIT") < 0) {
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return v;
}

static void free_handle(pdb *db)
{
    insns_drop(db);
    for (size_t i = 0; i < db->nstmts; i++) {
        sqlite3_finalize(db->stmts[i].st);
        free((char *)db->stmts[i].sql);
    }
    free(db->stmts);
    if (db->h)
        sqlite3_close(db->h);
    free(db->path);
    free(db);
}

/* Hands an error of pdb_open back to the caller and frees everything. */
static pdb *open_failed(pdb *db, char **err)
{
    if (err)
        *err = strdup(db->err);
    int created = db->created;
    char *path = db->path;
    db->path = NULL;
    free_handle(db);
    if (created && path)
        unlink(path);
    free(path);
    return NULL;
}

pdb *pdb_open(const char *path, int flags, char **err)
{
    pdb *db = calloc(1, sizeof *db);
    if (err)
        *err = NULL;
    if (!db || !(db->path = strdup(path))) {
        if (err)
            *err = strdup("out of memory");
        free(db);
        return NULL;
    }
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (!exists && !(flags & PDB_CREATE)) {
        fail(db, "no such database");
        return open_failed(db, err);
    }
    if (exists && !S_ISREG(sb.st_mode)) {
        fail(db, "not a regular file");
        return open_failed(db, err);
    }
    /* NOMUTEX: a connection is only ever used by the thread that opened
     * it, so SQLite need not lock a mutex in every bind and step (a tenth
     * of the instructions of a large trace-objects --db write). */
    int oflags = ((flags & PDB_READONLY)
                      ? SQLITE_OPEN_READONLY
                      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                 SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db->h, oflags, NULL) != SQLITE_OK) {
        fail(db, "cannot %s database: %s", exists ? "open" : "create",
             db->h ? sqlite3_errmsg(db->h) : "out of memory");
        return open_failed(db, err);
    }
    db->created = !exists;
    /* SQLite quietly opens a read-only file read-only: say so now rather
     * than failing at the first write. */
    if (!(flags & PDB_READONLY) && sqlite3_db_readonly(db->h, "main") == 1) {
        fail(db, "database is read-only");
        return open_failed(db, err);
    }
    sqlite3_busy_timeout(db->h, 10000);
    sqlite3_extended_result_codes(db->h, 1);
    /* A large page cache keeps a big transaction from spilling pages into
     * the file before commit (the journal would restore them, but it is
     * slower). */
    sqlite3_exec(db->h, "PRAGMA cache_size = -32768", NULL, NULL, NULL);
    int v = schema_version(db);
    if (v < 0)
        return open_failed(db, err);
    if (v > PDB_SCHEMA_VERSION) {
        fail(db, "database schema version %d is newer than this memrec's (%d)",
             v, PDB_SCHEMA_VERSION);
        return open_failed(db, err);
    }
    if (!(flags & PDB_READONLY) && pdb_upgrade(db) < 0)
        return open_failed(db, err);
    return db;
}

/* Table names come from the analyses' code, but they are pasted into SQL:
 * accept plain identifiers only. */
static int plain_identifier(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* Finds the run of this trace and process, or inserts it. */
static int find_or_make_run(pdb *db, const pdb_run_info *info, int64_t *run)
{
    char abs[PATH_MAX];
    const char *trace = info->trace;
    if (!trace || strcmp(trace, "-") == 0)
        trace = "<stdin>";
    else if (realpath(trace, abs))
        trace = abs;
    sqlite3_stmt *st = pdb_prepare(
        db, "SELECT id FROM runs WHERE trace = ?1 AND pid = ?2 AND started = ?3");
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, trace, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, info->pid);
    sqlite3_bind_int64(st, 3, (int64_t)info->started);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *run = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail_sqlite(db, "cannot read runs");
    if (rc == SQLITE_ROW) {
        st = pdb_prepare(db, "UPDATE runs SET command = coalesce(?2, command), "
                             "complete = ?3 WHERE id = ?1");
        if (!st)
            return -1;
        sqlite3_bind_int64(st, 1, *run);
        if (info->command)
            sqlite3_bind_text(st, 2, info->command, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 3, !info->truncated);
        return pdb_exec(db, st);
    }
    st = pdb_prepare(db, "INSERT INTO runs (trace, command, pid, started, complete) "
                         "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, trace, -1, SQLITE_TRANSIENT);
    if (info->command)
        sqlite3_bind_text(st, 2, info->command, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, info->pid);
    sqlite3_bind_int64(st, 4, (int64_t)info->started);
    sqlite3_bind_int(st, 5, !info->truncated);
    if (pdb_exec(db, st) < 0)
        return -1;
    *run = pdb_last_id(db);
    return 0;
}

/* Deletes the rows of run from table. */
static int delete_rows(pdb *db, const char *table, int64_t run)
{
    char sql[256];
    if (!plain_identifier(table) || strlen(table) > 100)
        return fail(db, "bad table name '%s'", table);
    snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE run = ?1", table);
    sqlite3_stmt *st = pdb_prepare(db, sql);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    return pdb_exec(db, st);
}

int pdb_begin_run(pdb *db, const char *analysis, const char *options,
                  const pdb_run_info *info, const char *const *owned_tables,
                  int64_t *run)
{
    if (db->in_tx)
        return fail(db, "a run is already open");
    /* IMMEDIATE takes the write lock now: a concurrent writer makes us wait
     * (busy timeout) instead of failing halfway through. */
    if (pdb_exec_sql(db, "BEGIN IMMEDIATE") < 0)
        return -1;
    db->in_tx = 1;
    insns_drop(db);         /* read again in a new transaction */
    if (find_or_make_run(db, info, run) < 0)
        return -1;
    for (size_t i = 0; owned_tables && owned_tables[i]; i++)
        if (delete_rows(db, owned_tables[i], *run) < 0)
            return -1;
    sqlite3_stmt *st = pdb_prepare(
        db, "INSERT OR REPLACE INTO analyses (run, name, options, finished) "
            "VALUES (?1, ?2, ?3, CAST(strftime('%s', 'now') AS INTEGER))");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, *run);
    sqlite3_bind_text(st, 2, analysis, -1, SQLITE_TRANSIENT);
    if (options)
        sqlite3_bind_text(st, 3, options, -1, SQLITE_TRANSIENT);
    return pdb_exec(db, st);
}

/* ---- the instructions rows of a run, in memory ----------------------------- */

static void insns_drop(pdb *db)
{
    for (size_t i = 0; i < db->insns.cap; i++)
        for (insn_row *r = db->insns.slots[i].used ? db->insns.slots[i].value : NULL, *next;
             r; r = next) {
            next = r->next;
            free(r);
        }
    u64map_free(&db->insns);
    u64map_init(&db->insns);
    db->insn_run = 0;
}

/* The row of (address, kind, size) in memory, or NULL. */
static const insn_row *insns_get(const pdb *db, uint64_t address, uint32_t size,
                                 const char *kind)
{
    for (const insn_row *r = u64map_get(&db->insns, address); r; r = r->next)
        if (r->size == size && strcmp(r->kind, kind) == 0)
            return r;
    return NULL;
}

/* Adds a row (not there yet). -1 when out of memory. */
static int insns_add(pdb *db, uint64_t address, uint32_t size, const char *kind,
                     int64_t id)
{
    int added;
    void **slot = u64map_slot_of(&db->insns, address, &added);
    insn_row *r = slot ? malloc(sizeof *r + strlen(kind) + 1) : NULL;
    if (!r)
        return -1;
    strcpy(r->kind, kind);
    r->size = size;
    r->id = id;
    r->next = *slot;
    *slot = r;
    return 0;
}

/* Reads the rows of run (if they are not the ones in memory). */
static int insns_load(pdb *db, int64_t run)
{
    if (db->insn_run == run)
        return 0;
    insns_drop(db);
    sqlite3_stmt *st = pdb_prepare(
        db, "SELECT address, kind, size, id FROM instructions WHERE run = ?1");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (insns_add(db, (uint64_t)sqlite3_column_int64(st, 0),
                      (uint32_t)sqlite3_column_int64(st, 2),
                      (const char *)sqlite3_column_text(st, 1),
                      sqlite3_column_int64(st, 3)) < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        insns_drop(db);
        return rc == SQLITE_NOMEM ? fail(db, "out of memory")
                                  : fail_sqlite(db, "cannot read instructions");
    }
    db->insn_run = run;
    return 0;
}

/* The id of an instruction, from the rows in memory (in a transaction)
 * or from the table: 1 found, 0 not there, -1 on error. */
static int insn_find(pdb *db, int64_t run, uint64_t address, const char *kind,
                     uint32_t size, int64_t *id)
{
    if (db->in_tx) {
        if (insns_load(db, run) < 0)
            return -1;
        const insn_row *r = insns_get(db, address, size, kind);
        if (r)
            *id = r->id;
        return r != NULL;
    }
    sqlite3_stmt *st = pdb_prepare(
        db, "SELECT id FROM instructions WHERE run = ?1 AND address = ?2 "
            "AND kind = ?3 AND size = ?4");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, (int64_t)address);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, size);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_ROW)
        return 1;
    return rc == SQLITE_DONE ? 0 : fail_sqlite(db, "cannot read instructions");
}

int pdb_instruction(pdb *db, int64_t run, uint64_t address,
                    const char *function, const char *file, uint32_t line,
                    const char *kind, uint32_t size, int64_t *id)
{
    int found = insn_find(db, run, address, kind, size, id);
    if (found != 0)
        return found < 0 ? -1 : 0;
    sqlite3_stmt *st = pdb_prepare(db, "INSERT INTO instructions (run, address, function, "
                         "file, line, kind, size) VALUES (?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, (int64_t)address);
    if (function)
        sqlite3_bind_text(st, 3, function, -1, SQLITE_TRANSIENT);
    if (file)
        sqlite3_bind_text(st, 4, file, -1, SQLITE_TRANSIENT);
    if (line)
        sqlite3_bind_int64(st, 5, line);
    sqlite3_bind_text(st, 6, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, size);
    if (pdb_exec(db, st) < 0)
        return -1;
    *id = pdb_last_id(db);
    if (db->insn_run == run && insns_add(db, address, size, kind, *id) < 0) {
        insns_drop(db);     /* read again from the table next time */
        return fail(db, "out of memory");
    }
    return 0;
}

int pdb_set_totals(pdb *db, int64_t run, uint64_t instructions,
                   uint64_t loads, uint64_t stores)
{
    sqlite3_stmt *st = pdb_prepare(
        db, "UPDATE runs SET instructions = ?2, loads = ?3, stores = ?4 "
            "WHERE id = ?1");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, (int64_t)instructions);
    sqlite3_bind_int64(st, 3, (int64_t)loads);
    sqlite3_bind_int64(st, 4, (int64_t)stores);
    return pdb_exec(db, st);
}

int pdb_set_complete(pdb *db, int64_t run, int complete)
{
    sqlite3_stmt *st = pdb_prepare(db, "UPDATE runs SET complete = ?2 WHERE id = ?1");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int(st, 2, complete != 0);
    return pdb_exec(db, st);
}

int pdb_commit(pdb *db)
{
    if (!db->in_tx)
        return fail(db, "no run is open");
    if (pdb_exec_sql(db, "COMMIT") < 0)
        return -1;
    db->in_tx = 0;
    insns_drop(db);         /* read again in a new transaction */
    return 0;
}

void pdb_rollback(pdb *db)
{
    if (db && !sqlite3_get_autocommit(db->h))
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    if (db) {
        db->in_tx = 0;
        insns_drop(db);     /* the rows may be gone with the transaction */
    }
}

void pdb_close(pdb *db)
{
    if (!db)
        return;
    pdb_rollback(db);
    free_handle(db);
}

void pdb_abort(pdb *db)
{
    if (!db)
        return;
    pdb_rollback(db);
    int created = db->created;
    char *path = db->path;
    db->path = NULL;
    free_handle(db);
    if (created && path)
        unlink(path);
    free(path);
}

int pdb_delete_run(pdb *db, int64_t run)
{
    /* Every table with a run column, so tables added by later analyses
     * are covered without a change here. */
    static const char tables_sql[] =
        "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p "
        "WHERE m.type = 'table' AND p.name = 'run' ORDER BY m.name";
    if (pdb_exec_sql(db, "BEGIN IMMEDIATE") < 0)
        return -1;
    db->in_tx = 1;
    insns_drop(db);         /* read again in a new transaction */
    sqlite3_stmt *st = pdb_prepare(db, "SELECT 1 FROM runs WHERE id = ?1");
    if (!st)
        goto fail;
    sqlite3_bind_int64(st, 1, run);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    if (!found) {
        pdb_rollback(db);
        return 1;
    }
    /* Collect the names first: deleting while the schema query is open
     * would work in SQLite, but a plain list is easier to reason about. */
    char names[64][104];
    int n = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, tables_sql, -1, &q, NULL) != SQLITE_OK) {
        fail_sqlite(db, "cannot list tables");
        goto fail;
    }
    while (sqlite3_step(q) == SQLITE_ROW && n < 64) {
        const char *t = (const char *)sqlite3_column_text(q, 0);
        if (t && strlen(t) < sizeof names[0])
            snprintf(names[n++], sizeof names[0], "%s", t);
    }
    sqlite3_finalize(q);
    for (int i = 0; i < n; i++)
        if (delete_rows(db, names[i], run) < 0)
            goto fail;
    st = pdb_prepare(db, "DELETE FROM runs WHERE id = ?1");
    if (!st)
        goto fail;
    sqlite3_bind_int64(st, 1, run);
    if (pdb_exec(db, st) < 0)
        goto fail;
    return pdb_commit(db);
fail:
    {
        char msg[sizeof db->err];
        memcpy(msg, db->err, sizeof msg);
        pdb_rollback(db);
        fail(db, "%s", msg);
    }
    return -1;
}
