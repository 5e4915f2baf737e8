/*
 * trace-twpp: Zhang and Gupta's timestamped whole program paths. Builds a
 * .twpp file from a trace (tools/lib/twpp), and answers queries from that
 * file alone: one function's path traces, or the whole block sequence.
 * Decisions and the file layout in docs/trace-twpp.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "twpp/file.h"
#include "twpp/report.h"
#include "twpp/store.h"


static const char *out_path, *db_path, *function, *dependences;
static int expand, all_edges, no_dependences;

static const opt_def options[] = {
    { "output", 'o', OPT_STRING, &out_path, "FILE",
      "write the TWPP to FILE (default: TRACE.twpp)", 0, 0, NULL },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store per-function counts and the size of every\n"
      "part in the profile database FILE (created if missing)", 0, 0, NULL },
    { "function", 0, OPT_STRING, &function, "NAME",
      "read FILE.twpp and print NAME's unique path traces\n"
      "(blocks as function:line), calls per trace, and its\n"
      "DBB dictionaries", 0, 0, NULL },
    { "expand", 0, OPT_FLAG, &expand, NULL,
      "read FILE.twpp and print every thread's blocks back,\n"
      "as trace-wpp --expand does (0xADDR, one per line)", 0, 0, NULL },
    { "dependences", 0, OPT_STRING, &dependences, "LOAD",
      "read FILE.twpp and print the TWPP+ dependence edges of\n"
      "load point LOAD: its number N (as printed, AN) or\n"
      "FUNCTION:LINE (every load point there)", 0, 0, NULL },
    { "all-edges", 0, OPT_FLAG, &all_edges, NULL,
      "keep the edges control flow can recover (both ends at\n"
      "one known address) instead of dropping them", 0, 0, NULL },
    { "no-dependences", 0, OPT_FLAG, &no_dependences, NULL,
      "build the control-flow part only (no TWPP+ sections)", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-] | --function NAME FILE.twpp | --expand FILE.twpp |\n"
            "       --dependences LOAD FILE.twpp",
    .summary =
    "Timestamped whole program paths (TWPP): each thread's blocks cut into\n"
    "per-call path traces linked by a dynamic call graph, duplicates removed\n"
    "per function, dynamic basic blocks put in dictionaries, the traces kept\n"
    "as DBB -> timestamp series, written to one file with a header of\n"
    "per-function offsets so that one function is read without the rest.\n"
    "TWPP+ goes into the same file: one edge per load to the store instance\n"
    "that last wrote it, over a global access-point dictionary, the edges\n"
    "control flow recovers dropped, the rest grouped per load point and\n"
    "compressed column by column with Sequitur.\n"
    "\n"
    "Building prints the counts and the size of every part.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Exit status: 0 (also on a truncated trace: a warning, and the paths so\n"
    "far; an error with --strict), 1 on a bad trace, .twpp file, database or\n"
    "write error, an unknown function or load point, 2 for bad usage.\n",
};

static mr_reader *reader;
static twpp_file *file;
static twpp_model *model;
static twpp_plus *plus;
static pdb_session db;

/* The run's rows in one transaction; on failure the database is as before. */
static void store(int argc, char **argv, const char *trace, const twpp_sizes *sz,
                  const uint64_t *fn_bytes, uint64_t blocks)
{
    if (pdb_session_begin(&db, "twpp", TWPP_TABLES, reader, trace, argc, argv) < 0 ||
        twpp_store(db.db, db.run, model, plus, sz, fn_bytes, blocks) < 0 ||
        pdb_session_commit(&db) < 0)
        cli_fail(db_path, "%s", pdb_session_error(&db));
}

static void query(const char *path)
{
    char err[256];
    if (!(file = twpp_open(path, err, sizeof err)))
        cli_fail(path, "%s", err);
    int rc = function ? twpp_print_function(stdout, file, function, err, sizeof err)
           : dependences ? twpp_print_dependences(stdout, file, dependences, err, sizeof err)
           : twpp_print_expansion(stdout, file, err, sizeof err);
    if (rc < 0)
        cli_fail(path, "%s", err);
    cli_flush_stdout();
    twpp_close(file);
}

static void build(const char *trace, int argc, char **argv)
{
    char err[256];
    mr_event ev;
    twpp_builder *b = twpp_builder_new();
    twpp_sizes sz;
    twpp_where w;
    twpp_plus_counts counts;
    if (!out_path && !strcmp(trace, "-"))
        cli_usage_error("reading a trace from stdin needs -o FILE");
    reader = cli_open_trace(trace);
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!b || (!no_dependences && !(plus = twpp_plus_new())))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev))
        if (ev.kind == MR_EV_EXEC &&
            (plus ? twpp_exec_where(b, ev.tid, ev.u.exec.def, ev.u.exec.exit, &w) < 0 ||
                    twpp_plus_exec(plus, &w, &ev) < 0
                  : twpp_exec(b, ev.tid, ev.u.exec.def, ev.u.exec.exit) < 0))
            cli_fail(NULL, "out of memory");
    uint64_t blocks = twpp_builder_length(b);
    if (!(model = twpp_finish(b, reader)) || (plus && twpp_plus_finish(plus, reader, all_edges) < 0))
        cli_fail(NULL, "out of memory");
    if (plus)
        twpp_plus_count(plus, &counts);
    char *path = (char *)out_path;
    if (!path && (!(path = malloc(strlen(trace) + 6)) || !sprintf(path, "%s.twpp", trace)))
        cli_fail(NULL, "out of memory");
    uint64_t *fn_bytes = calloc(model->nfunctions + 1, sizeof *fn_bytes);
    if (!fn_bytes)
        cli_fail(NULL, "out of memory");
    if (twpp_write_releasing(model, plus, path, &sz, fn_bytes, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
    if (twpp_print_summary(stdout, model, plus ? &counts : NULL, &sz, blocks) < 0)
        cli_fail(NULL, "cannot write the summary");
    if (db_path)
        store(argc, argv, trace, &sz, fn_bytes, blocks);
    cli_flush_stdout();
    if (path != out_path)
        free(path);
    free(fn_bytes);
    twpp_model_free(model);
    twpp_plus_free(plus);
    mr_reader_close(reader);
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    int queries = !!function + expand + !!dependences;
    if (queries > 1)
        cli_usage_error("--function, --expand and --dependences are different queries");
    if (queries && (db_path || all_edges || no_dependences))
        cli_usage_error(db_path ? "--db goes with building, not with a query"
                                : "--all-edges and --no-dependences go with building, not with a query");
    if (all_edges && no_dependences)
        cli_usage_error("--all-edges keeps TWPP+ edges that --no-dependences does not build");
    if (queries && !strcmp(args[0], "-"))
        cli_usage_error("a query needs FILE.twpp");
    if (queries)
        query(args[0]);
    else
        build(args[0], argc, argv);
    return 0;
}
