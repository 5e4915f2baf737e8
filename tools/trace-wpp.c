/*
 * trace-wpp: Larus's whole program paths. Per thread, the sequence of
 * executed blocks as one Sequitur grammar (tools/lib/wpp); its size, its
 * hot subpaths, or its expansion; optionally into the profile database.
 * Decisions in docs/trace-wpp.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/grammar_store.h"
#include "db/session.h"
#include "wpp/report.h"

static const char *db_path;
static int expand;
static wpp_hot_options hot = { .length = 8, .top = 10 };

static const opt_def options[] = {
    { "expand", 0, OPT_FLAG, &expand, NULL,
      "print the paths back instead: each execution's block\n"
      "start address (0x...), one per line, as trace-dump's\n"
      "exec lines; thread by thread, in order of each\n"
      "thread's first execution (a one-thread trace prints\n"
      "exactly trace-dump's order)", 0, 0, NULL },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store each thread's grammar and hot subpaths in\n"
      "the profile database FILE (created if missing)", 0, 0, NULL },
    { "hot-length", 0, OPT_U32, &hot.length, "N",
      "longest subpath considered, in blocks (default 8)", 1, HOT_MAX_LEN, NULL },
    { "hot-cost", 0, OPT_U64, &hot.cost, "C",
      "smallest cost of a hot subpath (default 1% of the\n"
      "thread's executions, at least 2)", 0, 0, NULL },
    { "top", 0, OPT_U64, &hot.top, "N",
      "hot subpaths printed and stored per thread (default 10)", 0, 1000000, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Larus's whole program path: for each thread, the sequence of executed\n"
    "blocks (a block and the exit it left by: exactly the instructions run)\n"
    "as one Sequitur grammar, and its hot subpaths found on the grammar.\n"
    "\n"
    "Default output, per thread: executions, distinct (block, exit) pairs,\n"
    "the grammar's size (rules, symbols, bytes stored), then the hot\n"
    "subpaths, most costly first: cost (length x executions), executions,\n"
    "length, instructions per pass, and the blocks as function:line.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Exit status: 0 (also on a truncated trace: a warning, and the paths so\n"
    "far; an error with --strict), 1 on a bad trace, database or write error,\n"
    "2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static wpp *paths;
static sq_grammar **grammars;
static pdb_session db;

/* Prints one block start address per terminal. */
static int print_address(void *ctx, uint64_t symbol)
{
    (void)ctx;
    return printf("0x%" PRIx64 "\n", wpp_symbol(paths, (uint32_t)symbol)->addr) < 0;
}

/* Every thread in one transaction; on failure the database is as before. */
static void store(int argc, char **argv, const char *trace)
{
    int rc = grammar_store_begin(&db, "wpp", WPP_TABLES, reader, trace, argc, argv);
    for (uint32_t t = 0; t < wpp_thread_count(paths) && rc == 0; t++)
        rc = wpp_store_thread(db.db, db.run, paths, reader, &hot, t, grammars[t]);
    if (rc || pdb_session_commit(&db) < 0)
        cli_fail(db_path, "%s", pdb_session_error(&db));
}

int main(int argc, char **argv)
{
    char **args;
    static char outbuf[1 << 16];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!(paths = wpp_new()))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev))
        if (ev.kind == MR_EV_EXEC && wpp_exec(paths, ev.tid, ev.u.exec.def, ev.u.exec.exit) < 0)
            cli_fail(NULL, "out of memory");
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    uint32_t nthreads = wpp_thread_count(paths);
    if (!(grammars = calloc(nthreads + 1, sizeof *grammars)))
        cli_fail(NULL, "out of memory");
    for (uint32_t t = 0; t < nthreads; t++)
        if (!(grammars[t] = wpp_thread_grammar(paths, t)))
            cli_fail(NULL, "out of memory");
    if (db_path)
        store(argc, argv, args[0]);
    for (uint32_t t = 0; t < nthreads; t++) {
        if (expand ? sq_expand(grammars[t], 0, print_address, NULL) != 0
                   : wpp_print_thread(stdout, paths, reader, &hot, t, grammars[t]) < 0)
            break;
    }
    cli_flush_stdout();
    for (uint32_t t = 0; t < nthreads; t++)
        sq_grammar_free(grammars[t]);
    free(grammars);
    wpp_free(paths);
    mr_reader_close(reader);
    return 0;
}
