/*
 * deps_store.c: the baselines' rows (see deps_store.h).
 */
#include "deps/deps_store.h"
#include "db/insn_ids.h"

/* Deletes the method's earlier rows of run from table. */
static int delete_method(pdb *db, const char *sql, int64_t run,
                         const char *method)
{
    sqlite3_stmt *st = pdb_prepare(db, sql);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, method, -1, SQLITE_STATIC);
    return pdb_exec(db, st);
}

static int insn_id(pdb *db, int64_t run, const mr_reader *r,
                   const insn_table *insns, pdb_insn_ids *ids, uint32_t n,
                   int64_t *id)
{
    const insn_info *in = insn_table_get(insns, n);
    return pdb_insn_id(db, run, r, ids, n, in->addr, in->kind, in->size, id);
}

int deps_store(pdb *db, int64_t run, const mr_reader *r, const insn_table *insns,
               const char *method, const deps *d, const deps_pair *pairs,
               uint32_t npairs, const stride_info *strides, uint32_t nstrides)
{
    pdb_insn_ids ids = { 0 };
    int rc = delete_method(db, "DELETE FROM dependences WHERE run = ? AND "
                               "method = ?", run, method);
    if (rc == 0 && strides)     /* without strides, keep the earlier ones */
        rc = delete_method(db, "DELETE FROM strides WHERE run = ? AND "
                               "method = ?", run, method);
    sqlite3_stmt *dep = pdb_prepare(db,
        "INSERT INTO dependences (run, store, load, method, frequency, "
        "conflicts, load_executions, sampled) VALUES (?,?,?,?,?,?,?,?)");
    sqlite3_stmt *str = pdb_prepare(db,
        "INSERT INTO strides (run, instruction, method, stride, share, steps, "
        "strongly_strided) VALUES (?,?,?,?,?,?,?)");
    rc = rc || !dep || !str ? -1 : 0;
    for (uint32_t i = 0; i < npairs && rc == 0; i++) {
        const deps_pair *p = &pairs[i];
        uint64_t execs = deps_load_executions(d, p->load);
        int64_t sid, lid;
        if (insn_id(db, run, r, insns, &ids, p->store, &sid) ||
            insn_id(db, run, r, insns, &ids, p->load, &lid)) {
            rc = -1;
            break;
        }
        sqlite3_bind_int64(dep, 1, run);
        sqlite3_bind_int64(dep, 2, sid);
        sqlite3_bind_int64(dep, 3, lid);
        sqlite3_bind_text(dep, 4, method, -1, SQLITE_STATIC);
        sqlite3_bind_double(dep, 5, (double)p->conflicts / (double)execs);
        sqlite3_bind_int64(dep, 6, (int64_t)p->conflicts);
        sqlite3_bind_int64(dep, 7, (int64_t)execs);
        sqlite3_bind_int64(dep, 8, (int64_t)execs);
        rc = pdb_exec(db, dep);
    }
    for (uint32_t i = 0; strides && i < nstrides && rc == 0; i++) {
        const stride_info *s = &strides[i];
        int64_t id;
        if (insn_id(db, run, r, insns, &ids, s->insn, &id)) {
            rc = -1;
            break;
        }
        sqlite3_bind_int64(str, 1, run);
        sqlite3_bind_int64(str, 2, id);
        sqlite3_bind_text(str, 3, method, -1, SQLITE_STATIC);
        sqlite3_bind_int64(str, 4, s->stride);
        sqlite3_bind_double(str, 5, s->share);
        sqlite3_bind_int64(str, 6, (int64_t)s->steps);
        sqlite3_bind_int(str, 7, s->strongly);
        rc = pdb_exec(db, str);
    }
    pdb_insn_ids_free(&ids);
    return rc;
}
