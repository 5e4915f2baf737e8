/*
 * trace-wpp: Larus's whole program paths. Per thread, the sequence of
 * executed blocks as one Sequitur grammar; its size, its hot subpaths, or
 * its expansion; optionally into the profile database.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "base/cli.h"
#include "base/symbolize.h"
#include "db/grammar_store.h"
#include "wpp/hotpath.h"
#include "wpp/wpp.h"

static const char usage_text[] =
    "Usage: trace-wpp [--expand] [--db=FILE] [--hot-length=N] [--hot-cost=C]\n"
    "                 [--top=N] [-q] [TRACE|-]\n"
    "Larus's whole program path: for each thread, the sequence of executed\n"
    "blocks (a block and the exit it left by: exactly the instructions run)\n"
    "as one Sequitur grammar, and its hot subpaths found on the grammar.\n"
    "\n"
    "Default output, per thread: executions, distinct (block, exit) pairs,\n"
    "the grammar's size (rules, symbols, bytes stored), then the hot\n"
    "subpaths, most costly first: cost (length x executions), executions,\n"
    "length, instructions per pass, and the blocks as function:line.\n"
    "\n"
    "  --expand          print the paths back instead: each execution's block\n"
    "                    start address (0x...), one per line, as trace-dump's\n"
    "                    exec lines; thread by thread, in order of each\n"
    "                    thread's first execution (a one-thread trace prints\n"
    "                    exactly trace-dump's order)\n"
    "  --db=FILE         store each thread's grammar and hot subpaths in the\n"
    "                    profile database FILE (created if missing)\n"
    "  --hot-length=N    longest subpath considered, in blocks (default 8,\n"
    "                    at most 32)\n"
    "  --hot-cost=C      smallest cost of a hot subpath (default 1% of the\n"
    "                    thread's executions, at least 2)\n"
    "  --top=N           hot subpaths printed and stored per thread (default 10)\n"
    "  -q, --quiet       no progress on stderr\n"
    "  -h, --help        this help\n"
    "      --version     print the version\n"
    "\n"
    "Exit status: 0 (also on a truncated trace: a warning, and the paths so\n"
    "far), 1 on a bad trace, database or write error, 2 for bad usage.\n";

/* The command line. */
typedef struct options {
    const char *trace, *db;
    int expand;
    uint32_t hot_length;
    uint64_t hot_cost;          /* 0: the default */
    uint64_t top;
} options;

static mr_reader *reader;
static wpp *paths;

static void out_of_memory(void) { cli_fail(NULL, "out of memory"); }

static void read_trace(const options *o)
{
    reader = cli_open_trace(o->trace);
    if (!(paths = wpp_new()))
        out_of_memory();
    mr_event ev;
    uint64_t events = 0;
    while (cli_next(reader, o->trace, &ev, 1) > 0) {
        if (ev.kind == MR_EV_EXEC && wpp_exec(paths, ev.tid, ev.u.exec.def, ev.u.exec.exit) < 0)
            out_of_memory();
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();
}

/* Prints one block start address per terminal. */
static int print_address(void *ctx, uint64_t symbol)
{
    (void)ctx;
    return printf("0x%" PRIx64 "\n", wpp_symbol(paths, (uint32_t)symbol)->addr) < 0;
}

/* "f:12 > f:13 > g:4" and "0x... 0x..." of a subpath (malloc'd). */
static void describe(const hot_path *p, char **where, char **addrs, uint64_t *instrs)
{
    size_t wl = 0, al = 0;
    FILE *w = open_memstream(where, &wl), *a = open_memstream(addrs, &al);
    if (!w || !a)
        out_of_memory();
    *instrs = 0;
    for (uint32_t i = 0; i < p->length; i++) {
        const wpp_symbol_info *s = wpp_symbol(paths, (uint32_t)p->symbols[i]);
        char buf[SYM_BUF];
        fprintf(w, "%s%s", i ? " > " : "", sym_where(reader, s->addr, buf, sizeof buf));
        fprintf(a, "%s0x%" PRIx64, i ? " " : "", s->addr);
        *instrs += s->ninstrs;
    }
    if (fclose(w) || fclose(a))
        out_of_memory();
}

/* Hot subpaths of one thread's grammar. */
static hot_path *find_hot(const options *o, uint32_t t, const sq_grammar *g, size_t *n)
{
    uint64_t cost = o->hot_cost;
    if (!cost) {
        cost = wpp_thread_length(paths, t) / 100;
        cost = cost < 2 ? 2 : cost;
    }
    hot_path *hot;
    if (hot_paths(g, o->hot_length, cost, o->top, &hot, n) < 0)
        out_of_memory();
    return hot;
}

static void print_thread(const options *o, uint32_t t, const sq_grammar *g)
{
    sq_stats st;
    sq_grammar_stats(g, &st);
    printf("thread %" PRIu32 ": %" PRIu64 " block executions, %" PRIu32
           " distinct (block, exit); grammar: rules %" PRIu32 " symbols %" PRIu64
           " bytes %" PRIu64 "\n",
           wpp_thread_tid(paths, t), wpp_thread_length(paths, t), wpp_symbol_count(paths),
           st.rules, st.symbols, st.bytes);
    size_t n;
    hot_path *hot = find_hot(o, t, g, &n);
    printf("  %12s %12s %6s %8s  path\n", "cost", "executions", "length", "instrs");
    for (size_t i = 0; i < n; i++) {
        char *where, *addrs;
        uint64_t instrs;
        describe(&hot[i], &where, &addrs, &instrs);
        printf("  %12" PRIu64 " %12" PRIu64 " %6" PRIu32 " %8" PRIu64 "  %s\n", hot[i].cost,
               hot[i].executions, hot[i].length, instrs, where);
        free(where);
        free(addrs);
    }
    free(hot);
}

/* One thread's grammar and hot subpaths into the database. */
static int store_thread(pdb *db, int64_t run, const options *o, uint32_t t, const sq_grammar *g)
{
    char stream[32];
    uint32_t tid = wpp_thread_tid(paths, t);
    snprintf(stream, sizeof stream, "thread %" PRIu32, tid);
    if (grammar_store(db, run, "wpp", stream, g) < 0)
        return -1;
    size_t n;
    hot_path *hot = find_hot(o, t, g, &n);
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO hot_subpaths (run, thread, rank, length, "
                                        "executions, cost, instrs, path, addresses) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int rc = ins ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *where, *addrs;
        uint64_t instrs;
        describe(&hot[i], &where, &addrs, &instrs);
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, tid);
        sqlite3_bind_int64(ins, 3, (int64_t)i + 1);
        sqlite3_bind_int64(ins, 4, hot[i].length);
        sqlite3_bind_int64(ins, 5, (int64_t)hot[i].executions);
        sqlite3_bind_int64(ins, 6, (int64_t)hot[i].cost);
        sqlite3_bind_int64(ins, 7, (int64_t)instrs);
        sqlite3_bind_text(ins, 8, where, -1, free);
        sqlite3_bind_text(ins, 9, addrs, -1, free);
        rc = pdb_exec(db, ins);
    }
    free(hot);
    return rc;
}

/* Every thread in one transaction; on failure the database is as before. */
static void store(const options *o, int argc, char **argv, sq_grammar **grammars)
{
    static const char *const mine[] = { "hot_subpaths", NULL };
    char *err = NULL, msg[512];
    int64_t run;
    pdb *db = grammar_store_begin(o->db, "wpp", mine, o->trace, reader, argc, argv, &run, &err);
    if (!db) {
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(o->db, "%s", msg);
    }
    int rc = 0;
    for (uint32_t t = 0; t < wpp_thread_count(paths) && rc == 0; t++)
        rc = store_thread(db, run, o, t, grammars[t]);
    rc = rc || pdb_commit(db);
    if (rc) {
        snprintf(msg, sizeof msg, "%s", *pdb_error(db) ? pdb_error(db) : "out of memory");
        pdb_abort(db);
        cli_fail(o->db, "%s", msg);
    }
    pdb_close(db);
}

static void parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"expand", no_argument, NULL, 'e'},
        {"db", required_argument, NULL, 'd'},
        {"hot-length", required_argument, NULL, 'L'},
        {"hot-cost", required_argument, NULL, 'C'},
        {"top", required_argument, NULL, 'T'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'e': o->expand = 1; break;
        case 'd': o->db = optarg; break;
        case 'L':
            o->hot_length = (uint32_t)cli_parse_u64("--hot-length", optarg);
            if (o->hot_length < 1 || o->hot_length > HOT_MAX_LEN)
                cli_usage_error("--hot-length must be 1 to %d", HOT_MAX_LEN);
            break;
        case 'C': o->hot_cost = cli_parse_u64("--hot-cost", optarg); break;
        case 'T': o->top = cli_parse_u64("--top", optarg); break;
        case 'q': cli_set_quiet(1); break;
        case 'h': fputs(usage_text, stdout); exit(0);
        case 'V': cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        cli_usage_error("one trace at most; extra argument '%s'", argv[optind + 1]);
    o->trace = optind < argc ? argv[optind] : "-";
}

int main(int argc, char **argv)
{
    options o = { .hot_length = 8, .top = 10 };
    cli_init(argv[0]);
    parse_options(argc, argv, &o);
    read_trace(&o);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    uint32_t nthreads = wpp_thread_count(paths);
    sq_grammar **grammars = calloc(nthreads + 1, sizeof *grammars);
    for (uint32_t t = 0; grammars && t < nthreads; t++)
        if (!(grammars[t] = wpp_thread_grammar(paths, t)))
            out_of_memory();
    if (!grammars)
        out_of_memory();
    for (uint32_t t = 0; t < nthreads; t++) {
        if (o.expand) {
            if (sq_expand(grammars[t], 0, print_address, NULL) != 0)
                break;
        } else if (!o.db) {
            print_thread(&o, t, grammars[t]);
        }
    }
    if (o.db)
        store(&o, argc, argv, grammars);
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write");
    for (uint32_t t = 0; t < nthreads; t++)
        sq_grammar_free(grammars[t]);
    free(grammars);
    wpp_free(paths);
    mr_reader_close(reader);
    return 0;
}
