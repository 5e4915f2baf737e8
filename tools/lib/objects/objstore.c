/* objstore.c: an object profile into the profile database. */
#include "objects/objstore.h"
#include "objects/sites.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/symbolize.h"
#include "objects/groupname.h"
#include "base/array.h"

const char *const OBJSTORE_TABLES[] = {
    "access_samples", "instr_groups", "object_offsets", "objects",
    "threads", "alloc_sites", NULL
};

/* A writer of one run's object profile: its statements and the ids the
 * database gave to groups and instructions. */
struct objstore {
    pdb *db;
    int64_t run;
    const mr_reader *r;
    int failed;
    int64_t *site_ids;      /* obj_group.id -> alloc_sites.id (0: not yet) */
    size_t nsite_ids;
    int64_t *insn_ids;      /* insns slot -> instructions.id */
    char **names;           /* group names used so far in this run (hash set) */
    size_t nnames, capnames;
    sqlite3_stmt *ins_object;
};


objstore *objstore_new(pdb *db, int64_t run, const mr_reader *r)
{
    objstore *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->db = db;
    s->run = run;
    s->r = r;
    s->ins_object = pdb_prepare(
        db, "INSERT INTO objects (run, site, serial, kind, name, address, "
            "size, alloc_time, free_time, tid, reallocs, loads, stores, bytes, "
            "offsets, first_access, last_access, accesses) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s->ins_object) {
        free(s);
        return NULL;
    }
    return s;
}

int objstore_failed(const objstore *s) { return s->failed; }

void objstore_free(objstore *s)
{
    if (!s)
        return;
    free(s->site_ids);
    free(s->insn_ids);
    for (size_t i = 0; i < s->capnames; i++)
        free(s->names[i]);
    free(s->names);
    free(s);
}


static size_t name_hash(const char *n)
{
    size_t h = 5381;
    while (*n)
        h = h * 33 + (unsigned char)*n++;
    return h;
}

/* Records name as used; 0 if it was new, 1 if taken, -1 out of memory. */
static int name_taken(objstore *s, const char *name)
{
    if (2 * (s->nnames + 1) > s->capnames) {
        size_t cap = s->capnames ? 2 * s->capnames : 256;
        char **v = calloc(cap, sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < s->capnames; i++)
            if (s->names[i]) {
                size_t j = name_hash(s->names[i]) & (cap - 1);
                while (v[j])
                    j = (j + 1) & (cap - 1);
                v[j] = s->names[i];
            }
        free(s->names);
        s->names = v;
        s->capnames = cap;
    }
    size_t j = name_hash(name) & (s->capnames - 1);
    for (; s->names[j]; j = (j + 1) & (s->capnames - 1))
        if (strcmp(s->names[j], name) == 0)
            return 1;
    if (!(s->names[j] = strdup(name)))
        return -1;
    s->nnames++;
    return 0;
}

/* A name no other group of the run has: several call sites on one source
 * line (a = grid(); b = grid();) share function:line, so the second one
 * becomes "grid:13 <- main:63 (2)". */
static int unique_name(objstore *s, char *name, size_t n)
{
    int taken = name_taken(s, name);
    if (taken <= 0)
        return taken;
    size_t len = strlen(name);
    for (unsigned k = 2;; k++) {
        snprintf(name + len, n - len, " (%u)", k);
        if ((taken = name_taken(s, name)) <= 0)
            return taken;
    }
}

/* The alloc_sites id of a group, inserting its row the first time. */
static int64_t site_id(objstore *s, const obj_group *g)
{
    if (g->id < s->nsite_ids && s->site_ids[g->id])
        return s->site_ids[g->id];
    if (ARRAY_FIT(s->site_ids, s->nsite_ids, (size_t)g->id + 1) < 0)
        return 0;
    char name[SYM_BUF + 16];
    obj_group_name(s->r, g, name, SYM_BUF);
    if (unique_name(s, name, sizeof name) < 0)
        return 0;
    /* objects and accesses are filled in by objstore_finish() */
    return s->site_ids[g->id] = obj_sites_insert(s->db, s->run, s->r, g, name, 0, 0);
}

void objstore_object(void *ctx, const obj_object *o, const obj_stats *st)
{
    objstore *s = ctx;
    if (s->failed)
        return;
    int64_t site = site_id(s, o->group);
    if (!site) {
        s->failed = 1;
        return;
    }
    sqlite3_stmt *q = s->ins_object;
    int heap = o->group->kind == OBJ_HEAP;
    sqlite3_bind_int64(q, 1, s->run);
    sqlite3_bind_int64(q, 2, site);
    sqlite3_bind_int64(q, 3, (int64_t)o->serial);
    sqlite3_bind_text(q, 4, heap ? "heap" : "static", -1, SQLITE_STATIC);
    if (!heap && o->group->name)
        sqlite3_bind_text(q, 5, o->group->name + o->group->symbol, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 6, (int64_t)o->addr);
    sqlite3_bind_int64(q, 7, (int64_t)o->size);
    sqlite3_bind_int64(q, 8, (int64_t)o->alloc_time);
    if (o->freed)
        sqlite3_bind_int64(q, 9, (int64_t)o->free_time);
    if (heap)
        sqlite3_bind_int64(q, 10, o->tid);
    sqlite3_bind_int64(q, 11, o->reallocs);
    sqlite3_bind_int64(q, 12, (int64_t)st->loads);
    sqlite3_bind_int64(q, 13, (int64_t)st->stores);
    sqlite3_bind_int64(q, 14, (int64_t)st->bytes);
    sqlite3_bind_int64(q, 15, (int64_t)obj_stats_offsets(st));
    if (st->accesses) {
        sqlite3_bind_int64(q, 16, (int64_t)st->first);
        sqlite3_bind_int64(q, 17, (int64_t)st->last);
    }
    sqlite3_bind_int64(q, 18, (int64_t)st->accesses);
    if (pdb_exec(s->db, q) < 0)
        s->failed = 1;
}

/* Totals of every group, inserting the rows of groups with no object. */
static int write_groups(objstore *s, objprof *p)
{
    objmap *m = objprof_map(p);
    sqlite3_stmt *st = pdb_prepare(
        s->db, "UPDATE alloc_sites SET objects = ?2, accesses = ?3, bytes = ?4 "
               "WHERE id = ?1");
    if (!st)
        return -1;
    for (uint32_t i = 0; i < objmap_ngroups(m); i++) {
        obj_group *g = objmap_group(m, i);
        obj_gstats *gs = objprof_group_stats(p, g);
        int64_t id = site_id(s, g);
        if (!gs || !id)
            return -1;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (int64_t)g->nobjects);
        sqlite3_bind_int64(st, 3, (int64_t)gs->accesses);
        sqlite3_bind_int64(st, 4, (int64_t)gs->bytes);
        if (pdb_exec(s->db, st) < 0)
            return -1;
    }
    return 0;
}

static int write_offsets(objstore *s, objprof *p)
{
    objmap *m = objprof_map(p);
    sqlite3_stmt *st = pdb_prepare(
        s->db, "INSERT INTO object_offsets (run, site, offset, span, loads, "
               "stores) VALUES (?,?,?,?,?,?)");
    if (!st)
        return -1;
    for (uint32_t i = 0; i < objmap_ngroups(m); i++) {
        obj_group *g = objmap_group(m, i);
        obj_gstats *gs = objprof_group_stats(p, g);
        for (uint64_t b = 0; gs && b < gs->nheat; b++) {
            const obj_heat *h = &gs->heat[b];
            if (!(h->loads | h->stores))
                continue;
            int exact = b < OBJ_EXACT_OFFSETS;
            uint64_t off = exact ? b : OBJ_EXACT_OFFSETS +
                                       (b - OBJ_EXACT_OFFSETS) * OBJ_LINE;
            sqlite3_bind_int64(st, 1, s->run);
            sqlite3_bind_int64(st, 2, site_id(s, g));
            sqlite3_bind_int64(st, 3, (int64_t)off);
            sqlite3_bind_int64(st, 4, exact ? 1 : OBJ_LINE);
            sqlite3_bind_int64(st, 5, (int64_t)h->loads);
            sqlite3_bind_int64(st, 6, (int64_t)h->stores);
            if (pdb_exec(s->db, st) < 0)
                return -1;
        }
    }
    return 0;
}

static const char *access_kind_word(uint8_t kind)
{
    return kind == MR_LOAD ? "load" : kind == MR_STORE ? "store" : "modify";
}

/* instructions rows (shared with other analyses) and instr_groups. */
static int write_instructions(objstore *s, objprof *p)
{
    const insn_table *t = objprof_insns(p);
    uint32_t n = insn_table_count(t);
    s->insn_ids = calloc(n ? n : 1, sizeof *s->insn_ids);
    sqlite3_stmt *st = pdb_prepare(
        s->db, "INSERT INTO instr_groups (run, instruction, site, accesses, "
               "bytes, objects, offsets, first_access, last_access) "
               "VALUES (?,?,?,?,?,?,?,?,?)");
    if (!s->insn_ids || !st)
        return -1;
    for (uint32_t slot = 0; slot < n; slot++) {
        const obj_igstats *ig = objprof_insn_groups(p, slot);
        if (!ig)
            continue;
        const insn_info *in = insn_table_get(t, slot);
        const mr_symbol *sym = mr_reader_symbol(s->r, in->addr);
        if (pdb_instruction(s->db, s->run, in->addr,
                            sym ? sym->function : NULL, sym ? sym->file : NULL,
                            sym ? sym->line : 0, access_kind_word(in->kind),
                            in->size, &s->insn_ids[slot]) < 0)
            return -1;
        for (; ig; ig = ig->next) {
            int counted = ig->group->kind <= OBJ_STATIC;
            sqlite3_bind_int64(st, 1, s->run);
            sqlite3_bind_int64(st, 2, s->insn_ids[slot]);
            sqlite3_bind_int64(st, 3, site_id(s, ig->group));
            sqlite3_bind_int64(st, 4, (int64_t)ig->accesses);
            sqlite3_bind_int64(st, 5, (int64_t)ig->bytes);
            if (counted) {
                sqlite3_bind_int64(st, 6, (int64_t)distinct_count(&ig->objects));
                sqlite3_bind_int64(st, 7, (int64_t)distinct_count(&ig->offsets));
            }
            sqlite3_bind_int64(st, 8, (int64_t)ig->first);
            sqlite3_bind_int64(st, 9, (int64_t)ig->last);
            if (pdb_exec(s->db, st) < 0)
                return -1;
        }
    }
    return 0;
}

static int write_threads(objstore *s, objprof *p)
{
    sqlite3_stmt *st = pdb_prepare(
        s->db, "INSERT INTO threads (run, tid, parent, loads, stores, bytes, "
               "heap, static, stack, unknown, allocs, first_access, "
               "last_access, instructions, os_tid) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    for (uint32_t tid = 0; tid <= objprof_max_tid(p); tid++) {
        const obj_tstats *t = objprof_thread(p, tid);
        if (!t || !(t->seen || t->parent || t->allocs || t->instructions ||
                    t->has_os_tid))
            continue;
        sqlite3_bind_int64(st, 1, s->run);
        sqlite3_bind_int64(st, 2, tid);
        if (t->parent)
            sqlite3_bind_int64(st, 3, t->parent);
        sqlite3_bind_int64(st, 4, (int64_t)t->loads);
        sqlite3_bind_int64(st, 5, (int64_t)t->stores);
        sqlite3_bind_int64(st, 6, (int64_t)t->bytes);
        for (int k = 0; k < 4; k++)
            sqlite3_bind_int64(st, 7 + k, (int64_t)t->by_kind[k]);
        sqlite3_bind_int64(st, 11, (int64_t)t->allocs);
        if (t->seen) {
            sqlite3_bind_int64(st, 12, (int64_t)t->first);
            sqlite3_bind_int64(st, 13, (int64_t)t->last);
        }
        sqlite3_bind_int64(st, 14, (int64_t)t->instructions);
        if (t->has_os_tid)
            sqlite3_bind_int64(st, 15, (int64_t)t->os_tid);
        if (pdb_exec(s->db, st) < 0)
            return -1;
    }
    return 0;
}

static int write_samples(objstore *s, objprof *p)
{
    objmap *m = objprof_map(p);
    sqlite3_stmt *st = pdb_prepare(
        s->db, "INSERT INTO access_samples (run, site, time, instruction, "
               "object, offset, kind, tid) VALUES (?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    for (uint32_t i = 0; i < objmap_ngroups(m); i++) {
        obj_group *g = objmap_group(m, i);
        obj_gstats *gs = objprof_group_stats(p, g);
        for (uint32_t k = 0; gs && k < gs->nsamples; k++) {
            const obj_sample *smp = &gs->samples[k];
            sqlite3_bind_int64(st, 1, s->run);
            sqlite3_bind_int64(st, 2, site_id(s, g));
            sqlite3_bind_int64(st, 3, (int64_t)smp->time);
            sqlite3_bind_int64(st, 4, s->insn_ids[smp->insn]);
            sqlite3_bind_int64(st, 5, (int64_t)smp->serial);
            sqlite3_bind_int64(st, 6, (int64_t)smp->offset);
            sqlite3_bind_text(st, 7, access_kind_word(smp->kind), -1,
                              SQLITE_STATIC);
            sqlite3_bind_int64(st, 8, smp->tid);
            if (pdb_exec(s->db, st) < 0)
                return -1;
        }
    }
    return 0;
}

int objstore_finish(objstore *s, objprof *p, uint64_t instructions)
{
    uint64_t accesses, loads, stores;
    if (s->failed)
        return -1;
    objprof_totals(p, &accesses, &loads, &stores);
    if (write_groups(s, p) < 0 || write_offsets(s, p) < 0 ||
        write_instructions(s, p) < 0 || write_threads(s, p) < 0 ||
        write_samples(s, p) < 0 ||
        pdb_set_totals(s->db, s->run, instructions, loads, stores) < 0) {
        s->failed = 1;
        return -1;
    }
    return 0;
}
