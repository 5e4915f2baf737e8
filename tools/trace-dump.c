/*
 * trace-dump: a memrec trace as text, one event per line with symbolised
 * instruction addresses, or exactly as `valgrind --tool=lackey
 * --trace-mem=yes` prints memory accesses, so that Lackey scripts work
 * unchanged. Options select a thread, a window of time, or a function.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "dump/dump_filter.h"
#include "dump/dump_lackey.h"
#include "dump/dump_next.h"
#include "dump/dump_out.h"
#include "dump/dump_text.h"

static const char usage_text[] =
    "Usage: trace-dump [--format=text|lackey] [--thread=TID] [--from=TIME]\n"
    "                  [--to=TIME] [--function=NAME] [-q] [TRACE|-]\n"
    "Print a memrec trace (standard input when TRACE is - or absent).\n"
    "\n"
    "  --format=text    (default) one event per line: TIME tTID KIND FIELDS,\n"
    "                   code addresses as function:line; a block execution\n"
    "                   is followed by its accesses, indented:\n"
    "                     1234 t1 exec 0x401120 main:12 exit=1 instrs=5 block=7\n"
    "                       L 0x1ffefff8,8 @0x401124 =0x4011a0\n"
    "                   (kind L/S/M, address,size, instruction, value if any)\n"
    "  --format=lackey  exactly what valgrind --tool=lackey --trace-mem=yes\n"
    "                   prints: \"I  %08lx,%lu\" per instruction, then\n"
    "                   \" L|S|M %08lx,%lu\" per data access of it; the\n"
    "                   same lines as Lackey run with --vex-guest-chase=no\n"
    "                   (with chasing, Lackey also prints instructions VEX\n"
    "                   evaluated speculatively but the program skipped)\n"
    "  --thread=TID     only events of thread TID\n"
    "  --from=TIME      only events at global time >= TIME\n"
    "  --to=TIME        only events at global time < TIME (time counts the\n"
    "                   instructions executed before an event, all threads;\n"
    "                   in lackey form each instruction has its own time)\n"
    "  --function=NAME  only block executions with code of function NAME,\n"
    "                   and calls and returns from or to it; in lackey form\n"
    "                   only NAME's own instructions and their accesses\n"
    "  -q, --quiet      no progress on stderr\n"
    "  -h, --help       this help\n"
    "      --version    print the version\n"
    "\n"
    "With no filter the text form prints every event, definitions included.\n"
    "Exit status: 0 when the trace was read (also when it was truncated: a\n"
    "warning goes to stderr after the events before the cut, and when the\n"
    "reader of the output went away), 1 when the trace cannot be read or is\n"
    "corrupt, 2 for bad usage.\n";

/* Kept in statics so that exits from cli_fail() leave them reachable
 * (no leak reports under the sanitizers). */
static mr_reader *reader;
static dump_out out;
static dump_text text;
static dump_filter filter;

/* What the command line asked for. */
typedef struct options {
    int lackey;                 /* --format=lackey */
    int by_thread;
    uint32_t tid;
    uint64_t from, to;
    const char *function;
    const char *path;
} options;

static void parse_options(int argc, char **argv, options *opt)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"thread", required_argument, NULL, 't'},
        {"from", required_argument, NULL, 'F'},
        {"to", required_argument, NULL, 'T'},
        {"function", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    memset(opt, 0, sizeof *opt);
    opt->to = UINT64_MAX;
    opterr = 0;   /* one usage message of our own, not getopt's as well */
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "lackey") == 0)
                opt->lackey = 1;
            else if (strcmp(optarg, "text") != 0)
                cli_usage_error("unknown format '%s' (text or lackey)", optarg);
            break;
        case 't': {
            uint64_t tid = cli_parse_u64("--thread", optarg);
            if (tid > UINT32_MAX)
                cli_usage_error("option '--thread': '%s' is too large", optarg);
            opt->by_thread = 1;
            opt->tid = (uint32_t)tid;
            break;
        }
        case 'F': opt->from = cli_parse_u64("--from", optarg); break;
        case 'T': opt->to = cli_parse_u64("--to", optarg); break;
        case 'n':
            if (!*optarg)
                cli_usage_error("option '--function' needs a name");
            opt->function = optarg;
            break;
        case 'q': cli_set_quiet(1); break;
        case 'h': fputs(usage_text, stdout); exit(0);
        case 'V': cli_version();
        case ':':
            cli_usage_error("option '%s' needs a value", argv[optind - 1]);
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
    opt->path = optind < argc ? argv[optind] : "-";
}

/* Lackey form: only block executions, instruction by instruction. */
static void dump_lackey_event(const options *opt, const mr_event *ev)
{
    if (ev->kind != MR_EV_EXEC)
        return;
    if (opt->by_thread && ev->tid != opt->tid)
        return;
    if (ev->time >= opt->to || ev->time + ev->u.exec.ninstrs <= opt->from)
        return;
    int any;
    const uint8_t *mask =
        dump_filter_function_mask(&filter, ev->u.exec.def, &any);
    if (any)
        dump_lackey_exec(&out, ev, opt->from, opt->to, mask);
}

/* The time of the first event of chunk i, or UINT64_MAX when there is
 * none or it cannot be read (*failed is then set). */
static uint64_t chunk_start_time(mr_reader *r, int64_t i, int *failed)
{
    mr_event ev;
    if (mr_reader_seek(r, (uint64_t)i) == 0 && mr_next(r, &ev) > 0)
        return ev.time;
    *failed = 1;
    return UINT64_MAX;
}

/* With --from on an indexed trace file, starts reading at the last chunk
 * whose first event comes before FROM rather than at the beginning: the
 * clock never goes back, so every event of an earlier chunk, and every
 * instruction of an execution in one, is before FROM (an execution ends
 * where the next chunk's clock starts). Binary search over the chunks, one
 * chunk decoded per step. Returns the reader to use: the same one, or when
 * a probe failed (a damaged chunk the window may never need), a fresh one
 * that reads from the start as if nothing had happened. */
static mr_reader *skip_to_window(mr_reader *r, const char *path, uint64_t from)
{
    if (from == 0 || strcmp(path, "-") == 0)
        return r;
    int64_t n = mr_reader_chunk_count(r);
    if (n < 2)
        return r;
    int failed = 0;
    int64_t lo = 0, hi = n - 1;     /* chunk lo starts before from */
    while (lo < hi && !failed) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (chunk_start_time(r, mid, &failed) < from)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (!failed && mr_reader_seek(r, (uint64_t)lo) == 0)
        return r;
    mr_reader_close(r);
    return cli_open_trace(path);
}

int main(int argc, char **argv)
{
    options opt;
    cli_init(argv[0]);
    parse_options(argc, argv, &opt);

    reader = cli_open_trace(opt.path);
    reader = skip_to_window(reader, opt.path, opt.from);
    out_init(&out, stdout, 0);
    dump_text_init(&text, &out, reader);
    dump_filter_init(&filter, reader);
    filter.by_thread = opt.by_thread;
    filter.tid = opt.tid;
    filter.from = opt.from;
    filter.to = opt.to;
    filter.function = opt.function;

    mr_event ev;
    uint64_t events = 0;
    while (!out_failed(&out) && dump_next_event(reader, opt.path, &ev) > 0) {
        /* The clock never goes back: past the window nothing is left. */
        if (ev.time >= opt.to)
            break;
        if (opt.lackey)
            dump_lackey_event(&opt, &ev);
        else if (dump_filter_event(&filter, &ev))
            dump_text_event(&text, &ev);
        if (filter.out_of_memory)
            cli_fail(cli_trace_name(opt.path), "out of memory");
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();

    int rc = out_close(&out);
    int err = out_error(&out);
    dump_filter_free(&filter);
    dump_text_free(&text);
    mr_reader_close(reader);
    /* The reader of a pipe going away (| head) is the user's choice, not
     * an error: stop quietly. */
    if (rc < 0 && err != EPIPE)
        cli_fail("<stdout>", "cannot write: %s", strerror(err));
    return 0;
}
