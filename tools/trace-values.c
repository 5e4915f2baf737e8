/*
 * trace-values: type-based value profiling (Zhang's dissertation, chapter
 * 6): per field of each group and per instruction, the share of small
 * values, of pointers near their address and of incompressible values,
 * the value range and the most frequent values; Figures 6.4 and 6.5; the
 * fields the 80% rule selects for compression and the heap bytes saved.
 * The algorithm is in tools/lib/values; decisions in docs/trace-values.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "values/report.h"
#include "values/select.h"
#include "values/store.h"
#include "values/values.h"

/* What the command line asked for. */
static const char *db_path;
static uint32_t payload = VC_PAPER_PAYLOAD, top_values = VALUES_DEFAULT_TOP;
static uint32_t rows = 10, percent = VALUES_DEFAULT_SELECT;
static uint32_t exact_offsets = VALUES_DEFAULT_EXACT, group_depth = 1;

static const opt_def options[] = {
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the profile in profile database FILE\n"
      "(value_* tables; one transaction)", 0, 0, NULL },
    { "payload", 0, OPT_U32, &payload, "BITS",
      "bits a compressed value keeps (default 15, the\n"
      "paper's 15 of a 32-bit word)", 1, 63, NULL },
    { "select", 0, OPT_U32, &percent, "PCT",
      "select a field when PCT% of its instances are\n"
      "compressible (default 80)", 1, 100, NULL },
    { "top-values", 0, OPT_U32, &top_values, "N",
      "most frequent values kept per field and\n"
      "instruction (default 5)", 1, 1000, NULL },
    { "top", 0, OPT_U32, &rows, "N", "fields and instructions listed (default 10)",
      0, 1000000, NULL },
    { "exact-offsets", 0, OPT_U32, &exact_offsets, "N",
      "offsets below N are fields of their own; beyond,\n"
      "one field per 4096 bytes (default 1024)", 1, 1u << 30, NULL },
    { "group-depth", 0, OPT_U32, &group_depth, "N",
      "frames of the allocation stack defining a heap\n"
      "group (default 1)", 1, 16, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Type-based value profiling: for every field (group and offset) of heap\n"
    "and static objects and every memory instruction, the accesses moving a\n"
    "small value, a pointer sharing its high bits with its address, or an\n"
    "incompressible value; value ranges and most frequent values; required\n"
    "bits and fitting accesses at fixed widths (Figures 6.4, 6.5); the fields\n"
    "to compress and the heap bytes a compressed layout saves.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Values come from recording with --values=all; with fewer, the report\n"
    "and the database say how many accesses carried none.\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read or the database\n"
    "cannot be written (it is then left as it was), 2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static values *prof;
static pdb_session db;

int main(int argc, char **argv)
{
    char **args, note[512];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    values_options o = { .payload = payload, .top = top_values,
                         .exact_offsets = exact_offsets, .group_depth = group_depth,
                         .reader = reader };
    if (!(prof = values_new(&o)))
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev))
        if (values_event(prof, &ev))
            cli_fail(cli_trace(), "out of memory");
    if (values_finish(prof))
        cli_fail(cli_trace(), "out of memory");
    if (db_path &&
        (pdb_session_begin(&db, "values", VALUES_TABLES, reader, args[0], argc, argv) < 0 ||
         values_store(db.db, db.run, prof, top_values, percent,
                      values_unseen_note(prof, note, sizeof note), reader) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    if (values_report(stdout, prof, rows, top_values, percent, reader))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
    cli_flush_stdout();
    values_free(prof);
    mr_reader_close(reader);
    return 0;
}
