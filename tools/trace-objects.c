/*
 * trace-objects: the object-relative profile of a trace (objmap.h): every
 * access becomes (instruction, group, object, offset, time) and is
 * aggregated per object, per group and offset, per (instruction, group)
 * and per thread (objprof.h). With --db the profile goes into the profile
 * database (objstore.h, one transaction: a failure leaves the file as it
 * was); without, a readable report of the hottest groups and objects
 * (objreport.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "objects/census.h"
#include "objects/objprof.h"
#include "objects/objreport.h"
#include "objects/objstore.h"

static const char *db_path;
static objprof_options prof_options = { .group_depth = 1, .samples = 4096 };
static uint32_t top = 15;
static int translate_only;

static const opt_def options[] = {
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "write the profile into this profile database (created\n"
      "if missing); re-running on the same trace replaces\n"
      "this analysis's rows of its run", 0, 0, NULL },
    { "group-depth", 0, OPT_U32, &prof_options.group_depth, "N",
      "a heap group is the first N frames of the allocation\n"
      "stack (default 1: the allocating call site)", 1, OBJ_MAX_DEPTH, NULL },
    { "samples", 0, OPT_U32, &prof_options.samples, "N",
      "accesses kept per group, evenly thinned over the run,\n"
      "for trace-plot (default 4096; 0: none)", 0, 10000000, NULL },
    { "top", 0, OPT_U32, &top, "N",
      "groups and objects listed in the report (default 15)", 0, 100000, NULL },
    { "translate-only", 0, OPT_FLAG, &translate_only, NULL,
      "only translate each access to its object and count\n"
      "accesses by kind of memory (heap, static, stack,\n"
      "unknown): the translation without the profile", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[TRACE|-]",
    .summary =
    "Translate every memory access of a trace to (instruction, group, object,\n"
    "offset, time) and profile groups, objects, fields and instructions.",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .notes =
    "Groups are heap allocation sites (function@file:line of the call, C++\n"
    "names shortened; function@module+0xOFF or module+0xOFF without debug\n"
    "information), static data objects (one group each, module:symbol, or\n"
    "module:section[+0xOFF] for module data that no symbol covers), 'stack'\n"
    "and 'unknown'; see tools/lib/objects/objmap.h and groupname.h for the\n"
    "exact rules. A truncated trace is profiled up to where it ends,\n"
    "with a warning (an error with --strict). With --db, one line says what\n"
    "went where (run id, accesses, objects, groups, tables, peak memory;\n"
    "-q: nothing). Exit status: 0 on success, 1 on a bad trace or database\n"
    "(nothing written), 2 for bad usage.\n",
};

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static objprof *prof;
static objreport *report;
static pdb_session db;
static objstore *store;
static const char *trace;
static int argc_;
static char **argv_;

static void abort_db(void *ctx)
{
    (void)ctx;
    objstore_free(store);
    store = NULL;
    pdb_session_abort(&db);
}

/* The run begins when the process identity is known (its event comes
 * first in a trace), or at the first object if a trace has none. */
static void begin_run(void)
{
    if (pdb_session_begin(&db, "objects", OBJSTORE_TABLES, reader, trace,
                          argc_, argv_) < 0 ||
        !(store = objstore_new(db.db, db.run, reader)))
        cli_fail(db_path, "%s", pdb_session_error(&db));
}

/* objprof's on_object with --db: objects are written as they die, and
 * a write that fails ends the command here (the only writes before the
 * end are these). */
static void store_object(void *ctx, const obj_object *o, const obj_stats *s)
{
    (void)ctx;
    if (!store)
        begin_run();
    objstore_object(store, o, s);
    if (objstore_failed(store))
        cli_fail(db_path, "%s", pdb_session_error(&db));
}

static void translate(void)
{
    objmap_options mo = { .group_depth = prof_options.group_depth, .reader = reader };
    obj_census *c = obj_census_new(&mo);
    mr_event ev;
    if (!c)
        cli_fail(NULL, "out of memory");
    while (cli_next(reader, &ev))
        if (obj_census_event(c, &ev) < 0)
            cli_fail(NULL, "out of memory");
    obj_census_print(c, stdout);
    obj_census_free(c);
}

/* The process's peak resident memory in MiB (getrusage: KiB on Linux). */
static long peak_mib(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss / 1024 : -1;
}

/* The one line --db prints: which run, how much, into which tables. */
static void print_summary(void)
{
    uint64_t accesses, loads, stores;
    objprof_totals(prof, &accesses, &loads, &stores);
    const objmap *m = objprof_map(prof);
    const objmap_stats *st = objmap_get_stats(m);
    printf("trace-objects: %s: run %" PRId64 ": %" PRIu64 " accesses, %" PRIu64
           " objects in %" PRIu32 " groups by %" PRIu32 " instructions -> tables",
           db_path, db.run, accesses, st->heap_objects + st->static_objects,
           objmap_ngroups(m), insn_table_count(objprof_insns(prof)));
    for (const char *const *t = OBJSTORE_TABLES; *t; t++)
        printf("%s %s", t == OBJSTORE_TABLES ? "" : ",", *t);
    printf("; peak memory %ld MiB%s\n", peak_mib(),
           cli_trace_complete() ? "" : " (trace truncated)");
}

static void profile(void)
{
    mr_event ev;
    while (cli_next(reader, &ev)) {
        if (ev.kind == MR_EV_PROCESS && db_path && !store)
            begin_run();
        if (objprof_event(prof, &ev) < 0)
            cli_fail(cli_trace(), "out of memory");
    }
    objprof_finish(prof);
    if (!db_path) {
        objreport_print(report, prof, reader, cli_trace(), stdout);
        return;
    }
    if (!store)
        begin_run();
    if (objstore_finish(store, prof, objprof_instructions(prof)) < 0 ||
        pdb_session_commit(&db) < 0)
        cli_fail(db_path, "%s", pdb_session_error(&db));
    if (!cli_quiet())
        print_summary();
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (translate_only && db_path)
        cli_usage_error("--translate-only writes no database");
    argc_ = argc;
    argv_ = argv;
    trace = args[0];
    /* The trace first: a trace that cannot be opened never touches the
     * database. */
    reader = cli_open_trace(trace);
    if (translate_only) {
        translate();
    } else {
        if (db_path) {
            pdb_session_start(&db, db_path);
            cli_on_fail(abort_db, NULL);    /* the store goes too */
            prof_options.on_object = store_object;
        } else {
            if (!(report = objreport_new(top)))
                cli_fail(NULL, "out of memory");
            prof_options.on_object = objreport_object;
            prof_options.ctx = report;
        }
        prof_options.reader = reader;
        if (!(prof = objprof_new(&prof_options)))
            cli_fail(NULL, "out of memory");
        profile();
    }
    cli_flush_stdout();
    objstore_free(store);
    objreport_free(report);
    objprof_free(prof);
    mr_reader_close(reader);
    return 0;
}
