/*
 * trace-mempat: Exana's memory access patterns (MemPat) of every static
 * memory instruction of a trace, read once; the algorithm is in
 * tools/lib/mempat.c, the decisions in docs/trace-mempat.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "mempat/mempat.h"
#include "stream/insns.h"
#include "db/profiledb.h"
#include "base/symbolize.h"

static const char usage_text[] =
    "Usage: trace-mempat [OPTION]... [TRACE|-]\n"
    "Exana's memory access patterns (MemPat): one line per memory instruction\n"
    "and access kind, in address order, e.g.\n"
    "  R4@401a80={Fix:[4x1] +4+ Seq:[4x2]}   W4@401b10=Str:[4x1,(+4+,4x1)*2]\n"
    "\n"
    "  --db FILE          also store the patterns in profile database FILE\n"
    "                     (table mempat; one transaction)\n"
    "  --symbolize        append a tab and function:line to every line\n"
    "  --max-patterns=N   committed patterns kept per instruction (default %d);\n"
    "                     beyond, the instruction is summarised as\n"
    "                     Overflow:[count=N,min=HEX,max=HEX,stride=D|none]\n"
    "  -q, --quiet        no progress on stderr\n"
    "  -h, --help         this help\n"
    "      --version      print the version\n"
    "\n"
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
    "Exit status: 0 when done (also for a truncated trace, with a warning),\n"
    "1 when the trace cannot be read or the database cannot be written (it is\n"
    "then left as it was), 2 for bad usage.\n";

/* Statics, so that exits through cli_fail() leave them reachable (no leak
 * reports under the sanitizers). */
static mr_reader *reader;
static insn_table *insns;
static mempat *patterns;
static uint32_t *to_slot;        /* insns number -> mempat slot */
static uint32_t nto_slot;
static uint32_t *scratch;        /* insn_table_exec's room for guarded blocks */
static uint32_t nscratch;
static uint32_t *order;
static const char *trace_path;   /* for messages */

/* What the command line asked for. */
typedef struct options {
    const char *trace;
    const char *db;
    int symbolize;
    uint32_t max_patterns;
} options;

static void parse_options(int argc, char **argv, options *o)
{
    enum { OPT_DB = 256, OPT_SYMBOLIZE, OPT_MAX, OPT_VERSION };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"symbolize", no_argument, NULL, OPT_SYMBOLIZE},
        {"max-patterns", required_argument, NULL, OPT_MAX},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c;
    uint64_t v;
    o->max_patterns = MEMPAT_DEFAULT_MAX_PATTERNS;
    opterr = 0;   /* one usage message of our own, not getopt's as well */
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: o->db = optarg; break;
        case OPT_SYMBOLIZE: o->symbolize = 1; break;
        case OPT_MAX:
            v = cli_parse_u64("--max-patterns", optarg);
            if (v < 1 || v > 1000000)
                cli_usage_error("option '--max-patterns': %s is not in "
                                "1..1000000", optarg);
            o->max_patterns = (uint32_t)v;
            break;
        case 'q': cli_set_quiet(1); break;
        case 'h': printf(usage_text, MEMPAT_DEFAULT_MAX_PATTERNS); exit(0);
        case OPT_VERSION: cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        cli_usage_error("one trace at most; extra argument '%s'",
                        argv[optind + 1]);
    o->trace = optind < argc ? argv[optind] : "-";
    if (o->db && !*o->db)
        cli_usage_error("option '--db' needs a file name");
}

static void out_of_memory(void)
{
    cli_fail(cli_trace_name(trace_path), "out of memory");
}

/* Gives every insns number seen so far its mempat slot (insns keys by
 * size too; a MemPat line is per address and kind). */
static void map_new_instructions(void)
{
    uint32_t n = insn_table_count(insns);
    if (n <= nto_slot)
        return;
    uint32_t *m = realloc(to_slot, n * sizeof *m);
    if (!m)
        out_of_memory();
    to_slot = m;
    for (uint32_t i = nto_slot; i < n; i++) {
        const insn_info *in = insn_table_get(insns, i);
        if ((to_slot[i] = mempat_slot(patterns, in->addr, in->kind)) ==
            UINT32_MAX)
            out_of_memory();
    }
    nto_slot = n;
}

/* The mempat slots of a block's access definitions, made at the block's
 * first execution: the common exec (every access of its exit happened)
 * then costs one array load per access to find its slot. */
typedef struct block_slots {
    const mr_block_def *def;   /* the definition they were made for: an id
                                * defined again gets new slots */
    int distinct;              /* no two accesses share a slot: a batch of
                                * executions can go to each slot whole */
    uint32_t slot[];           /* per access definition */
} block_slots;
static block_slots **slots_by_block;   /* block id -> its slots */
static uint32_t nslots_by_block;

static const block_slots *slots_of_block(const mr_block_def *def)
{
    if (def->id < nslots_by_block && slots_by_block[def->id] &&
        slots_by_block[def->id]->def == def)
        return slots_by_block[def->id];
    const uint32_t *insn = insn_table_block(insns, def);
    if (!insn)
        out_of_memory();
    map_new_instructions();
    if (def->id >= nslots_by_block) {
        uint32_t n = nslots_by_block ? nslots_by_block : 1024;
        while (n <= def->id)
            n *= 2;
        block_slots **b = realloc(slots_by_block, n * sizeof *b);
        if (!b)
            out_of_memory();
        memset(b + nslots_by_block, 0, (n - nslots_by_block) * sizeof *b);
        slots_by_block = b;
        nslots_by_block = n;
    }
    block_slots *bs = malloc(sizeof *bs + (def->naccesses ? def->naccesses : 1) * sizeof *bs->slot);
    if (!bs)
        out_of_memory();
    bs->def = def;
    bs->distinct = 1;
    /* A slot seen twice: its stamp is already this block's. */
    static uint64_t *stamp, stamp_now;
    static uint32_t nstamp;
    uint32_t nslots = mempat_count(patterns);
    if (nslots > nstamp) {
        uint64_t *st = realloc(stamp, nslots * sizeof *st);
        if (!st)
            out_of_memory();
        memset(st + nstamp, 0, (nslots - nstamp) * sizeof *st);
        stamp = st;
        nstamp = nslots;
    }
    stamp_now++;
    for (uint32_t a = 0; a < def->naccesses; a++) {
        uint32_t slot = bs->slot[a] = to_slot[insn[a]];
        bs->distinct &= stamp[slot] != stamp_now;
        stamp[slot] = stamp_now;
    }
    free(slots_by_block[def->id]);
    return slots_by_block[def->id] = bs;
}

/* Phases 1 and 2 for the accesses of one block execution, or of a batch of
 * repeat executions (execution j's access i at addr + j * strides[i]). */
static void feed_exec(const mr_event *ev)
{
    const mr_block_def *def = ev->u.exec.def;
    const block_slots *bs = slots_of_block(def);
    const uint32_t *slots = bs->slot;
    const mr_access *a = ev->u.exec.accesses;
    uint32_t n = ev->u.exec.naccesses;
    uint64_t repeat = ev->u.exec.repeat;
    mempat_run *runs = mempat_runs(patterns);
    if (repeat > 1) {   /* a batch: every access of its exit happened */
        const uint64_t *st = ev->u.exec.strides;
        if (bs->distinct) {   /* slots are independent: each takes its run whole */
            for (uint32_t i = 0; i < n; i++)
                mempat_access_run(patterns, runs, slots[i], a[i].addr, st[i], repeat,
                                  a[i].size);
            return;
        }
        for (uint64_t j = 0; j < repeat; j++)
            for (uint32_t i = 0; i < n; i++)
                mempat_access(patterns, runs, slots[i], a[i].addr + j * st[i], a[i].size);
        return;
    }
    if (n != def->exits[ev->u.exec.exit].naccesses) {
        /* Guarded accesses whose guard was false are missing: insns
         * matches the others to their definitions. */
        if (def->naccesses > nscratch) {
            uint32_t *s = realloc(scratch, def->naccesses * sizeof *s);
            if (!s)
                out_of_memory();
            scratch = s;
            nscratch = def->naccesses;
        }
        const uint32_t *insn = insn_table_exec(insns, ev, scratch);
        if (!insn)
            out_of_memory();
        for (uint32_t i = 0; i < n; i++)
            mempat_access(patterns, runs, to_slot[insn[i]], a[i].addr, a[i].size);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        mempat_access(patterns, runs, slots[i], a[i].addr, a[i].size);
}

static void read_trace(const char *path)
{
    mr_event ev;
    uint64_t events = 0;
    reader = cli_open_trace(path);
    /* Loops come as arithmetic runs (feed_exec); mempat keeps only each
     * instruction's own order, which is all it needs. */
    mr_reader_batch(reader, MR_BATCH_PER_INSTRUCTION);
    while (cli_next(reader, path, &ev, 1) > 0) {
        if (ev.kind == MR_EV_EXEC && ev.u.exec.naccesses)
            feed_exec(&ev);
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();
    mempat_finish(patterns);      /* phase 3 */
    if (mempat_failed(patterns))
        out_of_memory();
}

/* "prog arg1 arg2" of the traced process, for the runs table (malloc'd). */
static char *process_command(const mr_process *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (uint32_t i = 0; p && i < p->argc; i++)
        fprintf(f, "%s%s", i ? " " : "", p->argv[i]);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Our own command line, for the analyses table (malloc'd). */
static char *own_command(int argc, char **argv)
{
    mr_process me = { .argc = (uint32_t)argc,
                      .argv = (const char *const *)argv };
    return process_command(&me);
}

/* One mempat row (and its instructions row). */
static int store_one(pdb *db, sqlite3_stmt *ins, int64_t run, uint32_t slot)
{
    mempat_info info;
    int64_t insn;
    mempat_get_info(patterns, slot, &info);
    const mr_symbol *sym = mr_reader_symbol(reader, info.instr);
    if (pdb_instruction(db, run, info.instr, sym ? sym->function : NULL,
                        sym ? sym->file : NULL, sym ? sym->line : 0,
                        mr_access_kind_name(info.access_kind), info.size,
                        &insn))
        return -1;
    char *text = mempat_pattern_text(patterns, slot);
    if (!text)
        return -1;
    sqlite3_bind_int64(ins, 1, run);
    sqlite3_bind_int64(ins, 2, insn);
    sqlite3_bind_text(ins, 3, text, -1, free);
    sqlite3_bind_text(ins, 4, mempat_kind_name(info.kind), -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 5, (int64_t)info.accesses);
    sqlite3_bind_int(ins, 6, info.overflowed);
    return pdb_exec(db, ins);
}

/* Writes every pattern in one transaction; on any failure the database is
 * left as it was and the command fails. */
static void store(const options *o, int argc, char **argv, uint32_t n)
{
    static const char *const mine[] = { "mempat", NULL };
    char *err = NULL, msg[512];
    pdb *db = pdb_open(o->db, PDB_CREATE, &err);
    if (!db) {
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(o->db, "%s", msg);
    }
    const mr_process *p = mr_reader_process(reader);
    char *command = process_command(p), *options = own_command(argc, argv);
    pdb_run_info info = { .trace = o->trace, .command = command,
                          .pid = p ? p->pid : 0,
                          .started = p ? p->start_usec : 0 };
    int64_t run;
    sqlite3_stmt *ins = NULL;
    int rc = pdb_begin_run(db, "mempat", options, &info, mine, &run);
    if (rc == 0)
        ins = pdb_prepare(db, "INSERT INTO mempat (run, instruction, pattern, "
                              "kind, accesses, overflowed) "
                              "VALUES (?, ?, ?, ?, ?, ?)");
    rc = rc || !ins;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        if (store_one(db, ins, run, order[i]))
            rc = -1;
    rc = rc || pdb_commit(db);
    free(command);
    free(options);
    if (rc) {
        snprintf(msg, sizeof msg, "%s", *pdb_error(db) ? pdb_error(db)
                                                        : "out of memory");
        pdb_abort(db);
        cli_fail(o->db, "%s", msg);
    }
    pdb_close(db);
}

static void print_lines(const options *o, uint32_t n)
{
    char where[SYM_BUF];
    for (uint32_t i = 0; i < n; i++) {
        mempat_info info;
        mempat_get_info(patterns, order[i], &info);
        char *line = mempat_line(patterns, order[i],
                                 o->symbolize ? sym_where(reader, info.instr,
                                                          where, sizeof where)
                                              : NULL);
        if (!line)
            out_of_memory();
        puts(line);
        free(line);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno));
}

int main(int argc, char **argv)
{
    options o = { 0 };
    cli_init(argv[0]);
    parse_options(argc, argv, &o);
    trace_path = o.trace;
    insns = insn_table_new();
    patterns = mempat_new(o.max_patterns);
    if (!insns || !patterns)
        out_of_memory();
    read_trace(o.trace);

    uint32_t n = mempat_count(patterns);
    order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        out_of_memory();
    n = mempat_order(patterns, order);
    if (o.db)
        store(&o, argc, argv, n);
    print_lines(&o, n);

    free(order);
    for (uint32_t i = 0; i < nslots_by_block; i++)
        free(slots_by_block[i]);
    free(slots_by_block);
    free(scratch);
    free(to_slot);
    mempat_free(patterns);
    insn_table_free(insns);
    mr_reader_close(reader);
    return 0;
}
