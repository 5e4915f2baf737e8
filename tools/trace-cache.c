/*
 * trace-cache: a cache hierarchy simulated over a trace's accesses, with
 * misses and latency per level, instruction, object, group and (group,
 * offset), and miss-ratio curves from stack distances. The model is in
 * tools/lib/algo (cache, cache_config, stackdist), the analysis in
 * tools/lib/cache; decisions in docs/trace-cache.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "algo/cache_config.h"
#include "cache/cacheprof.h"
#include "cache/cachereport.h"
#include "cache/cachestore.h"
#include "db/profiledb.h"
#include "db/sql_embedded.h"

static const char usage_text[] =
    "Usage: trace-cache [OPTION]... [TRACE|-]\n"
    "Simulate a cache hierarchy over every access of a trace: hits and misses\n"
    "per level, the worst instructions, groups and objects by latency, and\n"
    "the miss-ratio curve of every fully associative LRU size.\n"
    "\n"
    "Hierarchy (default: --preset=lwptool):\n"
    "  --preset=NAME      rds (the RDS paper's Table 1), lwptool (LWPTool's\n"
    "                     Xeon E5-2620 v4), host (this machine's sysfs)\n"
    "  --I1=S,A,L[,LAT[,POLICY]]   instruction cache: size, associativity,\n"
    "  --D1=...  --L2=...  --L3=...  --LL=...   line bytes, latency, policy;\n"
    "                     LL replaces the last level (Cachegrind's spelling)\n"
    "  --memory-latency=N cycles when memory serves an access\n"
    "  --policy=P         lru, plru or random for every level\n"
    "  --inclusive        lower levels back-invalidate upper ones\n"
    "  --cachegrind       Cachegrind 3.19's model and conventions: I1, D1, LL\n"
    "                     only (from the preset or options), LRU, straddles\n"
    "                     and modifies counted as Cachegrind counts them\n"
    "  --no-fetch         do not simulate instruction fetches\n"
    "\n"
    "Curves:\n"
    "  --no-curves        no stack distances (faster)\n"
    "  --sample=RATE      SHARDS sampling at RATE (0 < RATE <= 1; 1: exact)\n"
    "  --curve-line=N     line bytes of the curves (default: D1's)\n"
    "\n"
    "Output:\n"
    "  --db FILE          also store the results in profile database FILE\n"
    "                     (cache_* tables; one transaction)\n"
    "  --per-access       instead of the report, one line per data access:\n"
    "                     time tid pc kind size address level latency\n"
    "                     distance group object offset (joins trace-objrel's\n"
    "                     lines on time and address)\n"
    "  --top=N            rows of each worst-of table (default 10)\n"
    "  --group-depth=N    frames defining a heap group (default 1)\n"
    "  -q, --quiet        no progress on stderr\n"
    "  -h, --help         this help\n"
    "      --version      print the version\n"
    "\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning),\n"
    "1 when the trace cannot be read or the database cannot be written (it is\n"
    "then left as it was), 2 for bad usage (a bad cache geometry included).\n";

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static cacheprof *prof;
static cr_names *names;

/* What the command line asked for. */
typedef struct options {
    const char *trace, *db, *preset;
    const char *level_name[16], *level_spec[16];   /* in the order given */
    int nlevel_opts;
    int policy, inclusive, cachegrind, no_fetch, no_curves, per_access;
    uint32_t memory_latency, curve_line, top, group_depth;
    double rate;
} options;

static double parse_rate(const char *v)
{
    char *end;
    errno = 0;
    double r = strtod(v, &end);
    if (errno || end == v || *end || !(r > 0) || r > 1)
        cli_usage_error("option '--sample': %s is not a rate in (0, 1]", v);
    return r;
}

static void parse_options(int argc, char **argv, options *o)
{
    enum { OPT_DB = 256, OPT_PRESET, OPT_I1, OPT_D1, OPT_L2, OPT_L3, OPT_LL,
           OPT_MEM, OPT_POLICY, OPT_INCL, OPT_CG, OPT_NOFETCH, OPT_NOCURVES,
           OPT_SAMPLE, OPT_CLINE, OPT_PER, OPT_TOP, OPT_DEPTH, OPT_VERSION };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"preset", required_argument, NULL, OPT_PRESET},
        {"I1", required_argument, NULL, OPT_I1},
        {"D1", required_argument, NULL, OPT_D1},
        {"L2", required_argument, NULL, OPT_L2},
        {"L3", required_argument, NULL, OPT_L3},
        {"LL", required_argument, NULL, OPT_LL},
        {"memory-latency", required_argument, NULL, OPT_MEM},
        {"policy", required_argument, NULL, OPT_POLICY},
        {"inclusive", no_argument, NULL, OPT_INCL},
        {"cachegrind", no_argument, NULL, OPT_CG},
        {"no-fetch", no_argument, NULL, OPT_NOFETCH},
        {"no-curves", no_argument, NULL, OPT_NOCURVES},
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"curve-line", required_argument, NULL, OPT_CLINE},
        {"per-access", no_argument, NULL, OPT_PER},
        {"top", required_argument, NULL, OPT_TOP},
        {"group-depth", required_argument, NULL, OPT_DEPTH},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    static const char *const level_names[] = { "I1", "D1", "L2", "L3", "LL" };
    int c;
    o->policy = -1;
    o->rate = 1;
    o->top = 10;
    o->group_depth = 1;
    o->preset = "lwptool";
    opterr = 0;   /* one usage message of our own, not getopt's as well */
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: o->db = optarg; break;
        case OPT_PRESET: o->preset = optarg; break;
        case OPT_I1: case OPT_D1: case OPT_L2: case OPT_L3: case OPT_LL:
            if (o->nlevel_opts == 16)
                cli_usage_error("too many cache level options");
            o->level_name[o->nlevel_opts] = level_names[c - OPT_I1];
            o->level_spec[o->nlevel_opts++] = optarg;
            break;
        case OPT_MEM:
            o->memory_latency = (uint32_t)cli_parse_u64("--memory-latency", optarg);
            break;
        case OPT_POLICY:
            if ((o->policy = cache_policy_parse(optarg)) < 0)
                cli_usage_error("option '--policy': '%s' is not lru, plru or "
                                "random", optarg);
            break;
        case OPT_INCL: o->inclusive = 1; break;
        case OPT_CG: o->cachegrind = 1; break;
        case OPT_NOFETCH: o->no_fetch = 1; break;
        case OPT_NOCURVES: o->no_curves = 1; break;
        case OPT_SAMPLE: o->rate = parse_rate(optarg); break;
        case OPT_CLINE:
            o->curve_line = (uint32_t)cli_parse_u64("--curve-line", optarg);
            if (!o->curve_line || (o->curve_line & (o->curve_line - 1)))
                cli_usage_error("option '--curve-line': %s is not a power of two",
                                optarg);
            break;
        case OPT_PER: o->per_access = 1; break;
        case OPT_TOP: o->top = (uint32_t)cli_parse_u64("--top", optarg); break;
        case OPT_DEPTH:
            o->group_depth = (uint32_t)cli_parse_u64("--group-depth", optarg);
            if (o->group_depth < 1 || o->group_depth > OBJ_MAX_DEPTH)
                cli_usage_error("--group-depth must be 1 to %d", OBJ_MAX_DEPTH);
            break;
        case 'q': cli_set_quiet(1); break;
        case 'h': fputs(usage_text, stdout); exit(0);
        case OPT_VERSION: cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        cli_usage_error("one trace at most; extra argument '%s'",
                        argv[optind + 1]);
    o->trace = optind < argc ? argv[optind] : "-";
    if (o->db && !*o->db)
        cli_usage_error("option '--db' needs a file name");
}

/* The hierarchy: the preset, then the level options in order, then the
 * switches; a bad one is a usage error naming it. */
static void build_config(const options *o, cache_config *cfg)
{
    char err[256];
    if (cache_preset(o->preset, cfg, err, sizeof err))
        cli_usage_error("option '--preset': %s", err);
    if (o->cachegrind)
        cache_config_cachegrind(cfg);
    for (int i = 0; i < o->nlevel_opts; i++)
        if (cache_config_set(cfg, o->level_name[i], o->level_spec[i], err,
                             sizeof err))
            cli_usage_error("%s", err);
    if (o->memory_latency)
        cfg->memory_latency = o->memory_latency;
    if (o->policy >= 0)
        cache_config_set_policy(cfg, o->policy);
    cfg->inclusive = o->inclusive;
    if (o->cachegrind)
        cfg->cachegrind = 1;
    if (cache_config_check(cfg, err, sizeof err))
        cli_usage_error("%s", err);
}

static void out_of_memory(const char *path)
{
    cli_fail(cli_trace_name(path), "out of memory");
}

/* --per-access: one line per data access. */
static void print_access(void *ctx, const cp_access *a)
{
    (void)ctx;
    cr_access_line(stdout, cp_sim(prof), names, a);
}

static void read_trace(const char *path)
{
    mr_event ev;
    uint64_t events = 0;
    while (cli_next(reader, path, &ev, 1) > 0) {
        if (cp_event(prof, &ev))
            out_of_memory(path);
        if ((++events & 0xffff) == 0) {
            cli_progress(reader);
            if (ferror(stdout))
                break;
        }
    }
    cli_progress_done();
    if (cp_finish(prof))
        out_of_memory(path);
}

/* "prog arg1 arg2" of argv (malloc'd), for the runs and analyses tables. */
static char *join_args(uint32_t argc, const char *const *argv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (uint32_t i = 0; i < argc; i++)
        fprintf(f, "%s%s", i ? " " : "", argv[i]);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Writes every row in one transaction; on failure the database is left as
 * it was and the command fails. */
static void store(const options *o, int argc, char **argv)
{
    char *err = NULL, msg[512];
    pdb *db = pdb_open(o->db, PDB_CREATE, &err);
    if (!db) {
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(o->db, "%s", msg);
    }
    const mr_process *p = mr_reader_process(reader);
    char *command = p ? join_args(p->argc, p->argv) : NULL;
    char *own = join_args((uint32_t)argc, (const char *const *)argv);
    pdb_run_info info = { .trace = o->trace, .command = command,
                          .pid = p ? p->pid : 0,
                          .started = p ? p->start_usec : 0 };
    int64_t run;
    /* A database made before 40-cache.sql existed has the same schema
     * version: the schema is idempotent, so running it adds our tables. */
    int rc = pdb_exec_sql(db, mr_sql_schema) < 0;
    rc = rc || pdb_begin_run(db, "cache", own, &info, CACHESTORE_TABLES, &run);
    rc = rc || cs_store(db, run, prof, reader, names);
    rc = rc || pdb_commit(db);
    free(command);
    free(own);
    if (rc) {
        snprintf(msg, sizeof msg, "%s", *pdb_error(db) ? pdb_error(db)
                                                        : "out of memory");
        pdb_abort(db);
        cli_fail(o->db, "%s", msg);
    }
    pdb_close(db);
}

int main(int argc, char **argv)
{
    options o = { 0 };
    cache_config cfg;
    cli_init(argv[0]);
    parse_options(argc, argv, &o);
    build_config(&o, &cfg);
    reader = cli_open_trace(o.trace);
    cacheprof_options po = {
        .cache = cfg, .fetches = !o.no_fetch || o.cachegrind,
        .curve_line = o.no_curves ? 0 : o.curve_line ? o.curve_line
                                                     : cfg.level[0].line,
        .rate = o.rate, .group_depth = o.group_depth, .reader = reader,
        .on_access = o.per_access ? print_access : NULL,
    };
    if (!(names = cr_names_new(reader)) || !(prof = cp_new(&po)))
        out_of_memory(o.trace);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (o.per_access)
        cr_access_header(stdout);
    read_trace(o.trace);
    if (o.db)
        store(&o, argc, argv);
    if (!o.per_access && cr_report(stdout, prof, reader, names, o.top))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    cp_free(prof);
    cr_names_free(names);
    mr_reader_close(reader);
    return 0;
}
