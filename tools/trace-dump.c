/*
 * trace-dump: a memrec trace as text, one event per line with symbolised
 * instruction addresses, or exactly as `valgrind --tool=lackey
 * --trace-mem=yes` prints memory accesses, so that Lackey scripts work
 * unchanged. Options select a thread, a window of time, or a function.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "dump/dump_filter.h"
#include "dump/dump_lackey.h"
#include "base/opts.h"
#include "dump/window.h"
#include "dump/dump_out.h"
#include "dump/dump_text.h"

/* What the command line asked for. */
static struct {
    int lackey;                 /* --format=lackey */
    int by_thread;
    uint32_t tid;
    uint64_t from, to;
    const char *function;
} opt = { .to = UINT64_MAX };

static const char *set_format(const char *v)
{
    if (strcmp(v, "lackey") != 0 && strcmp(v, "text") != 0)
        return "unknown format (text or lackey)";
    opt.lackey = strcmp(v, "lackey") == 0;
    return NULL;
}

static const char *set_thread(const char *v)
{
    char *end;
    errno = 0;
    unsigned long long tid = strtoull(v, &end, 10);
    if (!*v || *v == '-' || *end || errno || tid > UINT32_MAX)
        return "not a thread id";
    opt.by_thread = 1;
    opt.tid = (uint32_t)tid;
    return NULL;
}

static const opt_def options[] = {
    { "format", 0, OPT_CALL, NULL, "text|lackey",
      "text (default): one event per line: TIME tTID KIND FIELDS,\n"
      "code addresses as function:line; a block execution\n"
      "is followed by its accesses, indented:\n"
      "  1234 t1 exec 0x401120 main:12 exit=1 instrs=5 block=7\n"
      "    L 0x1ffefff8,8 @0x401124 =0x4011a0\n"
      "(kind L/S/M, address,size, instruction, value if any)\n"
      "lackey: exactly what valgrind --tool=lackey --trace-mem=yes\n"
      "prints: \"I  %08lx,%lu\" per instruction, then\n"
      "\" L|S|M %08lx,%lu\" per data access of it; the\n"
      "same lines as Lackey run with --vex-guest-chase=no\n"
      "(with chasing, Lackey also prints instructions VEX\n"
      "evaluated speculatively but the program skipped)", 0, 0, set_format },
    { "thread", 0, OPT_CALL, NULL, "TID", "only events of thread TID", 0, 0, set_thread },
    { "from", 0, OPT_U64, &opt.from, "TIME", "only events at global time >= TIME", 0, 0, NULL },
    { "to", 0, OPT_U64, &opt.to, "TIME",
      "only events at global time < TIME (time counts the\n"
      "instructions executed before an event, all threads;\n"
      "in lackey form each instruction has its own time)", 0, 0, NULL },
    { "function", 0, OPT_STRING, &opt.function, "NAME",
      "only block executions with code of function NAME,\n"
      "and calls and returns from or to it; in lackey form\n"
      "only NAME's own instructions and their accesses", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary = "Print a memrec trace (standard input when TRACE is - or absent).",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "With no filter the text form prints every event, definitions included.\n"
    "Exit status: 0 when the trace was read (also when it was truncated: a\n"
    "warning goes to stderr after the events before the cut, unless --strict,\n"
    "and when the reader of the output went away), 1 when the trace cannot be\n"
    "read or is corrupt, 2 for bad usage.\n",
};

/* Kept in statics so that exits from cli_fail() leave them reachable
 * (no leak reports under the sanitizers). */
static mr_reader *reader;
static dump_out out;
static dump_text text;
static dump_filter filter;

/* Lackey form: only block executions, instruction by instruction. */
static void dump_lackey_event(const mr_event *ev)
{
    if (ev->kind != MR_EV_EXEC)
        return;
    if (opt.by_thread && ev->tid != opt.tid)
        return;
    if (ev->time >= opt.to || ev->time + ev->u.exec.ninstrs <= opt.from)
        return;
    int any;
    const uint8_t *mask =
        dump_filter_function_mask(&filter, ev->u.exec.def, &any);
    if (any)
        dump_lackey_exec(&out, ev, opt.from, opt.to, mask);
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);

    reader = cli_open_trace(args[0]);
    if (dump_seek_window(reader, opt.from) < 0) {
        mr_reader_close(reader);
        reader = cli_open_trace(args[0]);
    }
    out_init(&out, stdout, 0);
    dump_text_init(&text, &out, reader);
    dump_filter_init(&filter, reader);
    filter.by_thread = opt.by_thread;
    filter.tid = opt.tid;
    filter.from = opt.from;
    filter.to = opt.to;
    filter.function = opt.function;

    mr_event ev;
    while (!out_failed(&out) && cli_next(reader, &ev)) {
        /* The clock never goes back: past the window nothing is left. */
        if (ev.time >= opt.to)
            break;
        if (opt.lackey)
            dump_lackey_event(&ev);
        else if (dump_filter_event(&filter, &ev))
            dump_text_event(&text, &ev);
        if (filter.out_of_memory)
            cli_fail(cli_trace(), "out of memory");
    }

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
