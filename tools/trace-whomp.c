/*
 * trace-whomp: WHOMP's object-relative grammars. The accesses of a trace
 * as (instruction, group, object, offset), one Sequitur grammar per
 * dimension (the OMSG), against the grammar of the same accesses' raw
 * (instruction, address) stream (the RASG); optionally into the profile
 * database.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/symbolize.h"
#include "db/grammar_store.h"
#include "objects/objmap.h"
#include "objects/objstore.h"
#include "stream/objinsn.h"
#include "whomp/whomp.h"

static const char usage_text[] =
    "Usage: trace-whomp [--expand] [--stack] [--vertical] [--db=FILE]\n"
    "                   [--group-depth=N] [-q] [TRACE|-]\n"
    "WHOMP (Wu et al.): the memory accesses of a trace in object-relative\n"
    "form (instruction, group, object, offset), one Sequitur grammar per\n"
    "dimension (the OMSG), against the grammar of the raw (instruction,\n"
    "address) stream of the same accesses (the RASG). Sizes are bytes of\n"
    "the stored grammars (zstd over varints), the same way for both.\n"
    "\n"
    "Accesses kept: heap and static objects; stack ones with --stack;\n"
    "'unknown' ones never. Threads interleave in trace order.\n"
    "\n"
    "  --expand          print the object-relative stream back from the four\n"
    "                    grammars, one access per line, tab-separated:\n"
    "                    function:line  pc  group  object  offset  (the\n"
    "                    same fields as trace-objrel's)\n"
    "  --stack           keep stack accesses too\n"
    "  --vertical        also one grammar per instruction over its (group,\n"
    "                    object, offset) tuples; their total size\n"
    "  --db=FILE         store the grammars and sizes in the profile\n"
    "                    database FILE (created if missing)\n"
    "  --group-depth=N   a heap group is the first N frames of the allocation\n"
    "                    stack (default 1), as in trace-objects\n"
    "  -q, --quiet       no progress on stderr\n"
    "  -h, --help        this help\n"
    "      --version     print the version\n"
    "\n"
    "Exit status: 0 (also on a truncated trace: a warning, and the accesses\n"
    "so far), 1 on a bad trace, database or write error, 2 for bad usage.\n";

typedef struct options {
    const char *trace, *db;
    int expand;
    whomp_options w;
    uint32_t group_depth;
} options;

static mr_reader *reader;
static objmap *map;
static objinsn *insns;
static whomp *grammars;
static obj_cache *caches;       /* one per instruction */
static size_t caches_cap;
static char **group_names;      /* by group id, for --expand */
static size_t group_names_cap;

static void out_of_memory(void) { cli_fail(NULL, "out of memory"); }

/* Remembers the group's display name at its first kept access. */
static void name_group(const obj_group *g)
{
    if (ARRAY_FIT(group_names, group_names_cap, (size_t)g->id + 1) < 0)
        out_of_memory();
    if (!group_names[g->id]) {
        char buf[SYM_BUF];
        if (!(group_names[g->id] = strdup(objstore_group_name(reader, g, buf, sizeof buf))))
            out_of_memory();
    }
}

static void feed_exec(const options *o, const mr_event *ev, uint32_t **scratch, size_t *nscratch)
{
    const mr_block_def *def = ev->u.exec.def;
    if (ARRAY_FIT(*scratch, *nscratch, def->naccesses) < 0)
        out_of_memory();
    const uint32_t *slots = objinsn_exec(insns, ev, *scratch);
    if (!slots || ARRAY_FIT(caches, caches_cap, objinsn_count(insns)) < 0)
        out_of_memory();
    for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
        const mr_access *a = &ev->u.exec.accesses[i];
        obj_object *obj = objmap_find(map, &caches[slots[i]], ev->tid, a->addr);
        int rc = whomp_access(grammars, slots[i], obj, a->addr);
        if (rc == -1)
            out_of_memory();
        if (rc == -2)
            cli_fail(cli_trace_name(o->trace), "more than %" PRIu32 " memory instructions or an "
                     "address above 2^47: the RASG cannot pack it", WHOMP_RASG_INSNS);
        if (rc == 1 && o->expand)
            name_group(obj->group);
    }
}

static void read_trace(const options *o)
{
    reader = cli_open_trace(o->trace);
    objmap_options mo = { .group_depth = o->group_depth, .reader = reader };
    if (!(map = objmap_new(&mo)) || !(insns = objinsn_new()) || !(grammars = whomp_new(&o->w)))
        out_of_memory();
    mr_event ev;
    uint32_t *scratch = NULL;
    size_t nscratch = 0;
    uint64_t events = 0;
    while (cli_next(reader, o->trace, &ev, 1) > 0) {
        if (objmap_event(map, &ev) < 0)
            out_of_memory();
        if (ev.kind == MR_EV_EXEC && ev.u.exec.naccesses)
            feed_exec(o, &ev, &scratch, &nscratch);
        if ((++events & 0xffff) == 0)
            cli_progress(reader);
    }
    cli_progress_done();
    free(scratch);
}

/* The four OMSG grammars walked in step: one tuple per line. */
static void expand(sq_grammar *const *omsg)
{
    sq_iter *it[WHOMP_DIMS];
    for (int d = 0; d < WHOMP_DIMS; d++)
        if (!(it[d] = sq_iter_new(omsg[d], 0)))
            out_of_memory();
    uint64_t v[WHOMP_DIMS];
    char **where = NULL;
    size_t where_cap = 0;
    while (sq_iter_next(it[WHOMP_INSTRUCTION], &v[0]) == 1) {
        for (int d = 1; d < WHOMP_DIMS; d++)
            if (sq_iter_next(it[d], &v[d]) != 1)
                cli_fail(NULL, "internal error: the %s stream is short", whomp_dim_name(d));
        if (ARRAY_FIT(where, where_cap, v[0] + 1) < 0)
            out_of_memory();
        if (!where[v[0]]) {
            const obj_insn *in = objinsn_get(insns, (uint32_t)v[0]);
            char buf[SYM_BUF], line[SYM_BUF + 32];
            snprintf(line, sizeof line, "%s\t0x%" PRIx64, sym_where(reader, in->addr, buf, sizeof buf),
                     in->addr);
            if (!(where[v[0]] = strdup(line)))
                out_of_memory();
        }
        if (printf("%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", where[v[0]], group_names[v[1]], v[2],
                   v[3]) < 0)
            break;
    }
    for (size_t i = 0; i < where_cap; i++)
        free(where[i]);
    free(where);
    for (int d = 0; d < WHOMP_DIMS; d++)
        sq_iter_free(it[d]);
}

/* Sizes of the grammars, computed once. */
typedef struct sizes {
    sq_stats omsg[WHOMP_DIMS], rasg;
    uint64_t omsg_bytes, vertical_bytes;
    double ratio;
} sizes;

static void measure(sq_grammar *const *omsg, const sq_grammar *rasg, sq_grammar *const *vert,
                    uint32_t nvert, sizes *s)
{
    s->omsg_bytes = 0;
    for (int d = 0; d < WHOMP_DIMS; d++) {
        sq_grammar_stats(omsg[d], &s->omsg[d]);
        s->omsg_bytes += s->omsg[d].bytes;
    }
    sq_grammar_stats(rasg, &s->rasg);
    s->ratio = s->rasg.bytes ? (double)s->omsg_bytes / s->rasg.bytes : 0;
    s->vertical_bytes = 0;
    for (uint32_t i = 0; i < nvert; i++) {
        sq_stats st;
        sq_grammar_stats(vert[i], &st);
        s->vertical_bytes += st.bytes;
    }
}

static void print_sizes(const options *o, const sizes *s, uint32_t nvert)
{
    printf("accesses %" PRIu64 " kept (heap, static%s), %" PRIu64 " left out\n",
           whomp_kept(grammars), o->w.stack ? ", stack" : "", whomp_skipped(grammars));
    for (int d = 0; d < WHOMP_DIMS; d++)
        printf("OMSG %-12s rules %8" PRIu32 " symbols %10" PRIu64 " bytes %10" PRIu64 "\n",
               whomp_dim_name(d), s->omsg[d].rules, s->omsg[d].symbols, s->omsg[d].bytes);
    printf("OMSG %-12s %42" PRIu64 "\n", "total", s->omsg_bytes);
    printf("RASG %-12s rules %8" PRIu32 " symbols %10" PRIu64 " bytes %10" PRIu64 "\n",
           "(insn, addr)", s->rasg.rules, s->rasg.symbols, s->rasg.bytes);
    printf("OMSG/RASG %.3f\n", s->ratio);
    if (o->w.vertical)
        printf("vertical: %" PRIu32 " instruction grammars, bytes %" PRIu64
               ", vertical+instruction/RASG %.3f\n", nvert, s->vertical_bytes,
               s->rasg.bytes ? (double)(s->vertical_bytes + s->omsg[0].bytes) / s->rasg.bytes : 0);
}

static void store(const options *o, int argc, char **argv, sq_grammar *const *omsg,
                  const sq_grammar *rasg, sq_grammar *const *vert, uint32_t nvert, const sizes *s)
{
    static const char *const mine[] = { "whomp_sizes", NULL };
    char *err = NULL, msg[512], stream[64];
    int64_t run;
    pdb *db = grammar_store_begin(o->db, "whomp", mine, o->trace, reader, argc, argv, &run, &err);
    if (!db) {
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(o->db, "%s", msg);
    }
    int rc = 0;
    for (int d = 0; d < WHOMP_DIMS && rc == 0; d++) {
        snprintf(stream, sizeof stream, "omsg %s", whomp_dim_name(d));
        rc = grammar_store(db, run, "whomp", stream, omsg[d]);
    }
    rc = rc || grammar_store(db, run, "whomp", "rasg", rasg);
    for (uint32_t i = 0; i < nvert && rc == 0; i++) {
        snprintf(stream, sizeof stream, "vertical %" PRIu32, whomp_vertical_insn(grammars, i));
        rc = grammar_store(db, run, "whomp", stream, vert[i]);
    }
    sqlite3_stmt *ins = rc ? NULL : pdb_prepare(db,
        "INSERT INTO whomp_sizes (run, accesses, stack, instruction_bytes, group_bytes, "
        "object_bytes, offset_bytes, omsg_bytes, rasg_bytes, ratio, vertical_bytes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (ins) {
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, (int64_t)whomp_kept(grammars));
        sqlite3_bind_int(ins, 3, o->w.stack);
        for (int d = 0; d < WHOMP_DIMS; d++)
            sqlite3_bind_int64(ins, 4 + d, (int64_t)s->omsg[d].bytes);
        sqlite3_bind_int64(ins, 8, (int64_t)s->omsg_bytes);
        sqlite3_bind_int64(ins, 9, (int64_t)s->rasg.bytes);
        sqlite3_bind_double(ins, 10, s->ratio);
        if (o->w.vertical)
            sqlite3_bind_int64(ins, 11, (int64_t)s->vertical_bytes);
        rc = pdb_exec(db, ins);
    }
    rc = rc || !ins || pdb_commit(db);
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
        {"stack", no_argument, NULL, 's'},
        {"vertical", no_argument, NULL, 'v'},
        {"db", required_argument, NULL, 'd'},
        {"group-depth", required_argument, NULL, 'g'},
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
        case 's': o->w.stack = 1; break;
        case 'v': o->w.vertical = 1; break;
        case 'd': o->db = optarg; break;
        case 'g':
            o->group_depth = (uint32_t)cli_parse_u64("--group-depth", optarg);
            if (o->group_depth < 1 || o->group_depth > OBJ_MAX_DEPTH)
                cli_usage_error("--group-depth must be 1 to %d", OBJ_MAX_DEPTH);
            break;
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
    options o = { .group_depth = 1 };
    cli_init(argv[0]);
    parse_options(argc, argv, &o);
    read_trace(&o);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    sq_grammar *omsg[WHOMP_DIMS], *rasg = whomp_rasg(grammars);
    for (int d = 0; d < WHOMP_DIMS; d++)
        if (!(omsg[d] = whomp_omsg(grammars, d)))
            out_of_memory();
    uint32_t nvert = whomp_vertical_count(grammars);
    sq_grammar **vert = calloc(nvert + 1, sizeof *vert);
    if (!rasg || !vert)
        out_of_memory();
    for (uint32_t i = 0; i < nvert; i++)
        if (!(vert[i] = whomp_vertical(grammars, i)))
            out_of_memory();
    if (o.expand) {
        expand(omsg);
    } else {
        sizes s;
        measure(omsg, rasg, vert, nvert, &s);
        if (o.db)
            store(&o, argc, argv, omsg, rasg, vert, nvert, &s);
        else
            print_sizes(&o, &s, nvert);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write");
    for (int d = 0; d < WHOMP_DIMS; d++)
        sq_grammar_free(omsg[d]);
    sq_grammar_free(rasg);
    for (uint32_t i = 0; i < nvert; i++)
        sq_grammar_free(vert[i]);
    free(vert);
    for (size_t i = 0; i < group_names_cap; i++)
        free(group_names[i]);
    free(group_names);
    free(caches);
    whomp_free(grammars);
    objinsn_free(insns);
    objmap_free(map);
    mr_reader_close(reader);
    return 0;
}
