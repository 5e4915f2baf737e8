/*
 * trace-plot: pictures of a profile database. Runs the plot's data query
 * (sql/queries/plot_NAME.sql, compiled in) and hands the rows to gnuplot
 * with the script plots/NAME.gp (tools/lib/plot/plot.h): a new plot needs
 * those two files and nothing here.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/profiledb.h"
#include "plot/plot.h"

static const char *db_path, *output;
static pdb_param params[3];     /* run, group, limit: as the queries name them */
static int nparams;
static const char *run;

static const char *add(const char *name, const char *v, int number)
{
    char *end;
    strtoull(v, &end, 10);
    if (number && (!*v || *v == '-' || *end))
        return "not a number";
    for (int i = 0; i < nparams; i++)
        if (strcmp(params[i].name, name) == 0) {
            params[i].value = v;    /* the last one given counts */
            return NULL;
        }
    params[nparams++] = (pdb_param){ name, v };
    return NULL;
}

static const char *set_run(const char *v) { run = v; return add("run", v, 1); }
static const char *set_group(const char *v) { return add("group", v, 0); }
static const char *set_limit(const char *v) { return add("limit", v, 1); }
static const opt_def options[] = {
    { "db", 0, OPT_STRING, &db_path, "FILE", "the profile database", 0, 0, NULL },
    { "run", 0, OPT_CALL, NULL, "N", "the run (default: the latest)", 0, 0, set_run },
    { "group", 0, OPT_CALL, NULL, "NAME",
      "the group, by name as trace-db shows it (offsets:\n"
      "default the hottest heap group)", 0, 0, set_group },
    { "limit", 0, OPT_CALL, NULL, "N", "how many groups (lifetimes, groups)", 0, 0, set_limit },
    { "output", 'o', OPT_STRING, &output, "FILE",
      "the picture, .png or .svg (default NAME.png)", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "NAME --db FILE",
    .summary = "Draw a picture of a profile database with gnuplot; NAME is one of the\n"
               "plots 'trace-plot list' prints.",
    .opts = options,
    .min_args = 1,
    .max_args = 1,
    .notes =
    "The gnuplot scripts are found in $MEMREC_PLOTS, else in plots/ of the\n"
    "source tree the command was built in (../../plots or ../../../plots from\n"
    "the command), else in ../share/memrec/plots (installed), else ./plots.\n"
    "Exit status: 0, 1 on a database, data or gnuplot error, 2 for bad usage.\n",
};

static void list_plots(void)
{
    printf("Plots:\n");
    plot_list(stdout);
}

int main(int argc, char **argv)
{
    char **args, *err = NULL, msg[1024], outbuf[PATH_MAX];
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (strcmp(args[0], "list") == 0) {
        list_plots();
        return 0;
    }
    if (!db_path)
        cli_usage_error("--db FILE is needed");
    if (!output) {
        snprintf(outbuf, sizeof outbuf, "%s.png", args[0]);
        output = outbuf;
    }
    plot_request rq = { .name = args[0], .output = output, .params = params,
                        .nparams = nparams, .run = run };
    if (plot_check(&rq, msg, sizeof msg) < 0)
        cli_usage_error("%s", msg);
    pdb *db = pdb_open(db_path, PDB_READONLY, &err);
    if (!db) {
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(db_path, "%s", msg);
    }
    int rc = plot_draw(db, &rq, msg, sizeof msg);
    pdb_close(db);
    if (rc < 0)
        cli_fail(db_path, "%s", msg);
    printf("%s\n", output);
    return 0;
}
