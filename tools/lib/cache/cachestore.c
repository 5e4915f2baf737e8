/*
 * cachestore.c: the cache analysis's rows (cachestore.h).
 */
#include <stdlib.h>

#include "cache/cachestore.h"
#include "algo/cache_config.h"

const char *const CACHESTORE_TABLES[] = {
    "cache_summary", "cache_instructions", "cache_groups", "cache_objects",
    "cache_fields", "cache_curves", NULL
};

static const char *const kind_names[] = { "heap", "static", "stack", "unknown" };

/* One cache_summary row for a level's counters. */
static int store_level(pdb *db, int64_t run, const cache_level_config *lc,
                       int position, const cache_level_stats *st)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO cache_summary (run, level, position, size, assoc, line, "
        "latency, policy, accesses, misses, fetches, fetch_misses, reads, "
        "read_misses, writes, write_misses) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    uint64_t acc = 0, miss = 0;
    for (int op = 0; op < CACHE_NOPS; op++) {
        acc += st->accesses[op];
        miss += st->misses[op];
    }
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_text(s, 2, lc->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(s, 3, position);
    sqlite3_bind_int64(s, 4, (int64_t)lc->size);
    sqlite3_bind_int64(s, 5, lc->assoc);
    sqlite3_bind_int64(s, 6, lc->line);
    sqlite3_bind_int64(s, 7, lc->latency);
    sqlite3_bind_text(s, 8, cache_policy_name(lc->policy), -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 9, (int64_t)acc);
    sqlite3_bind_int64(s, 10, (int64_t)miss);
    for (int op = 0; op < CACHE_NOPS; op++) {
        sqlite3_bind_int64(s, 11 + 2 * op, (int64_t)st->accesses[op]);
        sqlite3_bind_int64(s, 12 + 2 * op, (int64_t)st->misses[op]);
    }
    return pdb_exec(db, s);
}

static int store_summary(pdb *db, int64_t run, const cache_sim *sim)
{
    const cache_config *cfg = cache_get_config(sim);
    if (cfg->i1.size && store_level(db, run, &cfg->i1, 0, cache_i1_stats(sim)))
        return -1;
    for (unsigned k = 0; k < cfg->nlevels; k++)
        if (store_level(db, run, &cfg->level[k], (int)k + 1, cache_stats(sim, k)))
            return -1;
    return 0;
}

/* Binds accesses, latency and the four miss columns from column `at`. */
static void bind_counts(sqlite3_stmt *s, int at, const cache_counts *c,
                        unsigned nlevels)
{
    sqlite3_bind_int64(s, at, (int64_t)c->accesses);
    sqlite3_bind_int64(s, at + 1, (int64_t)c->latency);
    sqlite3_bind_int64(s, at + 2, (int64_t)c->misses[0]);
    for (unsigned k = 1; k <= 2; k++) {
        if (k < nlevels)
            sqlite3_bind_int64(s, at + 2 + (int)k, (int64_t)c->misses[k]);
        else
            sqlite3_bind_null(s, at + 2 + (int)k);
    }
    sqlite3_bind_int64(s, at + 5, (int64_t)c->misses[nlevels - 1]);
}

/* A log2 histogram's curve: powers of two until it reaches its floor (the
 * cold ratio), so a curve has at most SD_BUCKETS rows. */
static int store_hist_curve(pdb *db, int64_t run, const char *scope,
                            int64_t grp, int64_t insn, const uint64_t *hist,
                            uint32_t line, double rate)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO cache_curves (run, scope, grp, instruction, lines, bytes, "
        "miss_ratio, accesses, rate) VALUES (?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    uint64_t all = 0;
    for (unsigned b = 0; b < SD_BUCKETS; b++)
        all += hist[b];
    if (!all)
        return 0;
    double floor = (double)hist[SD_BUCKET_COLD] / (double)all;
    for (unsigned k = 0; k < SD_BUCKET_COLD - 1; k++) {
        double r = cp_hist_miss_ratio(hist, k);
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_text(s, 2, scope, -1, SQLITE_STATIC);
        if (grp >= 0)
            sqlite3_bind_int64(s, 3, grp);
        else
            sqlite3_bind_null(s, 3);
        if (insn >= 0)
            sqlite3_bind_int64(s, 4, insn);
        else
            sqlite3_bind_null(s, 4);
        sqlite3_bind_int64(s, 5, (int64_t)1 << k);
        sqlite3_bind_int64(s, 6, ((int64_t)1 << k) * line);
        sqlite3_bind_double(s, 7, r);
        sqlite3_bind_int64(s, 8, (int64_t)all);
        sqlite3_bind_double(s, 9, rate);
        if (pdb_exec(db, s))
            return -1;
        if (r <= floor)
            break;
    }
    return 0;
}

static int store_run_curve(pdb *db, int64_t run, stackdist *sd)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO cache_curves (run, scope, grp, instruction, lines, bytes, "
        "miss_ratio, accesses, rate) VALUES (?,'run',NULL,NULL,?,?,?,?,?)");
    if (!s)
        return -1;
    uint64_t max = sd_max_lines(sd), lines = 1;
    /* A sampled distance of d stands for d / R lines: sizes below 1 / R
     * lines cannot be told apart, so a sampled curve starts there. */
    while ((double)lines * sd_rate(sd) < 1)
        lines *= 2;
    for (;; lines *= 2) {
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, (int64_t)lines);
        sqlite3_bind_int64(s, 3, (int64_t)(lines * sd_line_bytes(sd)));
        sqlite3_bind_double(s, 4, sd_miss_ratio(sd, lines));
        sqlite3_bind_int64(s, 5, (int64_t)sd_sampled(sd));
        sqlite3_bind_double(s, 6, sd_rate(sd));
        if (pdb_exec(db, s))
            return -1;
        if (lines >= max)
            break;
    }
    return 0;
}

static int store_instructions(pdb *db, int64_t run, const cacheprof *p,
                              const mr_reader *r, unsigned nl)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO cache_instructions (run, instruction, accesses, latency, "
        "l1_misses, l2_misses, l3_misses, ll_misses) VALUES (?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    stackdist *sd = cp_stackdist(p);
    for (uint32_t i = 0; i < cp_ninsns(p); i++) {
        const cp_insn *in = cp_get_insn(p, i);
        const insn_info *d = cp_insn_def(p, i);
        if (!in->c.accesses)
            continue;
        const mr_symbol *sym = mr_reader_symbol(r, d->addr);
        int64_t id;
        if (pdb_instruction(db, run, d->addr, sym ? sym->function : NULL,
                            sym ? sym->file : NULL, sym ? sym->line : 0,
                            mr_access_kind_name(d->kind), d->size, &id))
            return -1;
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, id);
        bind_counts(s, 3, &in->c, nl);
        if (pdb_exec(db, s))
            return -1;
        if (sd && store_hist_curve(db, run, "instruction", -1, id, in->hist,
                                   sd_line_bytes(sd), sd_rate(sd)))
            return -1;
    }
    return 0;
}

static int store_groups(pdb *db, int64_t run, const cacheprof *p,
                        cr_names *names, unsigned nl)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO cache_groups (run, grp, kind, name, objects, accesses, "
        "latency, l1_misses, l2_misses, l3_misses, ll_misses) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    stackdist *sd = cp_stackdist(p);
    for (uint32_t g = 0; g < cp_ngroups(p); g++) {
        const cp_group *cg = cp_get_group(p, g);
        const obj_group *def = cp_group_def(p, g);
        const char *name = cr_group_name(names, def);
        if (!cg->c.accesses)
            continue;
        if (!name)
            return -1;
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, g);
        sqlite3_bind_text(s, 3, kind_names[def->kind & 3], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 5, (int64_t)cg->objects);
        bind_counts(s, 6, &cg->c, nl);
        if (pdb_exec(db, s))
            return -1;
        if (sd && store_hist_curve(db, run, "group", g, -1, cg->hist,
                                   sd_line_bytes(sd), sd_rate(sd)))
            return -1;
    }
    return 0;
}

static int store_objects(pdb *db, int64_t run, const cacheprof *p, unsigned nl)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT OR REPLACE INTO cache_objects (run, grp, serial, address, size, "
        "accesses, latency, l1_misses, l2_misses, l3_misses, ll_misses) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    for (uint64_t i = 0; i < cp_nobjects(p); i++) {
        const cp_object *o = cp_get_object(p, i);
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, o->group);
        sqlite3_bind_int64(s, 3, (int64_t)o->serial);
        sqlite3_bind_int64(s, 4, (int64_t)o->addr);
        sqlite3_bind_int64(s, 5, (int64_t)o->size);
        bind_counts(s, 6, &o->c, nl);
        if (pdb_exec(db, s))
            return -1;
    }
    return 0;
}

static int store_fields(pdb *db, int64_t run, const cacheprof *p, unsigned nl)
{
    sqlite3_stmt *s = pdb_prepare(db,
        "INSERT INTO cache_fields (run, grp, offset, accesses, latency, "
        "l1_misses, l2_misses, l3_misses, ll_misses) VALUES (?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    for (uint64_t i = 0; i < cp_nfields(p); i++) {
        const cp_field *f = cp_get_field(p, i);
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, f->group);
        sqlite3_bind_int64(s, 3, (int64_t)f->offset);
        bind_counts(s, 4, &f->c, nl);
        if (pdb_exec(db, s))
            return -1;
    }
    return 0;
}

int cs_store(pdb *db, int64_t run, const cacheprof *p, const mr_reader *r,
             cr_names *names)
{
    unsigned nl = cache_nlevels(cp_sim(p));
    if (store_summary(db, run, cp_sim(p)) ||
        store_instructions(db, run, p, r, nl) ||
        store_groups(db, run, p, names, nl) ||
        store_objects(db, run, p, nl) || store_fields(db, run, p, nl))
        return -1;
    if (cp_stackdist(p) && store_run_curve(db, run, cp_stackdist(p)))
        return -1;
    return 0;
}
