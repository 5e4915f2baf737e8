/* store.c: the RDS profile into the profile database; see store.h. */
#include <stdio.h>
#include <string.h>
#include "base/symbolize.h"
#include "objects/groupname.h"
#include "rds/store.h"

const char *const RDS_TABLES[] = {
    "rds_summary", "rds_types", "rds_type_sites", "rds_instances",
    "rds_instance_insns", "rds_instance_frees", NULL
};

const char *rds_site_name(const mr_reader *r, const obj_group *g, char *buf,
                          size_t n)
{
    return obj_group_name(r, g, buf, n);
}

const char *rds_call_name(const mr_reader *r, uint64_t ret, char *buf, size_t n)
{
    const mr_symbol *s = ret ? obj_site_symbol(r, ret) : NULL;
    if (!s || !s->function)
        snprintf(buf, n, "0x%llx", (unsigned long long)ret);
    else if (s->line)
        snprintf(buf, n, "%s:%u", s->function, s->line);
    else
        snprintf(buf, n, "%s", s->function);
    return buf;
}

static void bind_u64(sqlite3_stmt *s, int col, uint64_t v)
{
    sqlite3_bind_int64(s, col, (int64_t)v);
}

static int store_summary(pdb *db, int64_t run, rds_feed *f, double threshold,
                         const char *cache)
{
    const rds_feed_stats *fs = rds_feed_get_stats(f);
    const rds_stats *st = rds_get_stats(rds_feed_profile(f));
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO rds_summary (run, run_start, run_end, accesses, "
        "pointer_accesses, nodes, edges_added, edges_removed, edges_queued, "
        "edges_dequeued, traversals, rds_traversals, ssg_edges, threshold, "
        "cache) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    uint64_t v[] = { fs->first_time, fs->last_time, fs->accesses,
                     fs->heap_pointers, st->nodes, st->edges_added,
                     st->edges_removed, st->edges_queued, st->edges_dequeued,
                     st->traversals, st->rds_traversals, st->ssg_edges };
    sqlite3_bind_int64(s, 1, run);
    for (int i = 0; i < 12; i++)
        bind_u64(s, 2 + i, v[i]);
    sqlite3_bind_double(s, 14, threshold);
    sqlite3_bind_text(s, 15, cache, -1, SQLITE_TRANSIENT);
    return pdb_exec(db, s);
}

/* The alloc_sites row of a heap site, when trace-objects stored the run. */
static int alloc_site_id(pdb *db, int64_t run, uint64_t address, int64_t *id)
{
    sqlite3_stmt *s = pdb_prepare(db, "SELECT id FROM alloc_sites WHERE run = ? "
                                      "AND kind = 'heap' AND address = ?");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, run);
    bind_u64(s, 2, address);
    int rc = sqlite3_step(s);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int store_type(pdb *db, int64_t run, rds_feed *f, uint32_t id,
                      const rds_type_view *t, const mr_reader *r)
{
    char name[4096] = "", buf[SYM_BUF];
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO rds_type_sites (run, type, grp, site, name, address) "
        "VALUES (?,?,?,?,?,?)");
    if (!s)
        return -1;
    for (size_t k = 0; k < t->nsites; k++) {
        const obj_group *g = rds_feed_group(f, t->sites[k]);
        int64_t site;
        rds_site_name(r, g, buf, sizeof buf);
        if (strlen(name) + strlen(buf) + 4 < sizeof name)
            strcat(strcat(name, k ? " + " : ""), buf);
        if (alloc_site_id(db, run, g->ips[0], &site))
            return -1;
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, id);
        sqlite3_bind_int64(s, 3, t->sites[k]);
        if (site < 0)
            sqlite3_bind_null(s, 4);
        else
            sqlite3_bind_int64(s, 4, site);
        sqlite3_bind_text(s, 5, buf, -1, SQLITE_TRANSIENT);
        bind_u64(s, 6, g->ips[0]);
        if (pdb_exec(db, s))
            return -1;
    }
    s = pdb_prepare(db,
        "INSERT INTO rds_types (run, id, name, sites, instances, nodes, edges, "
        "forward_edges, backward_edges, avg_size, avg_lifetime, accesses, "
        "avg_latency) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_int64(s, 2, id);
    sqlite3_bind_text(s, 3, name, -1, SQLITE_TRANSIENT);
    bind_u64(s, 4, t->nsites);
    bind_u64(s, 5, t->instances);
    bind_u64(s, 6, t->nodes);
    bind_u64(s, 7, t->edges);
    bind_u64(s, 8, t->forward_edges);
    bind_u64(s, 9, t->backward_edges);
    sqlite3_bind_double(s, 10, (double)t->edges / (double)t->instances);
    sqlite3_bind_double(s, 11, t->sum_norm_lifetime / (double)t->instances);
    bind_u64(s, 12, t->traversals);
    if (t->traversals)
        sqlite3_bind_double(s, 13, (double)t->latency / (double)t->traversals);
    else
        sqlite3_bind_null(s, 13);
    return pdb_exec(db, s);
}

/* The instructions and frees of instance number id. */
static int store_insns(pdb *db, int64_t run, rds_feed *f, uint32_t id,
                       const rds_instance *in, const mr_reader *r)
{
    char buf[SYM_BUF];
    sqlite3_stmt *ins = pdb_prepare(db,
        "INSERT INTO rds_instance_insns (run, instance, role, instruction, "
        "count) VALUES (?,?,?,?,?) ON CONFLICT (run, instance, role, instruction) "
        "DO UPDATE SET count = count + excluded.count");
    sqlite3_stmt *fr = pdb_prepare(db,
        "INSERT INTO rds_instance_frees (run, instance, address, name, count) "
        "VALUES (?,?,?,?,?)");
    if (!ins || !fr)
        return -1;
    for (size_t k = 0; k < in->ninsns; k++) {
        const rds_insn *x = &in->insns[k];
        sqlite3_bind_int64(x->role == RDS_DELETE ? fr : ins, 1, run);
        sqlite3_bind_int64(x->role == RDS_DELETE ? fr : ins, 2, id);
        if (x->role == RDS_DELETE) {
            bind_u64(fr, 3, x->where);
            sqlite3_bind_text(fr, 4, rds_call_name(r, x->where, buf, sizeof buf),
                              -1, SQLITE_TRANSIENT);
            bind_u64(fr, 5, x->count);
            if (pdb_exec(db, fr))
                return -1;
            continue;
        }
        const insn_info *d = rds_feed_insn(f, (uint32_t)x->where);
        const mr_symbol *sym = mr_reader_symbol(r, d->addr);
        int64_t iid;
        if (pdb_instruction(db, run, d->addr, sym ? sym->function : NULL,
                            sym ? sym->file : NULL, sym ? sym->line : 0,
                            mr_access_kind_name(d->kind), d->size, &iid))
            return -1;
        sqlite3_bind_text(ins, 3, x->role == RDS_CREATE ? "create" : "traverse",
                          -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 4, iid);
        bind_u64(ins, 5, x->count);
        if (pdb_exec(db, ins))
            return -1;
    }
    return 0;
}

static int store_instance(pdb *db, int64_t run, uint32_t id,
                          const rds_inst_view *v)
{
    const rds_instance *in = v->in;
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO rds_instances (run, id, type, nodes, live_nodes, edges, "
        "live_edges, forward_edges, backward_edges, accesses, latency, "
        "avg_latency, birth, end_time, death, lifetime, norm_lifetime, rsf, "
        "depth_steps, breadth_steps, pattern) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    uint64_t v1[] = { v->type, in->nodes, in->live_nodes, in->edges,
                      in->live_edges, in->forward_edges, in->backward_edges,
                      in->traversals, in->latency };
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_int64(s, 2, id);
    for (int i = 0; i < 9; i++)
        bind_u64(s, 3 + i, v1[i]);
    if (in->traversals)
        sqlite3_bind_double(s, 12, v->avg_latency);
    else
        sqlite3_bind_null(s, 12);
    bind_u64(s, 13, in->birth);
    bind_u64(s, 14, v->end);
    if (in->live_nodes)
        sqlite3_bind_null(s, 15);
    else
        bind_u64(s, 15, in->death);
    bind_u64(s, 16, v->lifetime);
    sqlite3_bind_double(s, 17, v->norm_lifetime);
    if (in->rsf)
        bind_u64(s, 18, in->rsf);
    else
        sqlite3_bind_null(s, 18);
    bind_u64(s, 19, in->depth_steps);
    bind_u64(s, 20, in->breadth_steps);
    sqlite3_bind_text(s, 21, rds_pattern_name(v->pattern), -1, SQLITE_STATIC);
    return pdb_exec(db, s);
}

int rds_store_run(pdb *db, int64_t run, rds_feed *f, const rds_results *res,
                  double threshold, const char *cache, const mr_reader *r)
{
    if (store_summary(db, run, f, threshold, cache))
        return -1;
    for (size_t t = 0; t < res->ntypes; t++)
        if (store_type(db, run, f, (uint32_t)t, &res->types[t], r))
            return -1;
    for (size_t i = 0; i < res->ninst; i++)
        if (store_instance(db, run, (uint32_t)i, &res->inst[i]) ||
            store_insns(db, run, f, (uint32_t)i, res->inst[i].in, r))
            return -1;
    return 0;
}
