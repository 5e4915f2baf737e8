/*
 * trace-cache: a cache hierarchy simulated over a trace's accesses, with
 * misses and latency per level, instruction, object, group and (group,
 * offset), and miss-ratio curves from stack distances. The model is in
 * tools/lib/algo (cache, cache_config, stackdist), the analysis in
 * tools/lib/cache; decisions in docs/trace-cache.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "algo/cache_config.h"
#include "cache/cacheprof.h"
#include "cache/cachereport.h"
#include "cache/cachestore.h"
#include "db/session.h"

/* What the command line asked for. */
static const char *db_path, *preset = "lwptool";
static const char *level_name[16], *level_spec[16];   /* in the order given */
static int nlevel_opts, policy = -1, inclusive, cachegrind, no_fetch,
           no_curves, per_access;
static uint32_t memory_latency, curve_line, top = 10, group_depth = 1;
/* Offsets from here on are one field: structures' fields lie below it,
 * while a large array or buffer would make a record per byte touched. */
static uint64_t field_limit = 4096;
static double rate = 1;

static const char *add_level(const char *name, const char *spec)
{
    if (nlevel_opts == 16)
        return "too many cache level options";
    level_name[nlevel_opts] = name;
    level_spec[nlevel_opts++] = spec;
    return NULL;
}
static const char *set_I1(const char *v) { return add_level("I1", v); }
static const char *set_D1(const char *v) { return add_level("D1", v); }
static const char *set_L2(const char *v) { return add_level("L2", v); }
static const char *set_L3(const char *v) { return add_level("L3", v); }
static const char *set_LL(const char *v) { return add_level("LL", v); }

static const char *set_policy(const char *v)
{
    return (policy = cache_policy_parse(v)) < 0 ? "not lru, plru or random" : NULL;
}

static const char *set_rate(const char *v)
{
    char *end;
    errno = 0;
    rate = strtod(v, &end);
    return errno || end == v || *end || !(rate > 0) || rate > 1
               ? "not a rate in (0, 1]" : NULL;
}

static const char *set_curve_line(const char *v)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || !n || (n & (n - 1)) || n > (1u << 20))
        return "not a power of two up to 1048576";
    curve_line = (uint32_t)n;
    return NULL;
}

static const opt_def options[] = {
    { "preset", 0, OPT_STRING, &preset, "NAME",
      "the hierarchy: rds (the RDS paper's Table 1), lwptool\n"
      "(LWPTool's Xeon E5-2620 v4, the default), host (this\n"
      "machine's sysfs)", 0, 0, NULL },
    { "I1", 0, OPT_CALL, NULL, "S,A,L[,LAT[,POLICY]]",
      "instruction cache: size, associativity, line bytes,\n"
      "latency, policy", 0, 0, set_I1 },
    { "D1", 0, OPT_CALL, NULL, "...", "first-level data cache", 0, 0, set_D1 },
    { "L2", 0, OPT_CALL, NULL, "...", "second level", 0, 0, set_L2 },
    { "L3", 0, OPT_CALL, NULL, "...", "third level", 0, 0, set_L3 },
    { "LL", 0, OPT_CALL, NULL, "...",
      "the last level, replacing it (Cachegrind's spelling)", 0, 0, set_LL },
    { "memory-latency", 0, OPT_U32, &memory_latency, "N",
      "cycles when memory serves an access", 0, 0, NULL },
    { "policy", 0, OPT_CALL, NULL, "P", "lru, plru or random for every level",
      0, 0, set_policy },
    { "inclusive", 0, OPT_FLAG, &inclusive, NULL,
      "lower levels back-invalidate upper ones", 0, 0, NULL },
    { "cachegrind", 0, OPT_FLAG, &cachegrind, NULL,
      "Cachegrind 3.19's model and conventions: I1, D1, LL\n"
      "only (from the preset or options), LRU, straddles\n"
      "and modifies counted as Cachegrind counts them", 0, 0, NULL },
    { "no-fetch", 0, OPT_FLAG, &no_fetch, NULL,
      "do not simulate instruction fetches", 0, 0, NULL },
    { "no-curves", 0, OPT_FLAG, &no_curves, NULL,
      "no stack distances (faster)", 0, 0, NULL },
    { "sample", 0, OPT_CALL, NULL, "RATE",
      "SHARDS sampling at RATE (0 < RATE <= 1; 1: exact)", 0, 0, set_rate },
    { "curve-line", 0, OPT_CALL, NULL, "N", "line bytes of the curves (default: D1's)",
      0, 0, set_curve_line },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the results in profile database FILE\n"
      "(cache_* tables; one transaction)", 0, 0, NULL },
    { "per-access", 0, OPT_FLAG, &per_access, NULL,
      "instead of the report, one line per data access:\n"
      "time tid pc kind size address level latency\n"
      "distance group object offset (joins trace-objrel's\n"
      "lines on time and address)", 0, 0, NULL },
    { "top", 0, OPT_U32, &top, "N", "rows of each worst-of table (default 10)",
      0, 100000, NULL },
    { "group-depth", 0, OPT_U32, &group_depth, "N",
      "frames defining a heap group (default 1)", 1, OBJ_MAX_DEPTH, NULL },
    { "field-limit", 0, OPT_U64, &field_limit, "BYTES",
      "a field is a (group, offset) below BYTES (default\n"
      "4096); offsets from BYTES on are one field, offset\n"
      "BYTES (0: every offset its own field)", 0, UINT64_MAX, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Simulate a cache hierarchy over every access of a trace: hits and misses\n"
    "per level, the worst instructions, groups and objects by latency, and\n"
    "the miss-ratio curve of every fully associative LRU size.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Level options apply after the preset, in the order given.\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read or the database cannot\n"
    "be written (it is then left as it was), 2 for bad usage (a bad cache\n"
    "geometry included).\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static cacheprof *prof;
static cr_names *names;

/* The hierarchy: the preset, then the level options in order, then the
 * switches; a bad one is a usage error naming it. */
static void build_config(cache_config *cfg)
{
    char err[256];
    if (cache_preset(preset, cfg, err, sizeof err))
        cli_usage_error("option '--preset': %s", err);
    if (cachegrind)
        cache_config_cachegrind(cfg);
    for (int i = 0; i < nlevel_opts; i++)
        if (cache_config_set(cfg, level_name[i], level_spec[i], err, sizeof err))
            cli_usage_error("%s", err);
    if (memory_latency)
        cfg->memory_latency = memory_latency;
    if (policy >= 0)
        cache_config_set_policy(cfg, policy);
    cfg->inclusive = inclusive;
    if (cachegrind)
        cfg->cachegrind = 1;
    if (cache_config_check(cfg, err, sizeof err))
        cli_usage_error("%s", err);
}

static pdb_session db;

/* --per-access: one line per data access. */
static void print_access(void *ctx, const cp_access *a)
{
    (void)ctx;
    cr_access_line(stdout, cp_sim(prof), names, a);
}

int main(int argc, char **argv)
{
    cache_config cfg;
    char **args;
    static char outbuf[1 << 16];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    build_config(&cfg);
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    cacheprof_options po = {
        .cache = cfg, .fetches = !no_fetch || cachegrind,
        .curve_line = no_curves ? 0 : curve_line ? curve_line : cfg.level[0].line,
        .rate = rate, .group_depth = group_depth, .field_limit = field_limit,
        .reader = reader,
        .on_access = per_access ? print_access : NULL,
    };
    if (!(names = cr_names_new(reader)) || !(prof = cp_new(&po)))
        cli_fail(NULL, "out of memory");
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (per_access)
        cr_access_header(stdout);
    while (cli_next(reader, &ev) && !ferror(stdout))
        if (cp_event(prof, &ev))
            cli_fail(cli_trace(), "out of memory");
    if (cp_finish(prof))
        cli_fail(cli_trace(), "out of memory");
    if (db_path &&
        (pdb_session_begin(&db, "cache", CACHESTORE_TABLES, reader, args[0],
                           argc, argv) < 0 ||
         cs_store(db.db, db.run, prof, reader, names) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    if (!per_access && cr_report(stdout, prof, reader, names, top))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    cli_flush_stdout();
    cp_free(prof);
    cr_names_free(names);
    mr_reader_close(reader);
    return 0;
}
