/*
 * trace-redundancy: redundant loads and stores (seed 001, section 5.1),
 * per instruction with function:line. From a TWPP+ file through its
 * dependence edges, or (--direct) over the trace with a shadow memory;
 * the two agree exactly. The algorithm is in tools/lib/redundancy;
 * decisions in docs/trace-redundancy.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "redundancy/direct.h"
#include "redundancy/fromtwpp.h"
#include "redundancy/redundancy.h"
#include "redundancy/store.h"
#include "stream/access.h"
#include "twpp/file.h"

static const char *db_path;
static uint32_t top = 30;

static const opt_def options[] = {
    { "top", 0, OPT_U32, &top, "N",
      "instructions listed, the most redundant first (default 30;\n"
      "0: every one, by address)", 0, UINT32_MAX, NULL },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the counts in the profile database FILE\n"
      "(table redundancy; one transaction)", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[FILE.twpp|TRACE|-]",
    .summary =
    "Redundant loads and stores: a load instance is redundant when an earlier\n"
    "load read the same value from the same place (no store in between), a\n"
    "store instance when no load read it before it was overwritten or the run\n"
    "ended. Prints per instruction its instances, the redundant ones and their\n"
    "share, with function:line, the most redundant first.\n"
    "\n"
    "From FILE.twpp (trace-twpp) the counts come from its TWPP+ dependence\n"
    "edges (the dropped ones recovered by replaying control flow); from a\n"
    "trace, from the direct pass over it with a shadow memory, the check of\n"
    "the other: they agree exactly on a file built with trace-twpp\n"
    "--all-edges (docs/trace-redundancy.md says when the recovery cannot).",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Memory is 8-byte granules, as TWPP+'s dependence edges; a load of memory\n"
    "no store of the trace wrote is counted apart, never redundant.\n"
    "Exit status: 0 (also on a truncated trace: a warning, and the counts so\n"
    "far; an error with --strict), 1 on a bad trace, .twpp file or database,\n"
    "2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static access_stream *stream;
static redund_direct *pass;
static redund_result result;
static twpp_file *file;
static pdb_session db;

static void direct_pass(const char *trace)
{
    mr_event ev;
    access_exec x;
    reader = cli_open_trace(trace);
    mr_reader_batch(reader, MR_BATCH_REPEATS);     /* runs of one block, in order */
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!(stream = access_stream_new(0)) || !(pass = redund_direct_new()))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev)) {
        int rc = access_stream_exec(stream, &ev, &x);
        if (rc < 0 || (rc > 0 && redund_direct_exec(pass, &x) < 0))
            cli_fail(NULL, "out of memory");
    }
    if (redund_direct_result(pass, access_stream_insns(stream), reader, &result) < 0)
        cli_fail(NULL, "out of memory");
}

static void from_twpp(const char *path)
{
    char err[256];
    redund_twpp_stats st;
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!(file = twpp_open(path, err, sizeof err)) ||
        redund_from_twpp(file, &result, &st, err, sizeof err) < 0)
        cli_fail(path, "%s", err);
    printf("TWPP+: %" PRIu64 " recorded edges, %" PRIu64 " dropped, %" PRIu64
           " recovered from control flow (%" PRIu64 " ambiguous)\n", st.edges, st.dropped,
           st.recovered, st.ambiguous);
    if (st.disagree)
        cli_warn(path, "the recovery found other edges than the %" PRIu64 " dropped at %" PRIu32
                 " load points (threads calling one function?)", st.dropped, st.disagree);
}

/* Whether path is a .twpp file (by its magic), not a trace. */
static int is_twpp(const char *path)
{
    char magic[sizeof TWPP_MAGIC - 1];
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
    int yes = f && fread(magic, 1, sizeof magic, f) == sizeof magic &&
              !memcmp(magic, TWPP_MAGIC, sizeof magic);
    if (f)
        fclose(f);
    return yes;
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    int twpp = is_twpp(args[0]);
    if (twpp)
        from_twpp(args[0]);
    else
        direct_pass(args[0]);
    if (db_path &&
        ((twpp ? redund_begin_run(&db, args[0], argc, argv)
               : pdb_session_begin(&db, "redundancy", REDUNDANCY_TABLES, reader, args[0], argc,
                                   argv)) < 0 ||
         redund_store(db.db, db.run, twpp ? "twpp" : "direct", &result) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    if (redund_report(stdout, &result, top) < 0)
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    cli_flush_stdout();
    redund_result_free(&result);
    redund_direct_free(pass);
    access_stream_free(stream);
    if (reader)
        mr_reader_close(reader);
    twpp_close(file);
    return 0;
}
