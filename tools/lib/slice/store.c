/* store.c: a run's slices as rows (see store.h). */
#include "slice/store.h"

#include "slice/report.h"

const char *const SLICE_TABLES[] = { "slice_criteria", "slice_lines", NULL };

static int store_criterion(pdb *db, int64_t run, const slice_run *r, const slice_criterion *c,
                           const char *at, const char *edges_from, const slice_set *precise)
{
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO slice_criteria (run, at, var, edges, step, steps, "
                                        "instances) VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!ins)
        return -1;
    sqlite3_bind_int64(ins, 1, run);
    sqlite3_bind_text(ins, 2, at, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, c->var, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 4, edges_from, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 5, c->step);
    sqlite3_bind_int64(ins, 6, (int64_t)r->nsteps);
    sqlite3_bind_int64(ins, 7, (int64_t)precise->n);
    return pdb_exec(db, ins);
}

static int store_lines(pdb *db, int64_t run, const slice_run *r, const slice_criterion *c,
                       const char *name, const slice_set *s, int precise)
{
    slice_tally t;
    if (slice_tally_make(r, c, s, precise, &t) < 0)
        return -1;
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO slice_lines (run, slice, function, line, instances, "
                                        "ran, instructions) VALUES (?, ?, ?, ?, ?, ?, ?)");
    int rc = ins ? 0 : -1;
    for (uint32_t k = 0; k < t.nlines && rc == 0; k++) {
        const slice_line *l = &r->lines[t.order[k]];
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_text(ins, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 3, l->function, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 4, l->line);
        sqlite3_bind_int64(ins, 5, (int64_t)t.instances[t.order[k]]);
        sqlite3_bind_int64(ins, 6, (int64_t)l->instances);
        sqlite3_bind_int64(ins, 7, (int64_t)t.insns[t.order[k]]);
        rc = pdb_exec(db, ins);
    }
    slice_tally_free(&t);
    return rc;
}

int slice_store(pdb *db, int64_t run, const slice_run *r, const slice_criterion *c, const char *at,
                const char *edges_from, const slice_set *precise, const slice_set *edges,
                const slice_set *nodes)
{
    if (store_criterion(db, run, r, c, at, edges_from, precise) < 0 ||
        store_lines(db, run, r, c, "precise", precise, 1) < 0)
        return -1;
    if (edges && store_lines(db, run, r, c, "edges", edges, 0) < 0)
        return -1;
    return nodes ? store_lines(db, run, r, c, "nodes", nodes, 0) : 0;
}
