/*
 * trace-dataflow: profile-limited, demand-driven data-flow analysis on a
 * TWPP file (seed 001, section 5.2): the timestamp-annotated dynamic CFG
 * of a function, Table 5.1's figures, and queries <T, n>_d answered by
 * moving timestamp vectors backwards. The algorithm is in
 * tools/lib/dataflow; decisions in docs/trace-dataflow.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cli.h"
#include "base/opts.h"
#include "dataflow/answer.h"
#include "dataflow/calls.h"
#include "dataflow/report.h"
#include "dataflow/store.h"
#include "db/session.h"
#include "twpp/edges.h"
#include "twpp/file.h"

static const char *function, *at, *fact, *db_path;
static uint32_t top = 20;
static int check, follow_calls;

static const opt_def options[] = {
    { "function", 0, OPT_STRING, &function, "NAME",
      "print NAME's timestamp-annotated dynamic CFGs (one per\n"
      "compacted trace): every DBB with its timestamp series\n"
      "and its predecessors", 0, 0, NULL },
    { "at", 0, OPT_STRING, &at, "BLOCK",
      "with --function and --fact: how often the fact holds just\n"
      "before BLOCK (0xADDR of a block, or FUNCTION:LINE)", 0, 0, NULL },
    { "fact", 0, OPT_STRING, &fact, "FACT",
      "written-by:S@X (X last written by store S) or redundant:L\n"
      "(load L would read what a load read, no store since);\n"
      "S, L: an access point AN or instruction 0xADDR; X: 0xADDR\n"
      "or a single-address point AN", 0, 0, NULL },
    { "calls", 0, OPT_FLAG, &follow_calls, NULL,
      "follow calls: a callee's accesses generate and kill\n"
      "too, call by call (expands the whole program)", 0, 0, NULL },
    { "check", 0, OPT_FLAG, &check, NULL,
      "also count by walking every path forward, and say\n"
      "whether the two agree", 0, 0, NULL },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "with Table 5.1: also store it per function in the\n"
      "profile database FILE (table dataflow_graphs)", 0, 0, NULL },
    { "top", 0, OPT_U32, &top, "N", "functions listed in Table 5.1 (default 20)", 0, 1000000, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "FILE.twpp",
    .summary =
    "Profile-limited data-flow analysis on a TWPP file (trace-twpp): the\n"
    "dynamic CFG of a function annotated with the timestamps of its DBBs,\n"
    "and Table 5.1 (static against dynamic flow graphs, the timestamp vector\n"
    "per node compacted and not) for the whole file; with --at and --fact,\n"
    "the demand-driven query <T, n>_d at a block, answered by moving timestamp\n"
    "vectors backwards over the function's paths.",
    .opts = options,
    .min_args = 1,
    .max_args = 1,
    .notes =
    "Exit status: 0, 1 on a bad .twpp file or an unknown function, 2 for bad\n"
    "usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static twpp_file *file;
static df_table_row *rows;
static df_spec spec_d;
static df_result res;
static pdb_session db;
static df_calls groups;

/* Table 5.1 in the database, one transaction. */
static void store_table(const char *path, const twpp_model *m, int argc, char **argv)
{
    if (df_begin_run(&db, path, argc, argv) < 0 || df_store_table(db.db, db.run, m, rows) < 0 ||
        pdb_session_commit(&db) < 0)
        cli_fail(db_path, "%s", pdb_session_error(&db));
}

static void table(const char *path, int argc, char **argv)
{
    char err[256];
    const twpp_model *m = twpp_file_model(file);
    df_table_row total;
    if (!(rows = calloc(m->nfunctions + 1, sizeof *rows)))
        cli_fail(NULL, "out of memory");
    if (df_table_file(file, rows, &total, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
    if (db_path)
        store_table(path, m, argc, argv);
    if (df_print_table(stdout, m, rows, &total, top) < 0)
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    free(rows);
}

static void show_function(const char *path)
{
    char err[256];
    int64_t i = twpp_find_function(file, function);
    if (i < 0)
        cli_fail(path, "no function '%s'", function);
    if (twpp_load_symbols(file, err, sizeof err) < 0 ||
        twpp_load_function(file, (uint32_t)i, err, sizeof err) < 0 ||
        twpp_load_points(file, err, sizeof err) < 0 ||
        df_print_function(stdout, file, (uint32_t)i, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void query(const char *path)
{
    char err[256];
    int64_t i = twpp_find_function(file, function);
    if (i < 0)
        cli_fail(path, "no function '%s'", function);
    double t0 = now_ms();
    /* the queries move whole series: the function's traces are read as
     * series unless the forward check or --calls expand them */
    int whole = check || follow_calls;
    if (twpp_load_symbols(file, err, sizeof err) < 0 || twpp_load_points(file, err, sizeof err) < 0 ||
        (whole ? twpp_load_function : twpp_load_function_series)(file, (uint32_t)i, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
    const twpp_model *m = twpp_file_model(file);
    uint32_t n;
    uint32_t *targets = df_block_symbols(m, at, &n);
    if (!targets)
        cli_fail(NULL, "out of memory");
    if (!n)
        cli_fail(path, "no block '%s'", at);
    if (df_spec_parse(&spec_d, file, (uint32_t)i, fact, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
    if (follow_calls) {
        if (df_calls_collect(file, &spec_d, targets, n, &groups, err, sizeof err) < 0)
            cli_fail(path, "%s", err);
        if (df_answer_calls(file, &spec_d, targets, n, &groups, &res) < 0)
            cli_fail(NULL, "out of memory");
        df_calls_free(&groups);
    } else if (df_answer_at(file, &spec_d, targets, n, check, &res) < 0) {
        cli_fail(NULL, "out of memory");
    }
    double t1 = now_ms();
    if (df_print_answer(stdout, m, &spec_d, at, &res, check, follow_calls, t1 - t0) < 0)
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    if (check && (res.check.holds != res.holds || res.check.fails != res.fails ||
                  res.check.entry != res.entry))
        cli_fail(path, "the propagation and the forward walk disagree");
    free(targets);
    df_spec_free(&spec_d);
}

int main(int argc, char **argv)
{
    char **args, err[256];
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (!(file = twpp_open(args[0], err, sizeof err)))
        cli_fail(args[0], "%s", err);
    if ((at || fact) && !(at && fact && function))
        cli_usage_error("a query needs --function, --at and --fact");
    if ((check || follow_calls) && !at)
        cli_usage_error("--check and --calls go with a query (--at)");
    if (db_path && (at || function))
        cli_usage_error("--db goes with Table 5.1, not with --function");
    if (db_path)
        pdb_session_start(&db, db_path);
    if (at)
        query(args[0]);
    else if (function)
        show_function(args[0]);
    else
        table(args[0], argc, argv);
    cli_flush_stdout();
    twpp_close(file);
    return 0;
}
