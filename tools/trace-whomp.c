/*
 * trace-whomp: WHOMP's object-relative grammars. The accesses of a trace
 * as (instruction, group, object, offset), one Sequitur grammar per
 * dimension (the OMSG), against the grammar of the same accesses' raw
 * (instruction, address) stream (the RASG); optionally into the profile
 * database. The analysis is tools/lib/whomp; decisions in
 * docs/trace-whomp.md.
 */
#include <inttypes.h>
#include <stdio.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/grammar_store.h"
#include "db/session.h"
#include "whomp/run.h"

static const char *db_path;
static int expand;
static whomp_options wo;
static uint32_t group_depth = 1;
static uint32_t threads = 2;

static const opt_def options[] = {
    { "expand", 0, OPT_FLAG, &expand, NULL,
      "print the object-relative stream back from the four\n"
      "grammars, one access per line, tab-separated:\n"
      "function:line  pc  group  object  offset  (the\n"
      "same fields as trace-objrel's)", 0, 0, NULL },
    { "stack", 0, OPT_FLAG, &wo.stack, NULL, "keep stack accesses too", 0, 0, NULL },
    { "vertical", 0, OPT_FLAG, &wo.vertical, NULL,
      "also one grammar per instruction over its (group,\n"
      "object, offset) tuples; their total size", 0, 0, NULL },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the grammars and sizes in the profile\n"
      "database FILE (created if missing)", 0, 0, NULL },
    { "group-depth", 0, OPT_U32, &group_depth, "N",
      "a heap group is the first N frames of the allocation\n"
      "stack (default 1), as in trace-objects", 1, OBJ_MAX_DEPTH, NULL },
    { "threads", 0, OPT_U32, &threads, "N",
      "2 (default): two threads share the grammars, each\n"
      "taking the next grammar to feed a batch of accesses\n"
      "to; 1: one thread (the same grammars either way)", 1, 2, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "WHOMP (Wu et al.): the memory accesses of a trace in object-relative\n"
    "form (instruction, group, object, offset), one Sequitur grammar per\n"
    "dimension (the OMSG), against the grammar of the raw (instruction,\n"
    "address) stream of the same accesses (the RASG). Sizes are bytes of\n"
    "the stored grammars (zstd over varints), the same way for both.\n"
    "\n"
    "Accesses kept: heap and static objects; stack ones with --stack;\n"
    "'unknown' ones never. Threads interleave in trace order.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Exit status: 0 (also on a truncated trace: a warning, and the accesses\n"
    "so far; an error with --strict), 1 on a bad trace, database or write\n"
    "error, 2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static whomp_run *run;
static pdb_session db;

int main(int argc, char **argv)
{
    char **args;
    static char outbuf[1 << 16];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    wo.threads = (int)threads;
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    if (!(run = whomp_run_new(reader, group_depth, &wo)))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev)) {
        int rc = whomp_run_event(run, &ev);
        if (rc == -2)
            cli_fail(cli_trace(), "addresses in more than %u regions of 4 GiB: the RASG cannot "
                     "pack them beside a %u-bit instruction number in 63 bits",
                     1u << (31 - whomp_run_rasg_bits(run)), whomp_run_rasg_bits(run));
        if (rc < 0)
            cli_fail(NULL, "out of memory");
    }
    if (whomp_run_finish(run) < 0)
        cli_fail(NULL, "out of memory");
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (expand) {
        if (whomp_run_expand(run, stdout) < 0)
            cli_fail(NULL, "out of memory");
    } else {
        /* Stored first: a failed store leaves no report to be taken for a stored run. */
        if (db_path && (grammar_store_begin(&db, "whomp", WHOMP_TABLES, reader, args[0], argc, argv) < 0 ||
                        whomp_run_store(run, db.db, db.run) < 0 || pdb_session_commit(&db) < 0))
            cli_fail(db_path, "%s", pdb_session_error(&db));
        whomp_run_print(run, stdout);
    }
    cli_flush_stdout();
    whomp_run_free(run);
    mr_reader_close(reader);
    return 0;
}
