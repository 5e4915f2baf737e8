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

#include "base/cli.h"
#include "base/opts.h"
#include "dataflow/report.h"
#include "twpp/file.h"

static const char *function;
static uint32_t top = 20;

static const opt_def options[] = {
    { "function", 0, OPT_STRING, &function, "NAME",
      "print NAME's timestamp-annotated dynamic CFGs (one per\n"
      "compacted trace): every DBB with its timestamp series\n"
      "and its predecessors", 0, 0, NULL },
    { "top", 0, OPT_U32, &top, "N", "functions listed in Table 5.1 (default 20)", 0, 1000000, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "FILE.twpp",
    .summary =
    "Profile-limited data-flow analysis on a TWPP file (trace-twpp): the\n"
    "dynamic CFG of a function annotated with the timestamps of its DBBs,\n"
    "and Table 5.1 (static against dynamic flow graphs, the timestamp vector\n"
    "per node compacted and not) for the whole file.",
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

static void table(const char *path)
{
    char err[256];
    const twpp_model *m = twpp_file_model(file);
    df_table_row total;
    if (!(rows = calloc(m->nfunctions + 1, sizeof *rows)))
        cli_fail(NULL, "out of memory");
    if (df_table_file(file, rows, &total, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
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
        df_print_function(stdout, twpp_file_model(file), (uint32_t)i, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
}

int main(int argc, char **argv)
{
    char **args, err[256];
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (!(file = twpp_open(args[0], err, sizeof err)))
        cli_fail(args[0], "%s", err);
    if (function)
        show_function(args[0]);
    else
        table(args[0]);
    cli_flush_stdout();
    twpp_close(file);
    return 0;
}
