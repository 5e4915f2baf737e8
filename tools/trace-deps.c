/*
 * trace-deps: the baselines LEAP is measured against: the exact
 * dependence and stride profiler (a shadow memory of each byte's last
 * writer) and Connors' windowed dependence profiler. The algorithms are in
 * tools/lib/deps/, the decisions in docs/trace-deps.md.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/cli.h"
#include "db/pdb_analysis.h"
#include "deps/deps_store.h"
#include "leap/leap_report.h"
#include "objects/objmap.h"
#include "stream/objinsn.h"
#include "base/symbolize.h"

static const char usage_text[] =
    "Usage: trace-deps [OPTION]... [TRACE|-]\n"
    "Memory dependence frequencies of every (store, load) pair, on raw\n"
    "addresses: the share of a load's executions whose first byte the store\n"
    "wrote last before it.\n"
    "\n"
    "  --method=exact     (default) the truth: a shadow memory holds each\n"
    "                     byte's last writer; also the exact stride profile\n"
    "                     of every instruction (within objects)\n"
    "  --method=connors   Connors' profiler: only the last --window stores\n"
    "                     are remembered; it never overestimates\n"
    "  --window=N         Connors' history, in stores (default %d)\n"
    "  --db FILE          also store the results in profile database FILE\n"
    "                     (the method's rows of dependences and strides)\n"
    "  --no-strides       exact: the dependences alone, without the stride\n"
    "                     profile (whose histogram of every stride of every\n"
    "                     instruction is the slow part on irregular code)\n"
    "  --group-depth=N    heap groups for the strides (default 1)\n"
    "  -q, --quiet        no progress on stderr\n"
    "  -h, --help         this help\n"
    "      --version      print the version\n"
    "\n"
    "Output, tab-separated:\n"
    "  summary accesses N method M memory_bytes N\n"
    "  dep     STORE LOAD frequency conflicts executions\n"
    "  stride  INSN stride share steps strongly|weakly   (exact only)\n"
    "instructions written function:line@0xADDR(kind size). See\n"
    "docs/trace-deps.md.\n"
    "\n"
    "Exit status: 0 when done (also for a truncated trace, with a warning),\n"
    "1 when the trace cannot be read or the database cannot be written (it is\n"
    "then left as it was), 2 for bad usage.\n";

/* What the command line asked for. */
typedef struct options {
    const char *trace, *db;
    deps_method method;
    uint32_t window, group_depth;
    int no_strides;
} options;

/* Statics, so that exits through cli_fail() leave them reachable. */
static mr_reader *reader;
static objmap *map;             /* exact only: objects for the strides */
static objinsn *insns;
static deps *profiler;
static stride_prof *strides;    /* exact only */
static obj_cache *caches;
static size_t ncaches;
static uint32_t *scratch;
static size_t nscratch;
static uint64_t accesses;

static void parse_options(int argc, char **argv, options *o)
{
    enum { OPT_DB = 256, OPT_METHOD, OPT_WINDOW, OPT_DEPTH, OPT_NO_STRIDES,
           OPT_VERSION };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"method", required_argument, NULL, OPT_METHOD},
        {"window", required_argument, NULL, OPT_WINDOW},
        {"group-depth", required_argument, NULL, OPT_DEPTH},
        {"no-strides", no_argument, NULL, OPT_NO_STRIDES},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c, window_given = 0;
    uint64_t v;
    o->method = DEPS_EXACT;
    o->window = DEPS_DEFAULT_WINDOW;
    o->group_depth = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: o->db = optarg; break;
        case OPT_METHOD:
            if (!strcmp(optarg, "exact"))
                o->method = DEPS_EXACT;
            else if (!strcmp(optarg, "connors"))
                o->method = DEPS_CONNORS;
            else
                cli_usage_error("option '--method': '%s' is not exact or connors", optarg);
            break;
        case OPT_WINDOW:
            v = cli_parse_u64("--window", optarg);
            if (v < 1 || v > 1000000)
                cli_usage_error("option '--window': %s is not in 1..1000000", optarg);
            o->window = (uint32_t)v;
            window_given = 1;
            break;
        case OPT_DEPTH:
            v = cli_parse_u64("--group-depth", optarg);
            if (v < 1 || v > OBJ_MAX_DEPTH)
                cli_usage_error("--group-depth must be 1 to %d", OBJ_MAX_DEPTH);
            o->group_depth = (uint32_t)v;
            break;
        case OPT_NO_STRIDES: o->no_strides = 1; break;
        case 'q': cli_set_quiet(1); break;
        case 'h': printf(usage_text, DEPS_DEFAULT_WINDOW); exit(0);
        case OPT_VERSION: cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (window_given && o->method != DEPS_CONNORS)
        cli_usage_error("option '--window' is for --method=connors");
    if (argc - optind > 1)
        cli_usage_error("one trace at most; extra argument '%s'", argv[optind + 1]);
    o->trace = optind < argc ? argv[optind] : "-";
    if (o->db && !*o->db)
        cli_usage_error("option '--db' needs a file name");
}

static void out_of_memory(const options *o)
{
    cli_fail(cli_trace_name(o->trace), "out of memory");
}

/* Every access of one block execution into the profilers (as
 * trace-objrel walks them, guarded accesses included). */
static void feed_exec(const options *o, const mr_event *ev)
{
    const mr_block_def *def = ev->u.exec.def;
    if (ARRAY_FIT(scratch, nscratch, def->naccesses) < 0)
        out_of_memory(o);
    const uint32_t *sl = objinsn_exec(insns, ev, scratch);
    if (!sl || ARRAY_FIT(caches, ncaches, objinsn_count(insns)) < 0)
        out_of_memory(o);
    for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
        const mr_access *a = &ev->u.exec.accesses[i];
        if (deps_access(profiler, sl[i], a->kind, a->size, a->addr) < 0)
            out_of_memory(o);
        if (!strides)
            continue;
        obj_object *obj = objmap_find(map, &caches[sl[i]], ev->tid, a->addr);
        if (stride_access(strides, sl[i], obj->group->id, obj->serial,
                          a->addr - obj->addr) < 0)
            out_of_memory(o);
    }
    accesses += ev->u.exec.naccesses;
}

static void read_trace(const options *o)
{
    objmap_options mo = { .group_depth = o->group_depth, .reader = reader };
    if (!(insns = objinsn_new()) || !(profiler = deps_new(o->method, o->window)))
        out_of_memory(o);
    if (o->method == DEPS_EXACT && !o->no_strides &&
        (!(map = objmap_new(&mo)) || !(strides = stride_new())))
        out_of_memory(o);
    mr_event ev;
    uint64_t events = 0;
    while (cli_next(reader, o->trace, &ev, 1) > 0) {
        if (map && objmap_event(map, &ev) < 0)
            out_of_memory(o);
        if (ev.kind == MR_EV_EXEC && ev.u.exec.naccesses)
            feed_exec(o, &ev);
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();
}

static const char *method_name(const options *o)
{
    return o->method == DEPS_EXACT ? "exact" : "connors";
}

static void store(const options *o, int argc, char **argv, const deps_pair *p,
                  uint32_t np, const stride_info *s, uint32_t ns)
{
    static const char *const mine[] = { NULL };  /* rows go by method */
    char err[512], name[32];
    int64_t run;
    snprintf(name, sizeof name, "deps-%s", method_name(o));
    pdb *db = pdb_analysis_begin(o->db, reader, o->trace, name, argc, argv,
                                 mine, &run, err, sizeof err);
    if (!db)
        cli_fail(o->db, "%s", err);
    if (deps_store(db, run, reader, insns, method_name(o), profiler, p, np, s, ns) ||
        pdb_commit(db)) {
        snprintf(err, sizeof err, "%s", *pdb_error(db) ? pdb_error(db) : "out of memory");
        pdb_abort(db);
        cli_fail(o->db, "%s", err);
    }
    pdb_close(db);
}

static void report(const options *o, const deps_pair *p, uint32_t np,
                   const stride_info *s, uint32_t ns)
{
    char a[SYM_BUF + 64], b[SYM_BUF + 64];
    printf("summary\taccesses %" PRIu64 "\tmethod %s\tmemory_bytes %" PRIu64 "\n",
           accesses, method_name(o), deps_memory(profiler));
    for (uint32_t i = 0; i < np; i++) {
        uint64_t execs = deps_load_executions(profiler, p[i].load);
        printf("dep\t%s\t%s\t%.4f\t%" PRIu64 "\t%" PRIu64 "\n",
               leap_insn_text(reader, insns, p[i].store, a, sizeof a),
               leap_insn_text(reader, insns, p[i].load, b, sizeof b),
               (double)p[i].conflicts / (double)execs, p[i].conflicts, execs);
    }
    for (uint32_t i = 0; i < ns; i++)
        if (s[i].steps)
            printf("stride\t%s\t%" PRId64 "\t%.4f\t%" PRIu64 "\t%s\n",
                   leap_insn_text(reader, insns, s[i].insn, a, sizeof a),
                   s[i].stride, s[i].share, s[i].steps,
                   s[i].strongly ? "strongly" : "weakly");
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write");
}

int main(int argc, char **argv)
{
    options o = { 0 };
    cli_init(argv[0]);
    parse_options(argc, argv, &o);
    reader = cli_open_trace(o.trace);
    read_trace(&o);
    deps_pair *pairs;
    uint32_t npairs, nst = 0;
    stride_info *st = NULL;
    if (deps_pairs(profiler, &pairs, &npairs) < 0 ||
        (strides && stride_results(strides, &st, &nst) < 0))
        out_of_memory(&o);
    if (o.db)
        store(&o, argc, argv, pairs, npairs, st, nst);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    report(&o, pairs, npairs, st, nst);
    free(pairs);
    free(st);
    stride_free(strides);
    deps_free(profiler);
    free(caches);
    free(scratch);
    objinsn_free(insns);
    if (map)
        objmap_free(map);
    mr_reader_close(reader);
    return 0;
}
