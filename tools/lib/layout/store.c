/* store.c: trace-layout's results into the profile database; see store.h. */
#include <stdlib.h>
#include <string.h>
#include "layout/store.h"
#include "objects/sites.h"

const char *const LAYOUT_TABLES[] = {
    "layout_loops", "layout_groups", "layout_objects", "layout_streams", "layout_fields",
    "layout_affinities", "layout_arrays", "layout_conflicts", "layout_splits",
    "layout_regroups", "layout_gains", NULL
};

static void bind_opt_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static int store_loops(pdb *db, int64_t run, const ly_profile *p)
{
    const cfg *g = ly_cfg(p);
    sqlite3_stmt *st = pdb_prepare(db, "INSERT INTO layout_loops (run, loop, parent, "
        "depth, function, file, line_min, line_max, headers, weight, share, inclusive) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    for (uint32_t l = 0; l < cfg_nloops(g); l++) {
        const cfg_loop *lp = cfg_loop_at(g, l);
        double w = ly_loop_weight(p, (int32_t)l);
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_int64(st, 2, l);
        if (lp->parent >= 0)
            sqlite3_bind_int64(st, 3, lp->parent);
        else
            sqlite3_bind_null(st, 3);
        sqlite3_bind_int64(st, 4, lp->depth);
        sqlite3_bind_text(st, 5, cfg_function_name(g, lp->function), -1, SQLITE_TRANSIENT);
        bind_opt_text(st, 6, lp->file);
        if (lp->line_min) {
            sqlite3_bind_int64(st, 7, lp->line_min);
            sqlite3_bind_int64(st, 8, lp->line_max);
        } else {
            sqlite3_bind_null(st, 7);
            sqlite3_bind_null(st, 8);
        }
        sqlite3_bind_int64(st, 9, lp->nheaders);
        sqlite3_bind_double(st, 10, w);
        sqlite3_bind_double(st, 11, ly_total(p) > 0 ? w / ly_total(p) : 0);
        sqlite3_bind_double(st, 12, ly_total(p) > 0
                                        ? ly_loop_inclusive(p, (int32_t)l) / ly_total(p) : 0);
        if (pdb_exec(db, st))
            return -1;
    }
    return 0;
}

static int store_groups_streams(pdb *db, int64_t run, const ly_profile *p,
                                obj_sites *s)
{
    sqlite3_stmt *gs = pdb_prepare(db, "INSERT INTO layout_groups (run, site, weight, "
                                       "l_d, accesses, objects) VALUES (?,?,?,?,?,?)");
    if (!gs)
        return -1;
    for (uint32_t gid = 0; gid < ly_ngroups(p); gid++) {
        const ly_group *g = ly_group_at(p, gid);
        if (!g->g)
            continue;
        int64_t site = obj_sites_id(s, g->g, g->objects, g->n);
        if (!site)
            return -1;
        sqlite3_bind_int64(gs, 1, run);
        sqlite3_bind_int64(gs, 2, site);
        sqlite3_bind_double(gs, 3, g->w);
        sqlite3_bind_double(gs, 4, ly_total(p) > 0 ? g->w / ly_total(p) : 0);
        sqlite3_bind_int64(gs, 5, (int64_t)g->n);
        sqlite3_bind_int64(gs, 6, (int64_t)g->objects);
        if (pdb_exec(db, gs))
            return -1;
    }
    sqlite3_stmt *os = pdb_prepare(db, "INSERT INTO layout_objects (run, site, serial, "
        "address, size, weight, l_d, accesses) VALUES (?,?,?,?,?,?,?,?)");
    if (!os)
        return -1;
    for (uint32_t i = 0; i < ly_nobjects(p); i++) {
        const ly_object *o = ly_object_at(p, i);
        sqlite3_bind_int64(os, 1, run);
        sqlite3_bind_int64(os, 2, obj_sites_known(s, o->group));
        sqlite3_bind_int64(os, 3, (int64_t)o->serial);
        sqlite3_bind_int64(os, 4, (int64_t)o->addr);
        sqlite3_bind_int64(os, 5, (int64_t)o->size);
        sqlite3_bind_double(os, 6, o->w);
        sqlite3_bind_double(os, 7, ly_total(p) > 0 ? o->w / ly_total(p) : 0);
        sqlite3_bind_int64(os, 8, (int64_t)o->n);
        if (pdb_exec(db, os))
            return -1;
    }
    sqlite3_stmt *ss = pdb_prepare(db, "INSERT INTO layout_streams (run, instruction, "
        "site, loop, accesses, stride, base_offset, min_size, max_size, weight) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)");
    if (!ss)
        return -1;
    for (uint32_t i = 0; i < ly_nstreams(p); i++) {
        const ly_stream *x = ly_stream_at(p, i);
        const mr_symbol *sym = mr_reader_symbol(s->r, x->pc);
        int64_t insn;
        if (pdb_instruction(db, run, x->pc, sym ? sym->function : NULL,
                            sym ? sym->file : NULL, sym ? sym->line : 0,
                            mr_access_kind_name(x->kind), x->max_size, &insn))
            return -1;
        sqlite3_bind_int64(ss, 1, run);
        sqlite3_bind_int64(ss, 2, insn);
        sqlite3_bind_int64(ss, 3, obj_sites_known(s, x->group));
        if (x->loop >= 0)
            sqlite3_bind_int64(ss, 4, x->loop);
        else
            sqlite3_bind_null(ss, 4);
        sqlite3_bind_int64(ss, 5, (int64_t)x->n);
        sqlite3_bind_int64(ss, 6, (int64_t)x->stride);
        sqlite3_bind_int64(ss, 7, (int64_t)x->base_off);
        sqlite3_bind_int64(ss, 8, x->min_size);
        sqlite3_bind_int64(ss, 9, x->max_size);
        sqlite3_bind_double(ss, 10, x->w);
        if (pdb_exec(db, ss))
            return -1;
    }
    return 0;
}

static int store_structs(pdb *db, int64_t run, const ly_profile *p, const obj_sites *s)
{
    sqlite3_stmt *fs = pdb_prepare(db, "INSERT INTO layout_fields (run, site, struct_size, "
        "offset, size, weight, cluster, multi) VALUES (?,?,?,?,?,?,?,?)");
    sqlite3_stmt *as = pdb_prepare(db, "INSERT INTO layout_affinities (run, site, "
        "offset_a, offset_b, fa) VALUES (?,?,?,?,?)");
    sqlite3_stmt *sp = pdb_prepare(db, "INSERT INTO layout_splits (run, site, cluster, "
        "offset) VALUES (?,?,?,?)");
    if (!fs || !as || !sp)
        return -1;
    for (uint32_t i = 0; i < ly_nstructs(p); i++) {
        const ly_struct *st = ly_struct_at(p, i);
        int64_t site = obj_sites_known(s, st->group);
        for (uint32_t f = 0; f < st->nfields; f++) {
            const ly_field *fl = &st->fields[f];
            sqlite3_bind_int64(fs, 1, run);
            sqlite3_bind_int64(fs, 2, site);
            sqlite3_bind_int64(fs, 3, (int64_t)st->size);
            sqlite3_bind_int64(fs, 4, (int64_t)fl->offset);
            sqlite3_bind_int64(fs, 5, fl->size);
            sqlite3_bind_double(fs, 6, fl->w);
            sqlite3_bind_int64(fs, 7, fl->cluster);
            sqlite3_bind_int64(fs, 8, fl->multi);
            if (pdb_exec(db, fs))
                return -1;
            for (uint32_t h = 0; h < st->nfields; h++) {
                sqlite3_bind_int64(as, 1, run);
                sqlite3_bind_int64(as, 2, site);
                sqlite3_bind_int64(as, 3, (int64_t)fl->offset);
                sqlite3_bind_int64(as, 4, (int64_t)st->fields[h].offset);
                sqlite3_bind_double(as, 5, st->fa[f * st->nfields + h]);
                if (pdb_exec(db, as))
                    return -1;
            }
            if (!st->split)
                continue;
            sqlite3_bind_int64(sp, 1, run);
            sqlite3_bind_int64(sp, 2, site);
            sqlite3_bind_int64(sp, 3, fl->cluster);
            sqlite3_bind_int64(sp, 4, (int64_t)fl->offset);
            if (pdb_exec(db, sp))
                return -1;
        }
    }
    return 0;
}

static const char *conflict_kind(ly_conflict_kind k)
{
    return k == LY_CONFLICT_OFFSET ? "disjoint parts"
         : k == LY_CONFLICT_TIME ? "disjoint times" : "reverse order";
}

static int store_arrays(pdb *db, int64_t run, const ly_profile *p, const obj_sites *s)
{
    sqlite3_stmt *ar = pdb_prepare(db, "INSERT INTO layout_arrays (run, site, element, "
        "bytes, scheme, class) VALUES (?,?,?,?,?,?)");
    sqlite3_stmt *rg = pdb_prepare(db, "INSERT INTO layout_regroups (run, advice, site) "
                                       "VALUES (?,?,?)");
    sqlite3_stmt *cf = pdb_prepare(db, "INSERT INTO layout_conflicts (run, site_a, "
                                       "site_b, loop, kind) VALUES (?,?,?,?,?)");
    if (!ar || !rg || !cf)
        return -1;
    for (uint32_t a = 0; a < ly_narrays(p); a++) {
        const ly_array *x = ly_array_at(p, a);
        sqlite3_bind_int64(ar, 1, run);
        sqlite3_bind_int64(ar, 2, obj_sites_known(s, x->group));
        sqlite3_bind_int64(ar, 3, (int64_t)x->elem);
        sqlite3_bind_int64(ar, 4, (int64_t)x->memsize);
        sqlite3_bind_int64(ar, 5, (int64_t)x->scheme);
        sqlite3_bind_int64(ar, 6, x->cls);
        if (pdb_exec(db, ar))
            return -1;
        if (x->advice < 0)
            continue;
        sqlite3_bind_int64(rg, 1, run);
        sqlite3_bind_int64(rg, 2, x->advice);
        sqlite3_bind_int64(rg, 3, obj_sites_known(s, x->group));
        if (pdb_exec(db, rg))
            return -1;
    }
    for (uint32_t c = 0; c < ly_nconflicts(p); c++) {
        const ly_conflict *k = ly_conflict_at(p, c);
        sqlite3_bind_int64(cf, 1, run);
        sqlite3_bind_int64(cf, 2, obj_sites_known(s, ly_array_at(p, k->a)->group));
        sqlite3_bind_int64(cf, 3, obj_sites_known(s, ly_array_at(p, k->b)->group));
        sqlite3_bind_int64(cf, 4, k->loop);
        sqlite3_bind_text(cf, 5, conflict_kind(k->kind), -1, SQLITE_STATIC);
        if (pdb_exec(db, cf))
            return -1;
    }
    return 0;
}

static int store_gains(pdb *db, int64_t run, const ly_profile *p, const ly_replay *r,
                       const obj_sites *s)
{
    sqlite3_stmt *st = pdb_prepare(db, "INSERT INTO layout_gains (run, rank, kind, site, "
        "advice, level, misses_before, misses_after, latency_before, latency_after) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    const ly_gain *b = ly_replay_base(r);
    for (uint32_t i = 0; i < ly_replay_ngains(r); i++) {
        const ly_gain *g = ly_replay_gain(r, i);
        for (unsigned k = 0; k < ly_replay_nlevels(r) && k < CACHE_MAX_LEVELS; k++) {
            sqlite3_bind_int64(st, 1, run);
            sqlite3_bind_int64(st, 2, i);
            sqlite3_bind_text(st, 3, g->kind == LY_GAIN_SPLIT ? "split"
                                     : g->kind == LY_GAIN_REGROUP ? "regroup" : "all",
                              -1, SQLITE_STATIC);
            if (g->kind == LY_GAIN_SPLIT)
                sqlite3_bind_int64(st, 4, obj_sites_known(s, ly_struct_at(p, g->which)->group));
            else
                sqlite3_bind_null(st, 4);
            if (g->kind == LY_GAIN_REGROUP)
                sqlite3_bind_int64(st, 5, g->which);
            else
                sqlite3_bind_null(st, 5);
            sqlite3_bind_text(st, 6, ly_opts(p)->cache.level[k].name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st, 7, (int64_t)b->misses[k]);
            sqlite3_bind_int64(st, 8, (int64_t)g->misses[k]);
            sqlite3_bind_double(st, 9, b->latency);
            sqlite3_bind_double(st, 10, g->latency);
            if (pdb_exec(db, st))
                return -1;
        }
    }
    return 0;
}

int ly_store(pdb *db, int64_t run, const ly_profile *p, const ly_replay *r,
             const mr_reader *reader)
{
    obj_sites s;
    obj_sites_init(&s, db, run, reader);
    int rc = store_loops(db, run, p) || store_groups_streams(db, run, p, &s) ||
             store_structs(db, run, p, &s) || store_arrays(db, run, p, &s) ||
             (r && store_gains(db, run, p, r, &s));
    obj_sites_free(&s);
    return rc ? -1 : 0;
}
