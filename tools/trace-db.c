/*
 * trace-db: the profile database from the command line: create or upgrade
 * it, list and delete runs, run the canned queries of sql/queries (compiled
 * in, so the command needs no files; db/query.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/profiledb.h"
#include "db/query.h"

#define MAX_PARAMS 16

/* Parameters bound to the query, in command-line order. */
static pdb_param params[MAX_PARAMS];
static int nparams, tsv;

static const char *add_param(const char *name, const char *value)
{
    if (nparams == MAX_PARAMS)
        return "too many parameters";
    params[nparams++] = (pdb_param){ name, value };
    return NULL;
}

static const char *number_param(const char *name, const char *value)
{
    char *end;
    strtoull(value, &end, 10);
    if (!*value || *value == '-' || *end)
        return "not a number";
    return add_param(name, value);
}

static const char *set_run(const char *v) { return number_param("run", v); }
static const char *set_limit(const char *v) { return number_param("limit", v); }
static const char *set_group(const char *v) { return add_param("group", v); }

static const char *set_param(const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
        return "needs NAME=VALUE";
    /* The name is the value's own prefix: argv outlives the parameters. */
    *(char *)eq = 0;
    return add_param(v, eq + 1);
}

static const opt_def options[] = {
    { "run", 0, OPT_CALL, NULL, "N", "the run a query looks at (binds :run)", 0, 0, set_run },
    { "group", 0, OPT_CALL, NULL, "NAME", "the group a query looks at (binds :group)",
      0, 0, set_group },
    { "limit", 0, OPT_CALL, NULL, "N", "rows at most (binds :limit)", 0, 0, set_limit },
    { "param", 0, OPT_CALL, NULL, "NAME=VALUE",
      "binds :NAME to VALUE (a number if it looks like one)", 0, 0, set_param },
    { "tsv", 0, OPT_FLAG, &tsv, NULL,
      "tab-separated output with a header line, for scripts", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "FILE COMMAND [ARG]   (or: trace-db queries)",
    .summary =
    "Manage a memrec profile database (sql/schema/*.sql). Commands:\n"
    "  FILE init, FILE upgrade  create the database, or bring an older one\n"
    "                           up to date\n"
    "  FILE runs                list the runs it holds, whether each profile\n"
    "                           covers its whole trace (complete), and the\n"
    "                           analyses of each\n"
    "  FILE delete RUN          delete a run and every row of it, in one\n"
    "                           transaction\n"
    "  FILE query NAME          run a canned query; by default on the latest run\n"
    "  queries                  list the canned queries",
    .opts = options,
    .max_args = 3,
    .min_args = 1,
    .notes =
    "The same queries run in the sqlite3 shell: sqlite3 FILE < sql/queries/X.sql\n"
    "(parameters left unset mean their defaults). Exit status: 0, 1 on a\n"
    "database error, 2 for bad usage.\n",
};

static pdb *db;
static const char *path;

static void close_db(void *ctx)
{
    (void)ctx;
    pdb_close(db);
    db = NULL;
}

static void open_db(int flags)
{
    char *err;
    if (!(db = pdb_open(path, flags, &err))) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(path, "%s", msg);
    }
    cli_on_fail(close_db, NULL);
}

/* FILE COMMAND [ARG] */
static void run_command(const char *cmd, int nargs, char **args)
{
    char err[600];
    int takes = strcmp(cmd, "delete") == 0 || strcmp(cmd, "query") == 0;
    if (nargs != 2 + takes)
        cli_usage_error(takes ? "'%s' needs one argument" : "'%s' takes no argument", cmd);
    if (strcmp(cmd, "init") == 0 || strcmp(cmd, "upgrade") == 0) {
        int existed = access(path, F_OK) == 0;
        open_db(strcmp(cmd, "init") == 0 ? PDB_CREATE : 0);
        printf("%s: schema version %d%s\n", path, PDB_SCHEMA_VERSION,
               existed ? "" : " (created)");
    } else if (strcmp(cmd, "runs") == 0) {
        open_db(PDB_READONLY);
        if (pdb_print_runs(db, tsv, stdout, err, sizeof err) < 0)
            cli_fail(path, "%s", err);
    } else if (strcmp(cmd, "delete") == 0) {
        uint64_t run = cli_parse_u64("delete", args[2]);
        open_db(0);
        int rc = pdb_delete_run(db, (int64_t)run);
        if (rc != 0)
            cli_fail(path, "%s", rc < 0 ? pdb_error(db) : "no such run");
        printf("deleted run %" PRIu64 "\n", run);
    } else if (strcmp(cmd, "query") == 0) {
        const mr_sql_query *q = pdb_find_query(args[2]);
        if (!q)
            cli_usage_error("no query named '%s' (see 'trace-db queries')", args[2]);
        open_db(PDB_READONLY);
        if (pdb_print_sql(db, q->text, params, nparams, tsv, stdout, err, sizeof err) < 0)
            cli_fail(path, "%s", err);
    } else {
        cli_usage_error("unknown command '%s'", cmd);
    }
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    int nargs = opts_parse(&spec, argc, argv, &args);
    if (nargs == 1 && strcmp(args[0], "queries") == 0) {
        pdb_list_queries(stdout);
    } else {
        if (nargs < 2)
            cli_usage_error("need a database and a command");
        path = args[0];
        run_command(args[1], nargs, args);
    }
    cli_on_fail(NULL, NULL);
    pdb_close(db);
    cli_flush_stdout();
    return 0;
}
