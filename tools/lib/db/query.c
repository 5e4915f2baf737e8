/* query.c: canned queries and SQL results for people; see query.h. */
#include "db/query.h"

#include <stdlib.h>
#include <string.h>

const mr_sql_query *pdb_find_query(const char *name)
{
    for (const mr_sql_query *q = mr_sql_queries; q->name; q++)
        if (strcmp(q->name, name) == 0)
            return q;
    return NULL;
}

/* The first comment line of a query, without "-- name: ". */
static void describe(const mr_sql_query *q, char *buf, size_t n)
{
    const char *s = q->text, *e;
    buf[0] = 0;
    if (strncmp(s, "-- ", 3) != 0)
        return;
    s += 3;
    size_t len = strlen(q->name);
    if (strncmp(s, q->name, len) == 0 && s[len] == ':')
        s += len + 1;
    else if (strncmp(s, q->name, len) == 0 && strncmp(s + len, ".sql:", 5) == 0)
        s += len + 5;
    while (*s == ' ')
        s++;
    e = strchr(s, '\n');
    snprintf(buf, n, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
}

void pdb_list_queries(FILE *out)
{
    for (const mr_sql_query *q = mr_sql_queries; q->name; q++) {
        char d[256];
        describe(q, d, sizeof d);
        fprintf(out, "%-22s %s\n", q->name, d);
    }
}

/* A value bound as an integer when it is one, else as text. */
static void bind_value(sqlite3_stmt *st, int i, const char *v)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*v && !*end)
        sqlite3_bind_int64(st, i, n);
    else
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

void pdb_bind_params(sqlite3_stmt *st, const pdb_param *p, int np)
{
    for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++) {
        const char *name = sqlite3_bind_parameter_name(st, i);
        if (!name)
            continue;
        for (int k = 0; k < np; k++)
            if (strcmp(name + 1, p[k].name) == 0)
                bind_value(st, i, p[k].value);
    }
}

/* Rows are collected first so columns can be aligned. */
typedef struct table {
    int ncols;
    char **cells;           /* row-major, header row first */
    size_t nrows, cap;
} table;

/* Makes room for one more row; -1 when out of memory. */
static int table_reserve_row(table *t)
{
    if (t->nrows < t->cap)
        return 0;
    size_t cap = t->cap ? 2 * t->cap : 64;
    char **c = realloc(t->cells, cap * t->ncols * sizeof *c);
    if (!c)
        return -1;
    t->cells = c;
    t->cap = cap;
    return 0;
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
}

static int print_table(const table *t, int tsv, FILE *out)
{
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w)
        return -1;
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            size_t l = strlen(t->cells[r * t->ncols + c]);
            if (l > w[c])
                w[c] = l;
        }
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            if (tsv)
                fprintf(out, "%s%s", c ? "\t" : "", s);
            else if (c + 1 == t->ncols)
                fputs(s, out);
            else
                fprintf(out, "%-*s  ", (int)w[c], s);
        }
        fputc('\n', out);
    }
    free(w);
    return 0;
}

/* One statement's rows into t (header first); SQLITE_DONE, or the error
 * code (SQLITE_NOMEM when out of memory). */
static int collect(sqlite3_stmt *st, table *t, int tsv)
{
    int rc;
    if (table_reserve_row(t) < 0)
        return SQLITE_NOMEM;
    for (int c = 0; c < t->ncols; c++)
        t->cells[c] = strdup(sqlite3_column_name(st, c));
    t->nrows = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (table_reserve_row(t) < 0)
            return SQLITE_NOMEM;
        for (int c = 0; c < t->ncols; c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            t->cells[t->nrows * t->ncols + c] = strdup(v ? v : (tsv ? "" : "NULL"));
        }
        t->nrows++;
    }
    return rc;
}

/* "query: what SQLite said", with the way out when the query needs tables
 * that a database older than this memrec lacks (opened read-only, it was
 * not upgraded). */
static void query_error(pdb *db, char *err, size_t errlen)
{
    sqlite3 *h = pdb_sqlite(db);
    sqlite3_stmt *st;
    int version = PDB_SCHEMA_VERSION;
    const char *msg = sqlite3_errmsg(h);
    int missing = strncmp(msg, "no such table", 13) == 0;
    char what[256];
    snprintf(what, sizeof what, "%s", msg);
    if (missing && sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            version = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    if (missing && version < PDB_SCHEMA_VERSION)
        snprintf(err, errlen, "query: %s (the database has schema version %d, this "
                 "memrec %d: 'trace-db FILE upgrade' brings it up to date)",
                 what, version, PDB_SCHEMA_VERSION);
    else
        snprintf(err, errlen, "query: %s", what);
}

int pdb_print_sql(pdb *db, const char *sql, const pdb_param *p, int np,
                  int tsv, FILE *out, char *err, size_t errlen)
{
    sqlite3 *h = pdb_sqlite(db);
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h, tail, -1, &st, &tail) != SQLITE_OK) {
            query_error(db, err, errlen);
            return -1;
        }
        if (!st)
            continue;       /* only comments or spaces were left */
        pdb_bind_params(st, p, np);
        table t = { .ncols = sqlite3_column_count(st) };
        int rc = t.ncols ? collect(st, &t, tsv) : sqlite3_step(st);
        if (rc != SQLITE_DONE)
            snprintf(err, errlen, "query: %s", rc == SQLITE_NOMEM
                                                   ? "out of memory"
                                                   : sqlite3_errmsg(h));
        sqlite3_finalize(st);
        if (rc == SQLITE_DONE && t.ncols && print_table(&t, tsv, out) < 0) {
            snprintf(err, errlen, "out of memory");
            rc = SQLITE_NOMEM;
        }
        table_free(&t);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return 0;
}

/* The runs, with whether each profile covers the whole trace: yes, no (the
 * trace was cut short) or ? (not known: written before schema version 2).
 * %s is that column's expression: a file opened read-only may be older than
 * runs.complete. */
static const char runs_sql[] =
    "SELECT r.id AS run, r.pid AS pid,"
    " strftime('%%Y-%%m-%%d %%H:%%M:%%S', r.started / 1000000, 'unixepoch') AS started,"
    " r.instructions AS instructions, r.loads AS loads, r.stores AS stores,"
    " %s AS complete,"
    " (SELECT group_concat(name, ',') FROM analyses a WHERE a.run = r.id) AS analyses,"
    " r.command AS command, r.trace AS trace "
    "FROM runs r ORDER BY r.id";

int pdb_print_runs(pdb *db, int tsv, FILE *out, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int has = 0;
    if (sqlite3_prepare_v2(pdb_sqlite(db), "SELECT count(*) FROM pragma_table_info('runs') "
                           "WHERE name = 'complete'", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        has = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    char sql[sizeof runs_sql + 100];
    snprintf(sql, sizeof sql, runs_sql,
             has ? "CASE r.complete WHEN 1 THEN 'yes' WHEN 0 THEN 'no' ELSE '?' END" : "'?'");
    return pdb_print_sql(db, sql, NULL, 0, tsv, out, err, errlen);
}
