/*
 * trace-layout: LWPTool's data layout advice (hot data, structure
 * splitting, array regrouping) over a whole trace, every access weighted by
 * the cache model, and the predicted gain of each suggestion from a replay
 * of the trace with the advice applied. The analyses are in
 * tools/lib/layout, the loops in tools/lib/stream/cfg; decisions in
 * docs/trace-layout.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "algo/cache_config.h"
#include "layout/layout.h"
#include "layout/replay.h"
#include "layout/report.h"
#include "layout/store.h"
#include "db/session.h"

static const char *preset = "lwptool", *db_path;
static ly_options lo = {.hot = LY_DEFAULT_HOT, .tau = LY_DEFAULT_TAU,
                        .presence = LY_DEFAULT_PRESENCE, .group_depth = 1};
static int no_gain;
static uint32_t top = 10;

static const char *set_metric(const char *v)
{
    if (!strcmp(v, "latency"))
        lo.metric = LY_LATENCY;
    else if (!strcmp(v, "misses"))
        lo.metric = LY_MISSES;
    else if (!strcmp(v, "count"))
        lo.metric = LY_COUNT;
    else
        return "not latency, misses or count";
    return NULL;
}

/* A fraction in [0, 1]. */
static const char *fraction(const char *v, double *dest)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d >= 0) || d > 1)
        return "not a number in [0, 1]";
    *dest = d;
    return NULL;
}
static const char *set_hot(const char *v) { return fraction(v, &lo.hot); }
static const char *set_tau(const char *v) { return fraction(v, &lo.tau); }
static const char *set_presence(const char *v) { return fraction(v, &lo.presence); }

static const opt_def options[] = {
    { "preset", 0, OPT_STRING, &preset, "NAME",
      "cache hierarchy: lwptool (default), rds or host", 0, 0, NULL },
    { "metric", 0, OPT_CALL, NULL, "M",
      "weight of an access: latency (default, the cache\n"
      "model's), misses (D1 misses) or count", 0, 0, set_metric },
    { "loads-only", 0, OPT_FLAG, &lo.loads_only, NULL,
      "weigh loads only (as PEBS-LL sees them)", 0, 0, NULL },
    { "sample", 0, OPT_U64, &lo.sample, "N",
      "analyse a random 1 in N accesses (geometric gaps of\n"
      "mean N), to compare with sampling (LWPTool's Table 11)", 1, 1000000000, NULL },
    { "seed", 0, OPT_U64, &lo.seed, "S", "seed of --sample", 0, UINT64_MAX, NULL },
    { "hot", 0, OPT_CALL, NULL, "F", "l_d a group needs to be analysed (default 0.01)",
      0, 0, set_hot },
    { "tau", 0, OPT_CALL, NULL, "F",
      "affinity (FA, AA) that joins two clusters (default 0.5)", 0, 0, set_tau },
    { "presence", 0, OPT_CALL, NULL, "F",
      "share of a field's weight a loop needs to count as\n"
      "touching it (default 0.001)", 0, 0, set_presence },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the results in profile database FILE\n"
      "(layout_* tables; one transaction)", 0, 0, NULL },
    { "no-gain", 0, OPT_FLAG, &no_gain, NULL,
      "skip the replay that predicts each suggestion's gain", 0, 0, NULL },
    { "top", 0, OPT_U32, &top, "N", "rows of the hot data and loop tables (default 10)",
      1, 100000, NULL },
    { "group-depth", 0, OPT_U32, &lo.group_depth, "N",
      "frames defining a heap group (default 1)", 1, OBJ_MAX_DEPTH, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Data layout advice after LWPTool: hot data objects, structure splitting\n"
    "(field offsets, field affinity, the structures to split into) and array\n"
    "regrouping (classes, conflicts, array affinity), every access weighted by\n"
    "the cache model, and each suggestion's predicted miss and latency change.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "The trace is read three times (loops, analyses, the replay of the\n"
    "advice), so it must be a file, not standard input.\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read, 2 for bad usage.\n",
};

static mr_reader *reader;
static pdb_session db;

static ly_profile *prof;
static ly_replay *replay;

/* The first pass: the loops. */
static cfg *loops_of(void)
{
    mr_event ev;
    cfg_builder *b = cfg_builder_new();
    cfg *g;
    if (!b)
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev))
        if (cfg_builder_event(b, &ev) < 0)
            cli_fail(cli_trace(), "out of memory");
    if (!(g = cfg_build(b, reader)))
        cli_fail(cli_trace(), "out of memory");
    cfg_builder_free(b);
    return g;
}

int main(int argc, char **argv)
{
    char **args, err[256], *rerr = NULL;
    static char outbuf[1 << 16];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (cache_preset(preset, &lo.cache, err, sizeof err))
        cli_usage_error("option '--preset': %s", err);
    if (!args[0] || !strcmp(args[0], "-"))
        cli_fail("<stdin>", "reads the trace more than once: give a file, not standard input");
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    cfg *g = loops_of();
    /* the second pass on a fresh reader; symbols come from the first */
    mr_reader *again = mr_reader_open(args[0], &rerr);
    if (!again)
        cli_fail(args[0], "cannot reopen: %s", rerr ? rerr : "?");
    lo.reader = reader;
    if (!(prof = ly_new(&lo, g)))
        cli_fail(NULL, "out of memory");
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    while (mr_next(again, &ev) > 0)     /* pass 1 met any error first */
        if (ly_event(prof, &ev) < 0)
            cli_fail(cli_trace(), "out of memory");
    mr_reader_close(again);
    if (ly_finish(prof) < 0)
        cli_fail(cli_trace(), "out of memory");
    if (!no_gain && !(replay = ly_replay_file(prof, args[0], &rerr)))
        cli_fail(args[0], "%s", rerr ? rerr : "out of memory");
    if (db_path &&
        (pdb_session_begin(&db, "layout", LAYOUT_TABLES, reader, args[0], argc, argv) < 0 ||
         ly_store(db.db, db.run, prof, replay, reader) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    if (!cli_trace_complete())
        printf("the trace is truncated: what follows covers its intact part\n");
    if (ly_report(stdout, prof, replay, top) < 0)
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    cli_flush_stdout();
    ly_replay_free(replay);
    ly_free(prof);
    cfg_free(g);
    mr_reader_close(reader);
    return 0;
}
