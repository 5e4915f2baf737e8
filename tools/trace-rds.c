/*
 * trace-rds: recursive data structure profiling (Raman and August,
 * MSP'05): shape graphs from pointer stores, RDS types and instances,
 * their edges, lifetimes, traversals, latency and stability. The
 * algorithm is in tools/lib/rds; decisions in docs/trace-rds.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "algo/cache_config.h"
#include "db/session.h"
#include "rds/feed.h"
#include "rds/report.h"
#include "rds/results.h"
#include "rds/store.h"

/* What the command line asked for. */
static const char *db_path, *preset = "rds";
static const char *level_name[16], *level_spec[16];   /* in the order given */
static int nlevel_opts;
static uint32_t memory_latency, top = 10;
static double threshold = RDS_DEFAULT_THRESHOLD;

static const char *add_level(const char *name, const char *spec)
{
    if (nlevel_opts == 16)
        return "too many cache level options";
    level_name[nlevel_opts] = name;
    level_spec[nlevel_opts++] = spec;
    return NULL;
}
static const char *set_D1(const char *v) { return add_level("D1", v); }
static const char *set_L2(const char *v) { return add_level("L2", v); }
static const char *set_L3(const char *v) { return add_level("L3", v); }
static const char *set_LL(const char *v) { return add_level("LL", v); }

static const char *set_threshold(const char *v)
{
    char *end;
    errno = 0;
    threshold = strtod(v, &end);
    return errno || end == v || *end || !(threshold > 0) || threshold > 1
               ? "not a threshold in (0, 1]" : NULL;
}

static const opt_def options[] = {
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the profile in profile database FILE\n"
      "(rds_* tables; one transaction)", 0, 0, NULL },
    { "threshold", 0, OPT_CALL, NULL, "T",
      "the RSF's t, 0 < T <= 1 (default 0.99)", 0, 0, set_threshold },
    { "preset", 0, OPT_STRING, &preset, "NAME",
      "cache hierarchy of the traversal latencies: rds (the\n"
      "paper's Table 1, the default), lwptool, host", 0, 0, NULL },
    { "D1", 0, OPT_CALL, NULL, "S,A,L[,LAT[,POLICY]]",
      "first-level data cache (as trace-cache)", 0, 0, set_D1 },
    { "L2", 0, OPT_CALL, NULL, "...", "second level", 0, 0, set_L2 },
    { "L3", 0, OPT_CALL, NULL, "...", "third level", 0, 0, set_L3 },
    { "LL", 0, OPT_CALL, NULL, "...", "the last level, replacing it", 0, 0, set_LL },
    { "memory-latency", 0, OPT_U32, &memory_latency, "N",
      "cycles when memory serves an access", 0, 0, NULL },
    { "top", 0, OPT_U32, &top, "N", "instances listed (default 10)", 0, 1000000, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Recursive data structure profiling: the static shape graph of the heap's\n"
    "allocation sites, its recursive types (SCCs), their instances (connected\n"
    "objects), and per instance its edges, lifetime, traversals, average\n"
    "latency per traversal and stability factor (RSF).",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Pointers are 8-byte loads and stores whose values were recorded\n"
    "(--values=pointers at recording, the default).\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read or has no pointer\n"
    "values, or the database cannot be written (it is then left as it was),\n"
    "2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static rds_feed *feed;
static pdb_session db;
static const char no_values[] =
    "no pointer values recorded (--values=none?): RDS profiling needs them; "
    "record with --values=pointers";

/* The hierarchy: the preset, then the level options in order. */
static void build_config(cache_config *cfg)
{
    char err[256];
    if (cache_preset(preset, cfg, err, sizeof err))
        cli_usage_error("option '--preset': %s", err);
    for (int i = 0; i < nlevel_opts; i++)
        if (cache_config_set(cfg, level_name[i], level_spec[i], err, sizeof err))
            cli_usage_error("%s", err);
    if (memory_latency)
        cfg->memory_latency = memory_latency;
    cfg->i1.size = 0;          /* data accesses only: no fetches simulated */
    if (cache_config_check(cfg, err, sizeof err))
        cli_usage_error("%s", err);
}

int main(int argc, char **argv)
{
    cache_config cfg;
    char **args, cache_text[512];
    static rds_results res;
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    build_config(&cfg);
    cache_config_describe(&cfg, cache_text, sizeof cache_text);
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!(feed = rds_feed_new(&cfg, threshold, reader)))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev)) {
        if (ev.kind == MR_EV_PROCESS && rds_values_missing(ev.u.process))
            cli_fail(cli_trace(), "%s", no_values);
        if (rds_feed_event(feed, &ev))
            cli_fail(cli_trace(), "out of memory");
    }
    const rds_feed_stats *fs = rds_feed_get_stats(feed);
    if (fs->word_accesses && !fs->valued)
        cli_fail(cli_trace(), "%s", no_values);
    if (rds_feed_finish(feed) ||
        rds_results_build(&res, rds_feed_profile(feed), fs->first_time, fs->last_time))
        cli_fail(cli_trace(), "out of memory");
    if (db_path &&
        (pdb_session_begin(&db, "rds", RDS_TABLES, reader, args[0], argc, argv) < 0 ||
         rds_store_run(db.db, db.run, feed, &res, threshold, cache_text, reader) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    if (rds_report(stdout, feed, &res, top, cache_text, reader))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    cli_flush_stdout();
    rds_results_free(&res);
    rds_feed_free(feed);
    mr_reader_close(reader);
    return 0;
}
