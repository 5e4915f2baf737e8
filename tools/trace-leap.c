/*
 * trace-leap: LEAP, the lossy LMAD profile of Wu et al. (section 4), with
 * its two post-processors: memory dependence frequencies and strongly
 * strided instructions. The algorithms are in tools/lib/leap/, the
 * decisions in docs/trace-leap.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/cli.h"
#include "db/pdb_analysis.h"
#include "leap/leap_feed.h"
#include "leap/leap_report.h"
#include "leap/leap_store.h"
#include "objects/objmap.h"
#include "stream/objinsn.h"

static const char usage_text[] =
    "Usage: trace-leap [OPTION]... [TRACE|-]\n"
    "LEAP: every memory access made object-relative, the stream split by\n"
    "(instruction, group), each (object, offset, time) stream compressed into\n"
    "at most --max-lmads linear descriptors (LMADs; time: the global access\n"
    "counter); then, from the LMADs alone, the memory dependence frequency of\n"
    "every (store, load) pair and the strongly strided instructions.\n"
    "\n"
    "  --db FILE          also store the profile in profile database FILE\n"
    "                     (leap_lmads, leap_overflow, leap_summary, and the\n"
    "                     'leap' rows of dependences and strides)\n"
    "  --max-lmads=N      LMADs kept per (instruction, group) (default 30)\n"
    "  --group-depth=N    a heap group is the first N frames of the\n"
    "                     allocation stack (default 1)\n"
    "  --lmads            also print every stream's LMADs\n"
    "  --no-batch         read loops execution by execution (slower; the\n"
    "                     profile is the same)\n"
    "  -q, --quiet        no progress on stderr\n"
    "  -h, --help         this help\n"
    "      --version      print the version\n"
    "\n"
    "Output, tab-separated: one summary line (Table 1: accesses and\n"
    "instructions captured, profile size, compression against 16 bytes per\n"
    "access), then\n"
    "  dep     STORE LOAD frequency conflicts sampled executions\n"
    "  stride  INSN stride share steps strongly|weakly\n"
    "instructions written function:line@0xADDR(kind size). See\n"
    "docs/trace-leap.md.\n"
    "\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning),\n"
    "1 when the trace cannot be read or the database cannot be written (it is\n"
    "then left as it was), 2 for bad usage.\n";

/* What the command line asked for. */
typedef struct options {
    const char *trace, *db;
    uint32_t max_lmads, group_depth;
    int lmads, no_batch;
} options;

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static objmap *map;
static objinsn *insns;
static leap *profile;
static leap_feed *feed;

static void parse_options(int argc, char **argv, options *o)
{
    enum { OPT_DB = 256, OPT_MAX, OPT_DEPTH, OPT_LMADS, OPT_NO_BATCH, OPT_VERSION };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"max-lmads", required_argument, NULL, OPT_MAX},
        {"group-depth", required_argument, NULL, OPT_DEPTH},
        {"lmads", no_argument, NULL, OPT_LMADS},
        {"no-batch", no_argument, NULL, OPT_NO_BATCH},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c;
    uint64_t v;
    o->max_lmads = LMAD_DEFAULT_MAX;
    o->group_depth = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: o->db = optarg; break;
        case OPT_MAX:
            v = cli_parse_u64("--max-lmads", optarg);
            if (v < 1 || v > 1000000)
                cli_usage_error("option '--max-lmads': %s is not in 1..1000000", optarg);
            o->max_lmads = (uint32_t)v;
            break;
        case OPT_DEPTH:
            v = cli_parse_u64("--group-depth", optarg);
            if (v < 1 || v > OBJ_MAX_DEPTH)
                cli_usage_error("--group-depth must be 1 to %d", OBJ_MAX_DEPTH);
            o->group_depth = (uint32_t)v;
            break;
        case OPT_LMADS: o->lmads = 1; break;
        case OPT_NO_BATCH: o->no_batch = 1; break;
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
        cli_usage_error("one trace at most; extra argument '%s'", argv[optind + 1]);
    o->trace = optind < argc ? argv[optind] : "-";
    if (o->db && !*o->db)
        cli_usage_error("option '--db' needs a file name");
}

static void out_of_memory(const options *o)
{
    cli_fail(cli_trace_name(o->trace), "out of memory");
}

static void read_trace(const options *o)
{
    objmap_options mo = { .group_depth = o->group_depth, .reader = reader };
    if (!(map = objmap_new(&mo)) || !(insns = objinsn_new()) ||
        !(profile = leap_new(o->max_lmads)) ||
        !(feed = leap_feed_new(profile, map, insns)))
        out_of_memory(o);
    /* Loops as runs (leap_feed.h): the profile is the same, made faster. */
    if (!o->no_batch)
        mr_reader_batch(reader, MR_BATCH_PER_INSTRUCTION);
    mr_event ev;
    uint64_t events = 0;
    while (cli_next(reader, o->trace, &ev, 1) > 0) {
        if (leap_feed_event(feed, &ev) < 0)
            out_of_memory(o);
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    if (leap_feed_finish(feed) < 0)
        out_of_memory(o);
    cli_progress_done();
}

static void store(const options *o, int argc, char **argv, const leap_mdf *mdf,
                  const leap_stride *st, uint32_t nst, const leap_names *names)
{
    static const char *const mine[] = { "leap_lmads", "leap_overflow",
                                        "leap_summary", NULL };
    char err[512];
    int64_t run;
    pdb *db = pdb_analysis_begin(o->db, reader, o->trace, "leap", argc, argv,
                                 mine, &run, err, sizeof err);
    if (!db)
        cli_fail(o->db, "%s", err);
    if (leap_store(db, run, profile, mdf, st, nst, names) || pdb_commit(db)) {
        snprintf(err, sizeof err, "%s", *pdb_error(db) ? pdb_error(db) : "out of memory");
        pdb_abort(db);
        cli_fail(o->db, "%s", err);
    }
    pdb_close(db);
}

int main(int argc, char **argv)
{
    options o = { 0 };
    cli_init(argv[0]);
    parse_options(argc, argv, &o);
    reader = cli_open_trace(o.trace);
    read_trace(&o);
    leap_mdf mdf;
    leap_stride *strides;
    uint32_t nstrides;
    if (leap_mdf_compute(profile, &mdf) < 0 ||
        leap_strides(profile, &strides, &nstrides) < 0)
        out_of_memory(&o);
    leap_names names = { reader, insns, map };
    if (o.db)
        store(&o, argc, argv, &mdf, strides, nstrides, &names);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (leap_report(stdout, profile, &mdf, strides, nstrides, &names, o.lmads) < 0)
        cli_fail("<stdout>", "cannot write");
    free(strides);
    leap_mdf_free(&mdf);
    leap_free(profile);
    leap_feed_free(feed);
    objinsn_free(insns);
    objmap_free(map);
    mr_reader_close(reader);
    return 0;
}
