/*
 * trace-info: a summary of a memrec trace: the command, how it ended, and
 * the counts of what it holds (instructions, accesses, calls, heap, threads,
 * chunks, bytes). Counts come from the events, so a truncated trace is
 * summarised too (with a warning and "truncated": true).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "dump/dump_next.h"
#include "dump/dump_out.h"
#include "info/info_report.h"
#include "info/info_summary.h"

static const char usage_text[] =
    "Usage: trace-info [--json] [-q] [TRACE|-]\n"
    "Summarise a memrec trace (standard input when TRACE is - or absent).\n"
    "\n"
    "  --json         print one JSON object instead of lines for people\n"
    "  -q, --quiet    no progress on stderr\n"
    "  -h, --help     this help\n"
    "      --version  print the version\n"
    "\n"
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
    "warning goes to stderr), 1 when it cannot be read or is corrupt (a file\n"
    "cut inside its 20-byte header cannot be read), 2 for bad usage.\n";

/* Kept in statics so that exits from cli_fail() leave them reachable
 * (no leak reports under the sanitizers). */
static mr_reader *reader;
static info_summary summary;

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c;
    cli_init(argv[0]);
    opterr = 0;   /* one usage message of our own, not getopt's as well */
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'q': cli_set_quiet(1); break;
        case 'h': fputs(usage_text, stdout); return 0;
        case 'V': cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            /* A long option is named by its word (optopt is its value
             * when it was given an argument it does not take); a short
             * one by its letter, which may sit inside a cluster like -qz. */
            if (strncmp(argv[optind - 1], "--", 2) == 0)
                cli_usage_error(optopt ? "option '%s' takes no value"
                                       : "unknown option '%s'",
                                argv[optind - 1]);
            cli_usage_error("unknown option '-%c'", optopt);
        }
    }
    if (argc - optind > 1)
        cli_usage_error("one trace at most; extra argument '%s'",
                        argv[optind + 1]);
    /* No trace named and a terminal on stdin: a user, not a pipeline;
     * say what is missing rather than wait for bytes that will not come. */
    if (optind == argc && isatty(STDIN_FILENO))
        cli_usage_error("no trace given (name a file, or pipe one in)");
    const char *path = optind < argc ? argv[optind] : "-";

    reader = cli_open_trace(path);
    info_summary_init(&summary);
    mr_event ev;
    while (dump_next_event(reader, path, &ev) > 0) {
        info_summary_add(&summary, &ev);
        if ((summary.events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();

    info_source src = {
        .name = cli_trace_name(path),
        .bytes = mr_reader_bytes(reader),
        .chunks = mr_reader_chunks(reader),
        .truncated = mr_reader_truncated(reader),
        .truncation = mr_reader_error(reader),
    };
    if (info_summary_totals_match(&summary) == 0)
        fprintf(stderr, "%s: %s: warning: the end record's totals differ "
                "from the events (see end_totals)\n", cli_prog(), src.name);
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
