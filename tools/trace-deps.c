/*
 * trace-deps: the baselines LEAP is measured against: the exact
 * dependence and stride profiler (a shadow memory of each byte's last
 * writer) and Connors' windowed dependence profiler. The algorithms are in
 * tools/lib/deps/, the decisions in docs/trace-deps.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "deps/run.h"
#include "objects/objmap.h"

static const char *db_path;
static deps_method method = DEPS_EXACT;
static uint32_t window = DEPS_DEFAULT_WINDOW, group_depth = 1;
static int window_given, no_strides;

static const char *set_method(const char *v)
{
    if (!strcmp(v, "exact"))
        method = DEPS_EXACT;
    else if (!strcmp(v, "connors"))
        method = DEPS_CONNORS;
    else
        return "not exact or connors";
    return NULL;
}

static const char *set_window(const char *v)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *v == '-' || *end || n < 1 || n > 1000000)
        return "not in 1..1000000";
    window = (uint32_t)n;
    window_given = 1;
    return NULL;
}

static const opt_def options[] = {
    { "method", 0, OPT_CALL, NULL, "exact|connors",
      "exact (default): the truth: a shadow memory holds each\n"
      "byte's last writer; also the exact stride profile\n"
      "of every instruction (within objects)\n"
      "connors: Connors' profiler: only the last --window\n"
      "stores are remembered; it never overestimates", 0, 0, set_method },
    { "window", 0, OPT_CALL, NULL, "N", "Connors' history, in stores (default 32)",
      0, 0, set_window },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the results in profile database FILE\n"
      "(the method's rows of dependences and strides)", 0, 0, NULL },
    { "no-strides", 0, OPT_FLAG, &no_strides, NULL,
      "exact: the dependences alone, without the stride\n"
      "profile (a histogram per instruction, exact up to\n"
      "512 distinct strides, bounded past that; about half\n"
      "the time on irregular code)", 0, 0, NULL },
    { "group-depth", 0, OPT_U32, &group_depth, "N",
      "heap groups for the strides (default 1)", 1, OBJ_MAX_DEPTH, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Memory dependence frequencies of every (store, load) pair, on raw\n"
    "addresses: the share of a load's executions whose first byte the store\n"
    "wrote last before it.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Output, tab-separated:\n"
    "  summary accesses N method M memory_bytes N strides_bounded N\n"
    "  dep     STORE LOAD frequency conflicts executions\n"
    "  stride  INSN stride share steps strongly|weakly   (exact only)\n"
    "instructions written function:line@0xADDR(kind size). See\n"
    "docs/trace-deps.md.\n"
    "\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read or the database cannot\n"
    "be written (it is then left as it was), 2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static deps_run *run;
static pdb_session db;

int main(int argc, char **argv)
{
    static const char *const mine[] = { NULL };  /* rows go by method */
    char **args, name[32];
    static char outbuf[1 << 16];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (window_given && method != DEPS_CONNORS)
        cli_usage_error("option '--window' is for --method=connors");
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!(run = deps_run_new(reader, method, window,
                             method == DEPS_EXACT && !no_strides, group_depth)))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev))
        if (deps_run_event(run, &ev) < 0)
            cli_fail(cli_trace(), "out of memory");
    if (deps_run_finish(run) < 0)
        cli_fail(cli_trace(), "out of memory");
    snprintf(name, sizeof name, "deps-%s", deps_run_method(run));
    if (db_path &&
        (pdb_session_begin(&db, name, mine, reader, args[0], argc, argv) < 0 ||
         deps_run_store(run, db.db, db.run) < 0 || pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (deps_run_print(run, stdout) < 0)
        cli_fail("<stdout>", "cannot write");
    cli_flush_stdout();
    deps_run_free(run);
    mr_reader_close(reader);
    return 0;
}
