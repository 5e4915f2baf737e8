/* run.c: WHOMP over one trace; see run.h. */
#include "whomp/run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "base/array.h"
#include "base/symbolize.h"
#include "db/grammar_store.h"
#include "objects/groupname.h"
#include "objects/objrel.h"

const char *const WHOMP_TABLES[] = { "whomp_sizes", NULL };

/* Sizes of the grammars, computed once. */
typedef struct sizes {
    sq_stats omsg[WHOMP_DIMS], rasg;
    uint64_t omsg_bytes, vertical_bytes;
    double ratio;
} sizes;

struct whomp_run {
    const mr_reader *reader;
    whomp_options o;
    objrel *rel;
    whomp *grammars;
    char **group_names;         /* by group id, for --expand */
    size_t group_names_cap;
    sq_grammar *omsg[WHOMP_DIMS], *rasg, **vert;
    uint32_t nvert;
    sizes s;
};

whomp_run *whomp_run_new(const mr_reader *r, uint32_t group_depth,
                         const whomp_options *o)
{
    whomp_run *w = calloc(1, sizeof *w);
    objmap_options mo = { .group_depth = group_depth, .reader = r };
    if (!w)
        return NULL;
    w->reader = r;
    w->o = *o;
    if (!(w->rel = objrel_new(&mo, 0)) || !(w->grammars = whomp_new(o))) {
        whomp_run_free(w);
        return NULL;
    }
    return w;
}

void whomp_run_free(whomp_run *w)
{
    if (!w)
        return;
    for (int d = 0; d < WHOMP_DIMS; d++)
        sq_grammar_free(w->omsg[d]);
    sq_grammar_free(w->rasg);
    for (uint32_t i = 0; w->vert && i < w->nvert; i++)
        sq_grammar_free(w->vert[i]);
    free(w->vert);
    for (size_t i = 0; i < w->group_names_cap; i++)
        free(w->group_names[i]);
    free(w->group_names);
    whomp_free(w->grammars);
    objrel_free(w->rel);
    free(w);
}

/* Remembers the group's display name at its first kept access. */
static int name_group(whomp_run *w, const obj_group *g)
{
    if (ARRAY_FIT(w->group_names, w->group_names_cap, (size_t)g->id + 1) < 0)
        return -1;
    if (!w->group_names[g->id]) {
        char buf[SYM_BUF];
        if (!(w->group_names[g->id] = strdup(obj_group_name(w->reader, g, buf, sizeof buf))))
            return -1;
    }
    return 0;
}

int whomp_run_event(whomp_run *w, const mr_event *ev)
{
    access_exec x;
    int rc = objrel_event(w->rel, ev, &x);
    if (rc <= 0)
        return rc;
    for (uint32_t i = 0; i < x.n; i++) {
        obj_object *obj = objrel_find(w->rel, &x, i, x.acc[i].addr);
        rc = whomp_access(w->grammars, x.insn[i], obj, x.acc[i].addr);
        if (rc < 0)
            return rc;
        if (rc == 1 && name_group(w, obj->group) < 0)
            return -1;
    }
    return 0;
}

unsigned whomp_run_rasg_bits(const whomp_run *w) { return whomp_rasg_bits(w->grammars); }
const sq_grammar *whomp_run_rasg(const whomp_run *w) { return w->rasg; }

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

int whomp_run_finish(whomp_run *w)
{
    if (whomp_finish(w->grammars) < 0)
        return -1;
    for (int d = 0; d < WHOMP_DIMS; d++)
        if (!(w->omsg[d] = whomp_take_omsg(w->grammars, d)))
            return -1;
    w->nvert = whomp_vertical_count(w->grammars);
    if (!(w->rasg = whomp_take_rasg(w->grammars)) ||
        !(w->vert = calloc(w->nvert + 1, sizeof *w->vert)))
        return -1;
    for (uint32_t i = 0; i < w->nvert; i++)
        if (!(w->vert[i] = whomp_take_vertical(w->grammars, i)))
            return -1;
    measure(w->omsg, w->rasg, w->vert, w->nvert, &w->s);
    return 0;
}

/* The four OMSG grammars walked in step: one tuple per line. */
int whomp_run_expand(whomp_run *w, FILE *out)
{
    int rc = 0;
    sq_iter *it[WHOMP_DIMS] = { 0 };
    for (int d = 0; d < WHOMP_DIMS; d++)
        if (!(it[d] = sq_iter_new(w->omsg[d], 0)))
            rc = -1;
    uint64_t v[WHOMP_DIMS];
    char **where = NULL;
    size_t where_cap = 0;
    const insn_table *insns = access_stream_insns(objrel_stream(w->rel));
    while (rc == 0 && sq_iter_next(it[WHOMP_INSTRUCTION], &v[0]) == 1) {
        /* the four streams hold one symbol per kept access each */
        for (int d = 1; d < WHOMP_DIMS; d++)
            if (sq_iter_next(it[d], &v[d]) != 1)
                rc = -1;
        if (rc || ARRAY_FIT(where, where_cap, v[0] + 1) < 0) {
            rc = -1;
            break;
        }
        if (!where[v[0]]) {
            const insn_info *in = insn_table_get(insns, (uint32_t)v[0]);
            char buf[SYM_BUF], line[SYM_BUF + 32];
            snprintf(line, sizeof line, "%s\t0x%" PRIx64,
                     sym_where(w->reader, in->addr, buf, sizeof buf), in->addr);
            if (!(where[v[0]] = strdup(line))) {
                rc = -1;
                break;
            }
        }
        if (fprintf(out, "%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", where[v[0]],
                    w->group_names[v[1]], v[2], v[3]) < 0)
            break;
    }
    for (size_t i = 0; i < where_cap; i++)
        free(where[i]);
    free(where);
    for (int d = 0; d < WHOMP_DIMS; d++)
        sq_iter_free(it[d]);
    return rc;
}

void whomp_run_print(whomp_run *w, FILE *out)
{
    const sizes *s = &w->s;
    uint32_t nvert = w->nvert;
    fprintf(out, "accesses %" PRIu64 " kept (heap, static%s), %" PRIu64 " left out\n",
           whomp_kept(w->grammars), w->o.stack ? ", stack" : "", whomp_skipped(w->grammars));
    for (int d = 0; d < WHOMP_DIMS; d++)
        fprintf(out, "OMSG %-12s rules %8" PRIu32 " symbols %10" PRIu64 " bytes %10" PRIu64 "\n",
               whomp_dim_name(d), s->omsg[d].rules, s->omsg[d].symbols, s->omsg[d].bytes);
    fprintf(out, "OMSG %-12s %42" PRIu64 "\n", "total", s->omsg_bytes);
    fprintf(out, "RASG %-12s rules %8" PRIu32 " symbols %10" PRIu64 " bytes %10" PRIu64 "\n",
           "(insn, addr)", s->rasg.rules, s->rasg.symbols, s->rasg.bytes);
    const uint64_t *bases;
    uint32_t regions = whomp_rasg_regions(w->grammars, &bases);
    if (regions) {
        fprintf(out, "RASG terminals: (region * 2^32 + address mod 2^32) * 2^%u + instruction "
                "(an address beyond 2^%u); regions by number, their addresses' bits 32 and up:",
                whomp_rasg_bits(w->grammars), 63 - whomp_rasg_bits(w->grammars));
        for (uint32_t r = 0; r < regions; r++)
            fprintf(out, " %#" PRIx64, bases[r]);
        fputc('\n', out);
    } else if (whomp_rasg_bits(w->grammars) != WHOMP_RASG_BITS)
        fprintf(out, "RASG terminals: address * 2^%u + instruction (more than 2^%u "
                "memory instructions)\n", whomp_rasg_bits(w->grammars), WHOMP_RASG_BITS);
    fprintf(out, "OMSG/RASG %.3f\n", s->ratio);
    if (w->o.vertical)
        fprintf(out, "vertical: %" PRIu32 " instruction grammars, bytes %" PRIu64
               ", vertical+instruction/RASG %.3f\n", nvert, s->vertical_bytes,
               s->rasg.bytes ? (double)(s->vertical_bytes + s->omsg[0].bytes) / s->rasg.bytes : 0);
}

int whomp_run_store(whomp_run *w, pdb *db, int64_t run)
{
    char stream[64];
    const sizes *s = &w->s;
    int rc = 0;
    for (int d = 0; d < WHOMP_DIMS && rc == 0; d++) {
        snprintf(stream, sizeof stream, "omsg %s", whomp_dim_name(d));
        rc = grammar_store(db, run, "whomp", stream, w->omsg[d]);
    }
    rc = rc || grammar_store(db, run, "whomp", "rasg", w->rasg);
    for (uint32_t i = 0; i < w->nvert && rc == 0; i++) {
        snprintf(stream, sizeof stream, "vertical %" PRIu32, whomp_vertical_insn(w->grammars, i));
        rc = grammar_store(db, run, "whomp", stream, w->vert[i]);
    }
    sqlite3_stmt *ins = rc ? NULL : pdb_prepare(db,
        "INSERT INTO whomp_sizes (run, accesses, stack, instruction_bytes, group_bytes, "
        "object_bytes, offset_bytes, omsg_bytes, rasg_bytes, ratio, vertical_bytes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (ins) {
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, (int64_t)whomp_kept(w->grammars));
        sqlite3_bind_int(ins, 3, w->o.stack);
        for (int d = 0; d < WHOMP_DIMS; d++)
            sqlite3_bind_int64(ins, 4 + d, (int64_t)s->omsg[d].bytes);
        sqlite3_bind_int64(ins, 8, (int64_t)s->omsg_bytes);
        sqlite3_bind_int64(ins, 9, (int64_t)s->rasg.bytes);
        sqlite3_bind_double(ins, 10, s->ratio);
        if (w->o.vertical)
            sqlite3_bind_int64(ins, 11, (int64_t)s->vertical_bytes);
        rc = pdb_exec(db, ins);
    }
    return rc || !ins ? -1 : 0;
}
