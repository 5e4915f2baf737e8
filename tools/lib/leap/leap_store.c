/*
 * leap_store.c: the LEAP tables (see leap_store.h).
 */
#include <math.h>
#include <stdlib.h>

#include "leap/leap_store.h"
#include "db/insn_ids.h"
#include "db/sql_embedded.h"
#include "objects/groupname.h"
#include "base/symbolize.h"

/* Shared by the row writers of one store. */
typedef struct ctx {
    pdb *db;
    int64_t run;
    const leap *l;
    const leap_names *names;
    pdb_insn_ids ids;
} ctx;

static int insn_id(ctx *c, uint32_t n, int64_t *id)
{
    const insn_info *in = insn_table_get(c->names->insns, n);
    return pdb_insn_id(c->db, c->run, c->names->reader, &c->ids, n, in->addr,
                       in->kind, in->size, id);
}

/* The outer levels of LMAD seq of the instruction's stream. */
static int store_levels(ctx *c, int64_t id, const leap_stream *st, uint32_t seq,
                        sqlite3_stmt *lev)
{
    const lmad *m = &st->lmads.lmads[seq];
    for (uint32_t j = 0; j < m->nouter; j++) {
        sqlite3_bind_int64(lev, 1, c->run);
        sqlite3_bind_int64(lev, 2, id);
        sqlite3_bind_int64(lev, 3, st->group);
        sqlite3_bind_int64(lev, 4, seq);
        sqlite3_bind_int64(lev, 5, j + 1);
        for (int d = 0; d < LEAP_DIMS; d++)
            sqlite3_bind_int64(lev, 6 + d, m->outer[j].stride[d]);
        sqlite3_bind_int64(lev, 9, (int64_t)m->outer[j].count);
        if (pdb_exec(c->db, lev))
            return -1;
    }
    return 0;
}

/* The stream's row of leap_streams. */
static int store_stream_row(ctx *c, int64_t id, const char *name,
                            const leap_stream *st, sqlite3_stmt *row)
{
    const lmad_stream *ls = &st->lmads;
    int64_t v[] = { c->run, id, st->group, 0, (int64_t)lmad_total(ls),
                    (int64_t)lmad_captured(ls), ls->n,
                    (int64_t)leap_stream_bytes(st) };
    for (int i = 0; i < 8; i++)
        sqlite3_bind_int64(row, i + 1, v[i]);
    sqlite3_bind_text(row, 4, name, -1, SQLITE_TRANSIENT);
    return pdb_exec(c->db, row);
}

static int store_stream(ctx *c, const leap_stream *st, sqlite3_stmt *ins,
                        sqlite3_stmt *lev, sqlite3_stmt *over, sqlite3_stmt *row)
{
    int64_t id;
    char name[SYM_BUF];
    if (insn_id(c, st->insn, &id))
        return -1;
    obj_group_name(c->names->reader, objmap_group(c->names->map, st->group),
                        name, sizeof name);
    if (store_stream_row(c, id, name, st, row))
        return -1;
    const lmad_stream *ls = &st->lmads;
    for (uint32_t i = 0; i < ls->n; i++) {
        const lmad *m = &ls->lmads[i];
        sqlite3_bind_int64(ins, 1, c->run);
        sqlite3_bind_int64(ins, 2, id);
        sqlite3_bind_int64(ins, 3, st->group);
        sqlite3_bind_text(ins, 4, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins, 5, i);
        for (int d = 0; d < LEAP_DIMS; d++) {
            sqlite3_bind_int64(ins, 6 + d, m->start[d]);
            sqlite3_bind_int64(ins, 9 + d, m->stride[d]);
        }
        sqlite3_bind_int64(ins, 12, (int64_t)m->count);
        if (pdb_exec(c->db, ins) || store_levels(c, id, st, i, lev))
            return -1;
    }
    if (!ls->over.count)
        return 0;
    const lmad_summary *o = &ls->over;
    sqlite3_bind_int64(over, 1, c->run);
    sqlite3_bind_int64(over, 2, id);
    sqlite3_bind_int64(over, 3, st->group);
    sqlite3_bind_text(over, 4, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(over, 5, (int64_t)o->count);
    sqlite3_bind_int64(over, 6, o->first[LEAP_TIME]);
    for (int d = 0; d < LEAP_DIMS; d++) {
        sqlite3_bind_int64(over, 7 + 3 * d, o->min[d]);
        sqlite3_bind_int64(over, 8 + 3 * d, o->max[d]);
        sqlite3_bind_int64(over, 9 + 3 * d, (int64_t)o->gran[d]);
    }
    return pdb_exec(c->db, over);
}

static int store_summary(ctx *c)
{
    leap_summary s;
    leap_summarise(c->l, &s);
    sqlite3_stmt *st = pdb_prepare(c->db,
        "INSERT INTO leap_summary (run, max_lmads, accesses, captured, "
        "instructions, insns_captured, streams, lmads, overflowed, "
        "profile_bytes, trace_bytes, compression) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    uint32_t max = leap_nstreams(c->l) ? leap_stream_get(c->l, 0)->lmads.max
                                       : LMAD_DEFAULT_MAX;
    int64_t v[] = { c->run, max, (int64_t)s.accesses, (int64_t)s.captured,
                    s.instructions, s.insns_captured, s.streams,
                    (int64_t)s.lmads, s.overflowed, (int64_t)s.profile_bytes,
                    (int64_t)s.trace_bytes };
    for (int i = 0; i < 11; i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    sqlite3_bind_double(st, 12, s.profile_bytes ? (double)s.trace_bytes /
                                                      (double)s.profile_bytes : 0);
    return pdb_exec(c->db, st);
}

static int store_deps(ctx *c, const leap_mdf *mdf)
{
    sqlite3_stmt *st = pdb_prepare(c->db,
        "INSERT INTO dependences (run, store, load, method, frequency, "
        "conflicts, load_executions, sampled) VALUES (?,?,?,'leap',?,?,?,?)");
    if (!st)
        return -1;
    for (uint32_t i = 0; i < mdf->n; i++) {
        const leap_dep *d = &mdf->deps[i];
        uint64_t sample = mdf->sampled[d->load];
        uint64_t execs = leap_insn_get(c->l, d->load)->executions;
        double f = leap_mdf_frequency(mdf, d);     /* sample 0: a guess */
        int64_t sid, lid;
        if (insn_id(c, d->store, &sid) || insn_id(c, d->load, &lid))
            return -1;
        sqlite3_bind_int64(st, 1, c->run);
        sqlite3_bind_int64(st, 2, sid);
        sqlite3_bind_int64(st, 3, lid);
        sqlite3_bind_double(st, 4, f);
        sqlite3_bind_int64(st, 5, (int64_t)llround(f * (double)execs));
        sqlite3_bind_int64(st, 6, (int64_t)execs);
        sqlite3_bind_int64(st, 7, (int64_t)sample);
        if (pdb_exec(c->db, st))
            return -1;
    }
    return 0;
}

static int store_strides(ctx *c, const leap_stride *s, uint32_t n)
{
    sqlite3_stmt *st = pdb_prepare(c->db,
        "INSERT INTO strides (run, instruction, method, stride, share, steps, "
        "strongly_strided) VALUES (?,?,'leap',?,?,?,?)");
    if (!st)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t id;
        if (insn_id(c, s[i].insn, &id))
            return -1;
        sqlite3_bind_int64(st, 1, c->run);
        sqlite3_bind_int64(st, 2, id);
        sqlite3_bind_int64(st, 3, s[i].stride);
        sqlite3_bind_double(st, 4, s[i].share);
        sqlite3_bind_int64(st, 5, (int64_t)s[i].steps);
        sqlite3_bind_int(st, 6, s[i].strongly);
        if (pdb_exec(c->db, st))
            return -1;
    }
    return 0;
}

int leap_store(pdb *db, int64_t run, const leap *l, const leap_mdf *mdf,
               const leap_stride *strides, uint32_t nstrides,
               const leap_names *names)
{
    ctx c = { .db = db, .run = run, .l = l, .names = names };
    sqlite3_stmt *del = pdb_prepare(db, "DELETE FROM dependences WHERE run = ? "
                                        "AND method = 'leap'");
    sqlite3_stmt *del2 = pdb_prepare(db, "DELETE FROM strides WHERE run = ? "
                                         "AND method = 'leap'");
    sqlite3_stmt *del3 = pdb_prepare(db, "DELETE FROM leap_lmad_levels WHERE run = ?");
    sqlite3_stmt *ins = pdb_prepare(db,
        "INSERT INTO leap_lmads (run, instruction, group_serial, group_name, "
        "seq, start_object, start_offset, start_time, stride_object, "
        "stride_offset, stride_time, count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    sqlite3_stmt *lev = pdb_prepare(db,
        "INSERT INTO leap_lmad_levels (run, instruction, group_serial, seq, "
        "level, stride_object, stride_offset, stride_time, count) "
        "VALUES (?,?,?,?,?,?,?,?,?)");
    sqlite3_stmt *over = pdb_prepare(db,
        "INSERT INTO leap_overflow (run, instruction, group_serial, group_name, "
        "count, first_time, min_object, max_object, gran_object, min_offset, "
        "max_offset, gran_offset, min_time, max_time, gran_time) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    sqlite3_stmt *row = pdb_prepare(db,
        "INSERT INTO leap_streams (run, instruction, group_serial, group_name, "
        "accesses, captured, lmads, profile_bytes) VALUES (?,?,?,?,?,?,?,?)");
    int rc = del && del2 && del3 && ins && lev && over && row ? 0 : -1;
    if (rc == 0) {
        sqlite3_bind_int64(del, 1, run);
        sqlite3_bind_int64(del2, 1, run);
        sqlite3_bind_int64(del3, 1, run);
        rc = pdb_exec(db, del) || pdb_exec(db, del2) || pdb_exec(db, del3) ? -1 : 0;
    }
    for (uint32_t i = 0; i < leap_nstreams(l) && rc == 0; i++)
        rc = store_stream(&c, leap_stream_get(l, i), ins, lev, over, row);
    if (rc == 0)
        rc = store_summary(&c);
    if (rc == 0)
        rc = store_deps(&c, mdf);
    if (rc == 0)
        rc = store_strides(&c, strides, nstrides);
    pdb_insn_ids_free(&c.ids);
    return rc;
}
