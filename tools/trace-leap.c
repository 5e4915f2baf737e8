/*
 * trace-leap: LEAP, the lossy LMAD profile of Wu et al. (section 4), with
 * its two post-processors: memory dependence frequencies and strongly
 * strided instructions. The algorithms are in tools/lib/leap/, the
 * decisions in docs/trace-leap.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "leap/leap_feed.h"
#include "leap/leap_report.h"
#include "leap/leap_store.h"
#include "objects/objmap.h"
#include "stream/insns.h"

static const char *db_path;
static uint32_t max_lmads = LMAD_DEFAULT_MAX, group_depth = 1;
static uint64_t mdf_sample = LEAP_MDF_SAMPLE;
static int print_lmads, no_batch;

static const opt_def options[] = {
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the profile in profile database FILE\n"
      "(leap_lmads, leap_lmad_levels, leap_overflow,\n"
      "leap_streams, leap_summary, and the\n"
      "'leap' rows of dependences and strides)", 0, 0, NULL },
    { "max-lmads", 0, OPT_U32, &max_lmads, "N",
      "LMADs kept per (instruction, group) (default 30)", 1, 1000000, NULL },
    { "group-depth", 0, OPT_U32, &group_depth, "N",
      "a heap group is the first N frames of the\n"
      "allocation stack (default 1)", 1, OBJ_MAX_DEPTH, NULL },
    { "mdf-sample", 0, OPT_U64, &mdf_sample, "N",
      "load points solved per load stream for the\n"
      "dependence frequencies: all when at most N, else a\n"
      "stratified random sample of N (default 1024; 0: all)", 0, UINT64_MAX, NULL },
    { "lmads", 0, OPT_FLAG, &print_lmads, NULL, "also print every stream's LMADs", 0, 0, NULL },
    { "no-batch", 0, OPT_FLAG, &no_batch, NULL,
      "read loops execution by execution (slower; the\n"
      "profile is the same)", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "LEAP: every memory access made object-relative, the stream split by\n"
    "(instruction, group), each (object, offset, time) stream compressed into\n"
    "at most --max-lmads linear descriptors (LMADs; time: the global access\n"
    "counter); then, from the LMADs alone, the memory dependence frequency of\n"
    "every (store, load) pair and the strongly strided instructions.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Output, tab-separated: one summary line (Table 1: accesses and\n"
    "instructions captured, profile size, compression against 16 bytes per\n"
    "access), then\n"
    "  dep     STORE LOAD frequency conflicts sampled executions [guess]\n"
    "  stride  INSN stride share steps strongly|weakly\n"
    "instructions written function:line@0xADDR(kind size); 'guess' (sampled\n"
    "0): no point of the load was decided, the LMADs' answer. See\n"
    "docs/trace-leap.md.\n"
    "\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read or the database cannot\n"
    "be written (it is then left as it was), 2 for bad usage.\n",
};

/* The tables the "leap" analysis owns; its rows of dependences and strides
 * are replaced by leap_store (those tables are shared by the methods), and
 * so are those of leap_lmad_levels (leap_store adds that table to a
 * database made before it existed). */
static const char *const LEAP_TABLES[] = { "leap_lmads", "leap_overflow",
                                           "leap_streams", "leap_summary", NULL };

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static leap *profile;
static leap_feed *feed;
static pdb_session db;

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
    objmap_options mo = { .group_depth = group_depth, .reader = reader };
    if (!(profile = leap_new(max_lmads)) || !(feed = leap_feed_new(profile, &mo)))
        cli_fail(NULL, "out of memory");
    /* Loops as runs (leap_feed.h): the profile is the same, made faster. */
    if (!no_batch)
        mr_reader_batch(reader, MR_BATCH_PER_INSTRUCTION);
    while (cli_next(reader, &ev))
        if (leap_feed_event(feed, &ev) < 0)
            cli_fail(cli_trace(), "out of memory");
    if (leap_feed_finish(feed) < 0)
        cli_fail(cli_trace(), "out of memory");
    leap_mdf mdf;
    leap_stride *strides;
    uint32_t nstrides;
    if (leap_mdf_compute(profile, mdf_sample, &mdf) < 0 ||
        leap_strides(profile, &strides, &nstrides) < 0)
        cli_fail(cli_trace(), "out of memory");
    leap_names names = { reader, leap_feed_insns(feed), leap_feed_map(feed) };
    if (db_path &&
        (pdb_session_begin(&db, "leap", LEAP_TABLES, reader, args[0], argc, argv) < 0 ||
         leap_store(db.db, db.run, profile, &mdf, strides, nstrides, &names) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (leap_report(stdout, profile, &mdf, strides, nstrides, &names, print_lmads) < 0)
        cli_fail("<stdout>", "cannot write");
    cli_flush_stdout();
    free(strides);
    leap_mdf_free(&mdf);
    leap_free(profile);
    leap_feed_free(feed);
    mr_reader_close(reader);
    return 0;
}
