/*
 * trace-objects: the object-relative profile of a trace (objmap.h): every
 * access becomes (instruction, group, object, offset, time) and is
 * aggregated per object, per group and offset, per (instruction, group)
 * and per thread. With --db the profile goes into the profile database
 * (one transaction: a failure leaves the file as it was); without, a
 * readable report of the hottest groups and objects is printed.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "stream/insns.h"
#include "objects/objmap.h"
#include "objects/objprof.h"
#include "objects/objreport.h"
#include "objects/objstore.h"
#include "db/profiledb.h"

static const char usage_text[] =
    "Usage: trace-objects [--db FILE] [--group-depth=N] [--samples=N] [--top=N]\n"
    "                     [--translate-only] [-q] [TRACE|-]\n"
    "Translate every memory access of a trace to (instruction, group, object,\n"
    "offset, time) and profile groups, objects, fields and instructions.\n"
    "\n"
    "  --db FILE        write the profile into this profile database (created\n"
    "                   if missing); re-running on the same trace replaces\n"
    "                   this analysis's rows of its run\n"
    "  --group-depth=N  a heap group is the first N frames of the allocation\n"
    "                   stack (default 1: the allocating call site)\n"
    "  --samples=N      accesses kept per group, evenly thinned over the run,\n"
    "                   for trace-plot (default 4096; 0: none)\n"
    "  --top=N          groups and objects listed in the report (default 15)\n"
    "  --translate-only only translate each access to its object and count\n"
    "                   accesses by kind of memory (heap, static, stack,\n"
    "                   unknown): the translation without the profile\n"
    "  -q, --quiet      no progress on stderr\n"
    "  -h, --help       this help\n"
    "      --version    print the version\n"
    "\n"
    "Groups are heap allocation sites, static data objects (one group each,\n"
    "named by the data symbol, or file:section[+0xOFF] for module data that\n"
    "no symbol covers), 'stack' and 'unknown'; see tools/lib/objmap.h for\n"
    "the exact rules. A truncated trace is profiled up to where it ends, with\n"
    "a warning. Exit status: 0 on success, 1 on a bad trace or database\n"
    "(nothing written), 2 for bad usage.\n";

/* Kept in statics so that exits from cli_fail() leave them reachable. */
static mr_reader *reader;
static objprof *prof;
static objreport *report;
static pdb *db;
static objstore *store;
static const char *db_path;
static const char *trace_path;
static char *options_text;
static char *command_text;

/* argv joined by spaces, for the record. */
static char *join(int argc, const char *const *argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    *s = 0;
    for (int i = 0; i < argc; i++)
        p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
    return s;
}

/* Rolls the database back (file as before) and fails with msg. */
static _Noreturn void db_fail(const char *msg)
{
    char copy[600];
    snprintf(copy, sizeof copy, "%s", msg);
    objstore_free(store);
    store = NULL;
    pdb_abort(db);
    db = NULL;
    cli_fail(db_path, "%s", copy);
}

/* The run begins when the process identity is known (its event comes
 * first in a trace), or at the first object if a trace has none. */
static void begin_run(void)
{
    const mr_process *p = mr_reader_process(reader);
    pdb_run_info info = { .trace = trace_path };
    if (p) {
        info.pid = p->pid;
        info.started = p->start_usec;
        free(command_text);
        command_text = join((int)p->argc, p->argv);
        info.command = command_text;
    }
    int64_t run;
    if (pdb_begin_run(db, "objects", options_text, &info, OBJSTORE_TABLES, &run) < 0)
        db_fail(pdb_error(db));
    if (!(store = objstore_new(db, run, reader)))
        db_fail(pdb_error(db));
}

static void on_object(void *ctx, const obj_object *o, const obj_stats *s)
{
    (void)ctx;
    if (!store)
        begin_run();
    objstore_object(store, o, s);
}

static void read_trace(void)
{
    mr_event ev;
    uint64_t events = 0, instructions = 0;
    int rc;
    while ((rc = mr_next(reader, &ev)) > 0) {
        if (ev.kind == MR_EV_PROCESS && db && !store)
            begin_run();
        if (ev.kind == MR_EV_EXEC)
            instructions = ev.time + ev.u.exec.ninstrs;
        if (ev.kind == MR_EV_END && ev.u.end->totals.instructions)
            instructions = ev.u.end->totals.instructions;
        if (objprof_event(prof, &ev) < 0) {
            if (db)
                db_fail("out of memory");
            cli_fail(cli_trace_name(trace_path), "out of memory");
        }
        if (store && objstore_failed(store))
            db_fail(pdb_error(db));
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();
    if (rc < 0) {
        if (!mr_reader_truncated(reader)) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", mr_reader_error(reader));
            if (db) {
                objstore_free(store);
                store = NULL;
                pdb_abort(db);
                db = NULL;
            }
            cli_fail(cli_trace_name(trace_path), "%s", msg);
        }
        fprintf(stderr, "%s: %s: warning: %s; using the events before it\n",
                cli_prog(), cli_trace_name(trace_path), mr_reader_error(reader));
    }
    objprof_finish(prof);
    if (db) {
        if (!store)
            begin_run();
        if (objstore_finish(store, prof, instructions) < 0 || pdb_commit(db) < 0)
            db_fail(pdb_error(db));
    }
}

/* --translate-only: objmap alone, every access looked up, nothing kept. */
static void translate_only(uint32_t depth)
{
    objmap_options mo = { .group_depth = depth, .reader = reader };
    objmap *m = objmap_new(&mo);
    insn_table *t = insn_table_new();
    obj_cache *caches = NULL;
    uint32_t ncaches = 0, *scratch = NULL, nscratch = 0;
    uint64_t by_kind[4] = { 0 }, offsets = 0, events = 0;
    mr_event ev;
    if (!m || !t)
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, trace_path, &ev, 1) > 0) {
        if (objmap_event(m, &ev) < 0)
            cli_fail(NULL, "out of memory");
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
        if (ev.kind != MR_EV_EXEC || !ev.u.exec.naccesses)
            continue;
        const mr_block_def *def = ev.u.exec.def;
        if (def->naccesses > nscratch) {
            free(scratch);
            nscratch = def->naccesses;
            if (!(scratch = malloc(nscratch * sizeof *scratch)))
                cli_fail(NULL, "out of memory");
        }
        const uint32_t *slots = insn_table_exec(t, &ev, scratch);
        if (!slots)
            cli_fail(NULL, "out of memory");
        if (insn_table_count(t) > ncaches) {
            uint32_t n = insn_table_count(t) * 2;
            obj_cache *c = realloc(caches, n * sizeof *c);
            if (!c)
                cli_fail(NULL, "out of memory");
            memset(c + ncaches, 0, (n - ncaches) * sizeof *c);
            caches = c;
            ncaches = n;
        }
        for (uint32_t i = 0; i < ev.u.exec.naccesses; i++) {
            uint64_t addr = ev.u.exec.accesses[i].addr;
            obj_object *o = objmap_find(m, &caches[slots[i]], ev.tid, addr);
            by_kind[o->group->kind]++;
            offsets += addr - o->addr;  /* use the offset, as a profile would */
        }
    }
    cli_progress_done();
    objmap_finish(m);
    uint64_t all = by_kind[0] + by_kind[1] + by_kind[2] + by_kind[3];
    const objmap_stats *st = objmap_get_stats(m);
    printf("accesses %" PRIu64 ": heap %" PRIu64 ", static %" PRIu64
           ", stack %" PRIu64 ", unknown %" PRIu64 "\n",
           all, by_kind[0], by_kind[1], by_kind[2], by_kind[3]);
    printf("objects: %" PRIu64 " heap (at most %" PRIu64 " live at once, statics "
           "included), %" PRIu64 " static; %u groups; %" PRIu64
           " lookups missed the per-instruction cache\n",
           st->heap_objects, st->peak_live, st->static_objects,
           objmap_ngroups(m), st->lookups_slow);
    (void)offsets;
    free(caches);
    free(scratch);
    insn_table_free(t);
    objmap_free(m);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"group-depth", required_argument, NULL, 'g'},
        {"samples", required_argument, NULL, 's'},
        {"top", required_argument, NULL, 't'},
        {"translate-only", no_argument, NULL, 'T'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    objprof_options po = { .group_depth = 1, .samples = 4096 };
    uint64_t top = 15;
    int c, only_translate = 0;
    cli_init(argv[0]);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'g':
            po.group_depth = (uint32_t)cli_parse_u64("--group-depth", optarg);
            if (po.group_depth < 1 || po.group_depth > OBJ_MAX_DEPTH)
                cli_usage_error("--group-depth must be 1 to %d", OBJ_MAX_DEPTH);
            break;
        case 's': {
            uint64_t n = cli_parse_u64("--samples", optarg);
            if (n > 10000000)
                cli_usage_error("--samples must be at most 10000000");
            po.samples = (uint32_t)n;
            break;
        }
        case 't': top = cli_parse_u64("--top", optarg); break;
        case 'T': only_translate = 1; break;
        case 'q': cli_set_quiet(1); break;
        case 'h': fputs(usage_text, stdout); return 0;
        case 'V': cli_version();
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
    if (top > 100000)
        cli_usage_error("--top must be at most 100000");
    trace_path = optind < argc ? argv[optind] : "-";
    options_text = join(argc, (const char *const *)argv);

    /* The trace first: a trace that cannot be opened never touches the
     * database. */
    reader = cli_open_trace(trace_path);
    if (only_translate) {
        if (db_path)
            cli_usage_error("--translate-only writes no database");
        translate_only(po.group_depth);
        mr_reader_close(reader);
        free(options_text);
        return 0;
    }
    if (db_path) {
        char *err;
        if (!(db = pdb_open(db_path, PDB_CREATE, &err))) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
            free(err);
            cli_fail(db_path, "%s", msg);
        }
        po.on_object = on_object;
    } else {
        if (!(report = objreport_new((unsigned)top)))
            cli_fail(NULL, "out of memory");
        po.on_object = objreport_object;
        po.ctx = report;
    }
    po.reader = reader;
    if (!(prof = objprof_new(&po)))
        cli_fail(NULL, "out of memory");
    read_trace();
    if (report) {
        objreport_print(report, prof, reader, cli_trace_name(trace_path), stdout);
        if (fflush(stdout) != 0 || ferror(stdout))
            cli_fail("<stdout>", "cannot write");
    }
    objstore_free(store);
    pdb_close(db);
    objreport_free(report);
    objprof_free(prof);
    mr_reader_close(reader);
    free(options_text);
    free(command_text);
    return 0;
}
