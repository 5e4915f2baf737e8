/*
 * trace-objrel: the object-relative stream of a trace, one access per line,
 * as in Figure 3 of Wu et al.: the raw address beside (group, object,
 * offset), for grep, awk and sort.
 */
#include <stdio.h>

#include "base/cli.h"
#include "base/opts.h"
#include "objects/objrel_text.h"

static objmap_options map_options = { .group_depth = 1 };
static const char *only;
static int no_header;

static const opt_def options[] = {
    { "group-depth", 0, OPT_U32, &map_options.group_depth, "N",
      "a heap group is the first N frames of the allocation\n"
      "stack (default 1)", 1, OBJ_MAX_DEPTH, NULL },
    { "group", 0, OPT_STRING, &only, "NAME",
      "only accesses to groups whose name is NAME", 0, 0, NULL },
    { "no-header", 0, OPT_FLAG, &no_header, NULL, "no '#' header line", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Print every memory access of a trace in object-relative form, one per\n"
    "line, tab-separated:\n"
    "\n"
    "  time  tid  instruction  pc  kind  size  group  object  offset  address\n"
    "\n"
    "  time         trace time (guest instructions executed before it)\n"
    "  tid          thread\n"
    "  instruction  function:line of the accessing instruction (or 0xADDR)\n"
    "  pc           its address\n"
    "  kind         L (load), S (store) or M (modify)\n"
    "  size         bytes\n"
    "  group        the allocation site (function:line); a static object:\n"
    "               a data symbol (also from a debug file in\n"
    "               /usr/lib/debug/.build-id) or module data no symbol\n"
    "               covers, file:section[+0xOFF] or file:(ELF headers);\n"
    "               'stack' or 'unknown'\n"
    "  object       serial of the object within its group, from 0\n"
    "  offset       bytes from the start of the object (for 'unknown', the\n"
    "               address)\n"
    "  address      the raw address, 0x...",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "The rules for groups, stack and unknown are those of trace-objects\n"
    "(tools/lib/objects/objmap.h). Exit status: 0, 1 on a bad trace or a\n"
    "failed write, 2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static objrel_text *text;

int main(int argc, char **argv)
{
    char **args;
    static char outbuf[1 << 16];
    mr_event ev;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    reader = cli_open_trace(args[0]);
    map_options.reader = reader;
    if (!(text = objrel_text_new(reader, &map_options, only, stdout)))
        cli_fail(NULL, "out of memory");
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (!no_header)
        objrel_text_header(text);
    while (cli_next(reader, &ev) && !ferror(stdout))
        if (objrel_text_event(text, &ev) < 0)
            cli_fail(NULL, "out of memory");
    cli_flush_stdout();
    objrel_text_free(text);
    mr_reader_close(reader);
    return 0;
}
