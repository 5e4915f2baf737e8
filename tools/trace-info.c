/*
 * trace-info: a summary of a memrec trace: the command, how it ended, and
 * the counts of what it holds (instructions, accesses, calls, heap, threads,
 * chunks, bytes). Counts come from the events, so a truncated trace is
 * summarised too (with a warning and "truncated": true).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/opts.h"
#include "dump/dump_out.h"
#include "info/info_report.h"
#include "info/info_summary.h"

static int json;
static const opt_def options[] = {
    { "json", 0, OPT_FLAG, &json, NULL,
      "print one JSON object instead of lines for people", 0, 0, NULL },
    { 0 }
};
static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary = "Summarise a memrec trace (standard input when TRACE is - or absent).",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Counts come from the events themselves; the end record's totals are\n"
    "only compared with them (\"totals_match\"). A modify counts once in\n"
    "modifies and also once in loads and once in stores, as in Valgrind's\n"
    "IR; \"accesses\" counts a modify once. Distinct memory instructions are\n"
    "the instruction addresses with memory accesses that executed.\n"
    "\n"
    "JSON keys: trace command exe pid ppid start_usec start_time tool_options\n"
    "end_reason exit_status signal truncated truncation instructions blocks\n"
    "loads stores modifies accesses values calls returns allocs frees\n"
    "reallocs alloc_bytes threads block_defs memory_instructions symbols\n"
    "modules dataobjs stacks marks events chunks bytes bytes_per_access\n"
    "time_first time_end time_span totals_match end_totals. Calls and\n"
    "returns count the exits of executed blocks that call or return.\n"
    "\n"
    "Exit status: 0 when the trace was read (also when it was truncated: a\n"
    "warning goes to stderr, unless --strict), 1 when it cannot be read or is\n"
    "corrupt (a file cut inside its 20-byte header cannot be read), 2 for\n"
    "bad usage.\n",
};

/* Kept in statics so that exits from cli_fail() leave them reachable
 * (no leak reports under the sanitizers). */
static mr_reader *reader;
static info_summary summary;

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    const char *path = args[0];

    reader = cli_open_trace(path);
    info_summary_init(&summary);
    mr_event ev;
    while (cli_next(reader, &ev))
        info_summary_add(&summary, &ev);

    info_source src = {
        .name = cli_trace_name(path),
        .bytes = mr_reader_bytes(reader),
        .chunks = mr_reader_chunks(reader),
        .truncated = mr_reader_truncated(reader),
        .truncation = mr_reader_error(reader),
    };
    if (info_summary_totals_match(&summary) == 0)
        cli_warn(src.name, "the end record's totals differ from the events "
                 "(see end_totals)");
    dump_out out;
    out_init(&out, stdout, 0);
    if (json)
        info_print_json(&out, &summary, &src);
    else
        info_print_text(&out, &summary, &src);
    int rc = out_close(&out);
    info_summary_free(&summary);
    mr_reader_close(reader);
    if (rc < 0)
        cli_fail("<stdout>", "cannot write: %s", strerror(out_error(&out)));
    return 0;
}
