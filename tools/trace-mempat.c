/*
 * trace-mempat: Exana's memory access patterns (MemPat) of every static
 * memory instruction of a trace, read once; the algorithm is in
 * tools/lib/mempat/, the decisions in docs/trace-mempat.md.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/cli.h"
#include "base/opts.h"
#include "base/symbolize.h"
#include "db/session.h"
#include "mempat/feed.h"
#include "mempat/store.h"

static const char *db_path;
static int symbolize;
static uint32_t max_patterns = MEMPAT_DEFAULT_MAX_PATTERNS;

static const opt_def options[] = {
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the patterns in profile database FILE\n"
      "(table mempat; one transaction)", 0, 0, NULL },
    { "symbolize", 0, OPT_FLAG, &symbolize, NULL,
      "append a tab and function:line to every line", 0, 0, NULL },
    { "max-patterns", 0, OPT_U32, &max_patterns, "N",
      "committed patterns kept per instruction (default 64);\n"
      "beyond, the instruction is summarised as\n"
      "Overflow:[count=N,min=HEX,max=HEX,stride=D|none]", 1, 1000000, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Exana's memory access patterns (MemPat): one line per memory instruction\n"
    "and access kind, in address order, e.g.\n"
    "  R4@401a80={Fix:[4x1] +4+ Seq:[4x2]}   W4@401b10=Str:[4x1,(+4+,4x1)*2]",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "R load, W store, M modify (read-modify-write of one location); the hex\n"
    "number after @ is the instruction's address, the size before it the\n"
    "bytes of its first access. [SxN]: N accesses of S bytes, each where the\n"
    "one before ended (Fix when N is 1, Seq else). +D+ / -D-: bytes from the\n"
    "end of the previous access to the start of the next. Str/SeqStr: a first\n"
    "element and k lasting ones at one offset, (+D+,E)*k, or +D+,E when k is\n"
    "1; an element may itself be a pattern (loop nests). REPn: the pattern n\n"
    "times from the same address. {...}: a complex pattern, the committed\n"
    "patterns in order with the offsets between them. Accesses of all threads\n"
    "are taken in trace order. See docs/trace-mempat.md.\n"
    "\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning,\n"
    "unless --strict), 1 when the trace cannot be read or the database cannot\n"
    "be written (it is then left as it was), 2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable (no leak
 * reports under the sanitizers). */
static mr_reader *reader;
static mempat *patterns;
static mempat_feed *feed;
static uint32_t *order;
static pdb_session db;

static void read_trace(void)
{
    mr_event ev;
    /* Loops come as arithmetic runs where that pays (feed.h); mempat
     * keeps only each instruction's own order, which is all it needs. */
    mempat_feed_batching(feed, reader);
    while (cli_next(reader, &ev))
        if (mempat_feed_event(feed, &ev) < 0)
            cli_fail(cli_trace(), "out of memory");
    mempat_finish(patterns);      /* phase 3 */
    if (mempat_failed(patterns))
        cli_fail(cli_trace(), "out of memory");
}

static void store(int argc, char **argv, const char *trace, uint32_t n)
{
    if (pdb_session_begin(&db, "mempat", MEMPAT_TABLES, reader, trace, argc,
                          argv) < 0 ||
        mempat_store(db.db, db.run, patterns, order, n, reader) < 0 ||
        pdb_session_commit(&db) < 0)
        cli_fail(db_path, "%s", pdb_session_error(&db));
}

static void print_lines(uint32_t n)
{
    char where[SYM_BUF];
    for (uint32_t i = 0; i < n; i++) {
        mempat_info info;
        mempat_get_info(patterns, order[i], &info);
        char *line = mempat_line(patterns, order[i],
                                 symbolize ? sym_where(reader, info.instr, where,
                                                       sizeof where)
                                           : NULL);
        if (!line)
            cli_fail(cli_trace(), "out of memory");
        puts(line);
        free(line);
    }
    cli_flush_stdout();
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    reader = cli_open_trace(args[0]);
    if (db_path)
        pdb_session_start(&db, db_path);
    patterns = mempat_new(max_patterns);
    if (!patterns || !(feed = mempat_feed_new(patterns)))
        cli_fail(NULL, "out of memory");
    read_trace();

    uint32_t n = mempat_count(patterns);
    if (!(order = malloc((n ? n : 1) * sizeof *order)))
        cli_fail(NULL, "out of memory");
    n = mempat_order(patterns, order);
    if (db_path)
        store(argc, argv, args[0], n);
    print_lines(n);

    free(order);
    mempat_feed_free(feed);
    mempat_free(patterns);
    mr_reader_close(reader);
    return 0;
}
