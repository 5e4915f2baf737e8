/* store.c: the value profile into the database; see store.h. */
#include "values/store.h"

#include <stdlib.h>

#include "base/array.h"
#include "db/insn_ids.h"
#include "objects/sites.h"
#include "values/select.h"
#include "values/widths.h"

const char *const VALUES_TABLES[] = {
    "value_runs", "value_fields", "value_instructions", "value_top",
    "value_widths", NULL
};

/* What the rows of one run need along the way. */
typedef struct store_ctx {
    pdb *db;
    int64_t run;
    const mr_reader *r;
    values *p;
    obj_sites sites;        /* alloc_sites ids of the groups */
} store_ctx;

/* The range columns: NULL without a value. */
static void bind_range(sqlite3_stmt *s, int i, const values_counts *v)
{
    if (v->valued) {
        sqlite3_bind_int64(s, i, v->min);
        sqlite3_bind_int64(s, i + 1, v->max);
    } else {
        sqlite3_bind_null(s, i);
        sqlite3_bind_null(s, i + 1);
    }
}

/* The first top entries of t (sorted here) for a field or an instruction. */
static int store_top(store_ctx *c, topv *t, uint32_t top, int64_t site,
                     uint64_t offset, int64_t insn)
{
    sqlite3_stmt *s = pdb_prepare(c->db, "INSERT INTO value_top (run, site, offset, "
                                         "instruction, rank, value, count, error) "
                                         "VALUES (?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    uint32_t k = values_table_size(values_get_options(c->p));
    topv_sort(t, k);
    for (uint32_t i = 0; i < t->n && i < top; i++) {
        topv_entry e = topv_get(t, k, i);
        sqlite3_bind_int64(s, 1, c->run);
        if (site) {
            sqlite3_bind_int64(s, 2, site);
            sqlite3_bind_int64(s, 3, (int64_t)offset);
            sqlite3_bind_null(s, 4);
        } else {
            sqlite3_bind_null(s, 2);
            sqlite3_bind_null(s, 3);
            sqlite3_bind_int64(s, 4, insn);
        }
        sqlite3_bind_int64(s, 5, i + 1);
        sqlite3_bind_int64(s, 6, (int64_t)e.value);
        sqlite3_bind_int64(s, 7, (int64_t)e.count);
        sqlite3_bind_int64(s, 8, (int64_t)e.error);
        if (pdb_exec(c->db, s))
            return -1;
    }
    return 0;
}

/* Every field; adds the selected ones' totals to *selected, *heap, *saved. */
static int store_fields(store_ctx *c, uint32_t top, uint32_t percent,
                        uint64_t *selected, uint64_t *heap, int64_t *saved)
{
    sqlite3_stmt *s = pdb_prepare(c->db,
        "INSERT INTO value_fields (run, site, offset, span, size, accesses, valued, "
        "small, pointer, incompressible, min_value, max_value, instances, spoiled, "
        "objects, candidate, selected, saved_bytes) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    uint8_t *counted = calloc(values_ngroups(c->p) + 1, 1);   /* heap bytes once per group */
    values_choice *all = values_choose_all(c->p, percent);
    if (!counted || !all) {
        free(counted);
        free(all);
        return -1;
    }
    int rc = 0;
    for (uint32_t i = 0; i < values_nfields(c->p) && !rc; i++) {
        const values_field *f = values_field_at(c->p, i);
        values_choice ch = all[i];
        const obj_group *g = values_group_at(c->p, f->group);
        int64_t site = obj_sites_id(&c->sites, g, values_group_totals(c->p, g->id)->objects, 0);
        if (!site) {
            rc = -1;
            break;
        }
        int64_t v[] = { c->run, site, (int64_t)f->offset, f->span,
                        f->c.valued_size ? f->c.valued_size : f->c.size,
                        (int64_t)f->c.accesses, (int64_t)f->c.valued,
                        (int64_t)f->c.cls[VC_SMALL], (int64_t)f->c.cls[VC_POINTER],
                        (int64_t)f->c.cls[VC_INCOMPRESSIBLE] };
        for (int k = 0; k < 10; k++)
            sqlite3_bind_int64(s, k + 1, v[k]);
        bind_range(s, 11, &f->c);
        sqlite3_bind_int64(s, 13, (int64_t)ch.instances);
        sqlite3_bind_int64(s, 14, (int64_t)ch.spoiled);
        sqlite3_bind_int64(s, 15, (int64_t)ch.objects);
        sqlite3_bind_int(s, 16, ch.candidate);
        sqlite3_bind_int(s, 17, ch.selected);
        sqlite3_bind_int64(s, 18, ch.saved);
        rc = pdb_exec(c->db, s) || store_top(c, values_field_top(c->p, i), top, site,
                                             f->offset, 0);
        *selected += ch.selected;
        if (ch.selected && g->kind == OBJ_HEAP) {      /* heap bytes: heap groups */
            *saved += ch.saved;
            if (!counted[f->group])
                *heap += values_group_totals(c->p, f->group)->bytes;
            counted[f->group] = 1;
        }
    }
    free(counted);
    free(all);
    return rc;
}

/* Every instruction that touched a heap or static object. */
static int store_insns(store_ctx *c, uint32_t top)
{
    sqlite3_stmt *s = pdb_prepare(c->db,
        "INSERT INTO value_instructions (run, instruction, accesses, valued, small, "
        "pointer, incompressible, min_value, max_value) VALUES (?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    pdb_insn_ids ids = {0};
    const insn_table *t = values_insns(c->p);
    int rc = 0;
    for (uint32_t i = 0; i < values_ninsns(c->p) && !rc; i++) {
        const values_insn *in = values_insn_at(c->p, i);
        if (!in->c.accesses)
            continue;
        const insn_info *info = insn_table_get(t, i);
        int64_t id;
        if (pdb_insn_id(c->db, c->run, c->r, &ids, i, info->addr, info->kind,
                        info->size, &id)) {
            rc = -1;
            break;
        }
        int64_t v[] = { c->run, id, (int64_t)in->c.accesses, (int64_t)in->c.valued,
                        (int64_t)in->c.cls[VC_SMALL], (int64_t)in->c.cls[VC_POINTER],
                        (int64_t)in->c.cls[VC_INCOMPRESSIBLE] };
        for (int k = 0; k < 7; k++)
            sqlite3_bind_int64(s, k + 1, v[k]);
        bind_range(s, 8, &in->c);
        rc = pdb_exec(c->db, s) || store_top(c, values_insn_top(c->p, i), top, 0, 0, id);
    }
    pdb_insn_ids_free(&ids);
    return rc;
}

static int store_widths(store_ctx *c)
{
    sqlite3_stmt *s = pdb_prepare(c->db, "INSERT INTO value_widths (run, width, valued, "
                                         "fitting, bits, base_bits) VALUES (?,?,?,?,?,?)");
    if (!s)
        return -1;
    for (unsigned L = VALUES_WIDTH_STEP; L <= VALUES_MAX_WIDTH; L += VALUES_WIDTH_STEP) {
        values_width w;
        values_width_at(values_get_summary(c->p), L, &w);
        int64_t v[] = { c->run, L, (int64_t)w.valued, (int64_t)w.fitting,
                        (int64_t)w.bits, (int64_t)w.base_bits };
        for (int k = 0; k < 6; k++)
            sqlite3_bind_int64(s, k + 1, v[k]);
        if (pdb_exec(c->db, s))
            return -1;
    }
    return 0;
}

int values_store(pdb *db, int64_t run, values *p, uint32_t top, uint32_t percent,
                 const char *note, const mr_reader *r)
{
    store_ctx c = { .db = db, .run = run, .r = r, .p = p };
    obj_sites_init(&c.sites, db, run, r);
    uint64_t selected = 0, heap = 0;
    int64_t saved = 0;
    int rc = store_fields(&c, top, percent, &selected, &heap, &saved) ||
             store_insns(&c, top) || store_widths(&c);
    obj_sites_free(&c.sites);
    if (rc)
        return -1;
    const values_summary *s = values_get_summary(p);
    sqlite3_stmt *st = pdb_prepare(db,
        "INSERT INTO value_runs (run, payload, select_percent, values_mode, accesses, "
        "valued, unvalued_wide, outside, small, pointer, incompressible, fields, "
        "selected, heap_bytes, saved_bytes, note) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, values_get_options(p)->payload);
    sqlite3_bind_int64(st, 3, percent);
    sqlite3_bind_text(st, 4, values_mode_name(s->mode), -1, SQLITE_STATIC);
    int64_t v[] = { (int64_t)s->in.accesses, (int64_t)s->in.valued,
                    (int64_t)s->unvalued_wide, (int64_t)s->outside,
                    (int64_t)s->in.cls[VC_SMALL], (int64_t)s->in.cls[VC_POINTER],
                    (int64_t)s->in.cls[VC_INCOMPRESSIBLE], values_nfields(p),
                    (int64_t)selected, (int64_t)heap, saved };
    for (int k = 0; k < 11; k++)
        sqlite3_bind_int64(st, k + 5, v[k]);
    if (note)
        sqlite3_bind_text(st, 16, note, -1, SQLITE_TRANSIENT);
    return pdb_exec(db, st);
}
