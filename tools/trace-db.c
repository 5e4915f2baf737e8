/*
 * trace-db: the profile database from the command line: create or upgrade
 * it, list and delete runs, run the canned queries of sql/queries (compiled
 * in, so the command needs no files).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cli.h"
#include "db/profiledb.h"
#include "db/sql_embedded.h"

static const char usage_text[] =
    "Usage: trace-db FILE init|upgrade\n"
    "       trace-db FILE runs\n"
    "       trace-db FILE delete RUN\n"
    "       trace-db FILE query NAME [--run=N] [--group=NAME] [--limit=N]\n"
    "                                [--param NAME=VALUE]... [--tsv]\n"
    "       trace-db queries\n"
    "Manage a memrec profile database (schema: sql/schema/).\n"
    "\n"
    "  init, upgrade  create the database, or bring an older one up to date\n"
    "  runs           list the runs it holds, whether each profile covers its\n"
    "                 whole trace (complete), and the analyses of each\n"
    "  delete RUN     delete a run and every row of it, in one transaction\n"
    "  query NAME     run a canned query (see 'trace-db queries'); by default\n"
    "                 on the latest run\n"
    "  queries        list the canned queries\n"
    "\n"
    "  --run=N        the run a query looks at (binds :run)\n"
    "  --group=NAME   the group a query looks at (binds :group)\n"
    "  --limit=N      rows at most (binds :limit)\n"
    "  --param N=V    binds :N to V (a number if it looks like one)\n"
    "  --tsv          tab-separated output with a header line, for scripts\n"
    "  -h, --help     this help\n"
    "      --version  print the version\n"
    "\n"
    "The same queries run in the sqlite3 shell: sqlite3 FILE < sql/queries/X.sql\n"
    "(parameters left unset mean their defaults). Exit status: 0, 1 on a\n"
    "database error, 2 for bad usage.\n";

#define MAX_PARAMS 16

/* A named parameter given on the command line. */
typedef struct param {
    const char *name;       /* without the ':' */
    const char *value;
} param;

static pdb *db;
static const char *path;

static _Noreturn void db_fail(void)
{
    char msg[600];
    snprintf(msg, sizeof msg, "%s", pdb_error(db));
    pdb_close(db);
    db = NULL;
    cli_fail(path, "%s", msg);
}

static pdb *open_db(int flags)
{
    char *err;
    pdb *d = pdb_open(path, flags, &err);
    if (!d) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(path, "%s", msg);
    }
    return d;
}

static const mr_sql_query *find_query(const char *name)
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

static void list_queries(void)
{
    for (const mr_sql_query *q = mr_sql_queries; q->name; q++) {
        char d[256];
        describe(q, d, sizeof d);
        printf("%-22s %s\n", q->name, d);
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

static void bind_params(sqlite3_stmt *st, const param *p, int np)
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

/* Makes room for one more row. */
static void table_reserve_row(table *t)
{
    if (t->nrows < t->cap)
        return;
    size_t cap = t->cap ? 2 * t->cap : 64;
    char **c = realloc(t->cells, cap * t->ncols * sizeof *c);
    if (!c)
        cli_fail(NULL, "out of memory");
    t->cells = c;
    t->cap = cap;
}

static void print_table(const table *t, int tsv)
{
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w)
        cli_fail(NULL, "out of memory");
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
                printf("%s%s", c ? "\t" : "", s);
            else if (c + 1 == t->ncols)
                printf("%s", s);
            else
                printf("%-*s  ", (int)w[c], s);
        }
        putchar('\n');
    }
    free(w);
}

/* Runs every statement of sql, printing the rows of each. */
static void run_sql(const char *sql, const param *p, int np, int tsv)
{
    sqlite3 *h = pdb_sqlite(db);
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h, tail, -1, &st, &tail) != SQLITE_OK) {
            char msg[512];
            snprintf(msg, sizeof msg, "query: %s", sqlite3_errmsg(h));
            pdb_close(db);
            cli_fail(path, "%s", msg);
        }
        if (!st)
            continue;       /* only comments or spaces were left */
        bind_params(st, p, np);
        table t = { .ncols = sqlite3_column_count(st) };
        if (t.ncols == 0) {
            sqlite3_step(st);
            sqlite3_finalize(st);
            continue;
        }
        table_reserve_row(&t);
        for (int c = 0; c < t.ncols; c++)
            t.cells[c] = strdup(sqlite3_column_name(st, c));
        t.nrows = 1;
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            table_reserve_row(&t);
            for (int c = 0; c < t.ncols; c++) {
                const char *v = (const char *)sqlite3_column_text(st, c);
                t.cells[t.nrows * t.ncols + c] = strdup(v ? v : (tsv ? "" : "NULL"));
            }
            t.nrows++;
        }
        if (rc != SQLITE_DONE) {
            char msg[512];
            snprintf(msg, sizeof msg, "query: %s", sqlite3_errmsg(h));
            sqlite3_finalize(st);
            pdb_close(db);
            cli_fail(path, "%s", msg);
        }
        sqlite3_finalize(st);
        print_table(&t, tsv);
        for (size_t i = 0; i < t.nrows * t.ncols; i++)
            free(t.cells[i]);
        free(t.cells);
    }
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

static void list_runs(int tsv)
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
    run_sql(sql, NULL, 0, tsv);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"run", required_argument, NULL, 'r'},
        {"group", required_argument, NULL, 'g'},
        {"limit", required_argument, NULL, 'l'},
        {"param", required_argument, NULL, 'p'},
        {"tsv", no_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    param params[MAX_PARAMS];
    int np = 0, tsv = 0, c;
    cli_init(argv[0]);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (np == MAX_PARAMS)
            cli_usage_error("too many parameters");
        switch (c) {
        case 'r':
            cli_parse_u64("--run", optarg);
            params[np++] = (param){ "run", optarg };
            break;
        case 'g': params[np++] = (param){ "group", optarg }; break;
        case 'l':
            cli_parse_u64("--limit", optarg);
            params[np++] = (param){ "limit", optarg };
            break;
        case 'p': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg)
                cli_usage_error("--param needs NAME=VALUE");
            *eq = 0;
            params[np++] = (param){ optarg, eq + 1 };
            break;
        }
        case 't': tsv = 1; break;
        case 'h': fputs(usage_text, stdout); return 0;
        case 'V': cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    int nargs = argc - optind;
    char **args = argv + optind;
    if (nargs == 1 && strcmp(args[0], "queries") == 0) {
        list_queries();
        return 0;
    }
    if (nargs < 2)
        cli_usage_error("need a database and a command");
    path = args[0];
    const char *cmd = args[1];
    if (strcmp(cmd, "init") == 0 || strcmp(cmd, "upgrade") == 0) {
        if (nargs != 2)
            cli_usage_error("'%s' takes no argument", cmd);
        int existed = access(path, F_OK) == 0;
        db = open_db(strcmp(cmd, "init") == 0 ? PDB_CREATE : 0);
        printf("%s: schema version %d%s\n", path, PDB_SCHEMA_VERSION,
               existed ? "" : " (created)");
    } else if (strcmp(cmd, "runs") == 0) {
        if (nargs != 2)
            cli_usage_error("'runs' takes no argument");
        db = open_db(PDB_READONLY);
        list_runs(tsv);
    } else if (strcmp(cmd, "delete") == 0) {
        if (nargs != 3)
            cli_usage_error("'delete' needs one run number");
        uint64_t run = cli_parse_u64("delete", args[2]);
        db = open_db(0);
        int rc = pdb_delete_run(db, (int64_t)run);
        if (rc < 0)
            db_fail();
        if (rc > 0) {
            pdb_close(db);
            cli_fail(path, "no run %" PRIu64, run);
        }
        printf("deleted run %" PRIu64 "\n", run);
    } else if (strcmp(cmd, "query") == 0) {
        if (nargs != 3)
            cli_usage_error("'query' needs one query name (see 'trace-db queries')");
        const mr_sql_query *q = find_query(args[2]);
        if (!q)
            cli_usage_error("no query named '%s' (see 'trace-db queries')", args[2]);
        db = open_db(PDB_READONLY);
        run_sql(q->text, params, np, tsv);
    } else {
        cli_usage_error("unknown command '%s'", cmd);
    }
    pdb_close(db);
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write");
    return 0;
}
