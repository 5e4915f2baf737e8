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
    struct batch *objects;  /* objects rows, written as objects die */
};


/* ---- rows written many at a time ------------------------------------------ */

/* The big tables (access_samples, object_offsets, instr_groups: python3
 * makes 690 K rows) are written BATCH_ROWS rows per INSERT statement:
 * SQLite then starts and ends one statement (cursors, the new rowid's
 * seek, the reset) per batch instead of per row. The rows go in the same
 * order, so they get the same rowids: the database is the same. */
#define BATCH_ROWS 64
#define BATCH_COLS 18       /* the most values per row (objects') */

/* One value of a row: an integer, static text, or NULL. */
typedef struct cell {
    int64_t i;
    const char *text;       /* static text, when not NULL */
    int null;
} cell;

typedef struct batch {
    pdb *db;
    int ncols;
    sqlite3_stmt *many;     /* BATCH_ROWS rows */
    sqlite3_stmt *one;      /* one row: the rest at the end */
    cell cells[BATCH_ROWS * BATCH_COLS];   /* the pending rows, ncols each */
    int nrows;
} batch;

/* "INSERT INTO t (cols) VALUES (?,..)" for rows rows of ncols values. */
static char *insert_sql(const char *head, int ncols, int rows)
{
    size_t len = strlen(head) + (size_t)rows * (2 * (size_t)ncols + 3) + 1;
    char *sql = malloc(len), *p;
    if (!sql)
        return NULL;
    p = stpcpy(sql, head);
    for (int r = 0; r < rows; r++) {
        *p++ = r ? ',' : ' ';
        *p++ = '(';
        for (int c = 0; c < ncols; c++) {
            if (c)
                *p++ = ',';
            *p++ = '?';
        }
        *p++ = ')';
    }
    *p = 0;
    return sql;
}

/* A batch for head ("INSERT INTO t (a, b) VALUES") and ncols (<= BATCH_COLS)
 * values per row. -1 with the database's error set. */
static int batch_open(batch *b, pdb *db, const char *head, int ncols)
{
    char *many = insert_sql(head, ncols, BATCH_ROWS), *one = insert_sql(head, ncols, 1);
    b->db = db;
    b->ncols = ncols;
    b->nrows = 0;
    b->many = many ? pdb_prepare(db, many) : NULL;
    b->one = one ? pdb_prepare(db, one) : NULL;
    free(many);
    free(one);
    for (int i = 0; i < BATCH_ROWS * ncols; i++)
        b->cells[i] = (cell){ .null = 1 };
    return b->many && b->one ? 0 : -1;
}

/* Column c (from 1, as sqlite3_bind) of the row being made. */
static void batch_int(batch *b, int c, int64_t v)
{
    b->cells[b->nrows * b->ncols + c - 1] = (cell){ .i = v };
}

static void batch_text(batch *b, int c, const char *text)
{
    b->cells[b->nrows * b->ncols + c - 1] = (cell){ .text = text };
}

/* Binds ncols cells from first to st's parameters from at + 1. */
static void bind_cells(sqlite3_stmt *st, const cell *first, int ncols, int at)
{
    for (int c = 0; c < ncols; c++) {
        const cell *v = &first[c];
        if (v->text)
            sqlite3_bind_text(st, at + c + 1, v->text, -1, SQLITE_STATIC);
        else if (!v->null)
            sqlite3_bind_int64(st, at + c + 1, v->i);
    }
}

/* Writes the pending rows. 0, or -1 with the database's error set. */
static int batch_flush(batch *b)
{
    int n = b->nrows, k = b->ncols, rc = 0;
    if (n == BATCH_ROWS) {
        for (int r = 0; r < n; r++)
            bind_cells(b->many, &b->cells[r * k], k, r * k);
        rc = pdb_exec(b->db, b->many);
    } else {
        for (int r = 0; r < n && rc == 0; r++) {
            bind_cells(b->one, &b->cells[r * k], k, 0);
            rc = pdb_exec(b->db, b->one);
        }
    }
    for (int i = 0; i < n * k; i++)
        b->cells[i] = (cell){ .null = 1 };
    b->nrows = 0;
    return rc;
}

/* The row being made is complete. 0, or -1 as batch_flush. */
static int batch_row(batch *b)
{
    return ++b->nrows == BATCH_ROWS ? batch_flush(b) : 0;
}

objstore *objstore_new(pdb *db, int64_t run, const mr_reader *r)
{
    objstore *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->db = db;
    s->run = run;
    s->r = r;
    /* Static: one store per process, and its cells are 28 KiB. */
    static batch objects;
    s->objects = &objects;
    if (batch_open(s->objects, db, "INSERT INTO objects (run, site, serial, kind, "
                   "name, address, size, alloc_time, free_time, tid, reallocs, "
                   "loads, stores, bytes, offsets, first_access, last_access, "
                   "accesses) VALUES", 18) < 0) {
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
    batch *b = s->objects;
    int heap = o->group->kind == OBJ_HEAP;
    batch_int(b, 1, s->run);
    batch_int(b, 2, site);
    batch_int(b, 3, (int64_t)o->serial);
    /* the texts live as long as the store: words, and group names */
    batch_text(b, 4, heap ? "heap" : "static");
    if (!heap && o->group->name)
        batch_text(b, 5, o->group->name + o->group->symbol);
    batch_int(b, 6, (int64_t)o->addr);
    batch_int(b, 7, (int64_t)o->size);
    batch_int(b, 8, (int64_t)o->alloc_time);
    if (o->freed)
        batch_int(b, 9, (int64_t)o->free_time);
    if (heap)
        batch_int(b, 10, o->tid);
    batch_int(b, 11, o->reallocs);
    batch_int(b, 12, (int64_t)st->loads);
    batch_int(b, 13, (int64_t)st->stores);
    batch_int(b, 14, (int64_t)st->bytes);
    batch_int(b, 15, (int64_t)obj_stats_offsets(st));
    if (st->accesses) {
        batch_int(b, 16, (int64_t)st->first);
        batch_int(b, 17, (int64_t)st->last);
    }
    batch_int(b, 18, (int64_t)st->accesses);
    if (batch_row(b) < 0)
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
    static batch rows;   /* static: its cells are 16 KiB */
    if (batch_open(&rows, s->db, "INSERT INTO object_offsets (run, site, offset, "
                   "span, loads, stores) VALUES", 6) < 0)
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
            batch_int(&rows, 1, s->run);
            batch_int(&rows, 2, site_id(s, g));
            batch_int(&rows, 3, (int64_t)off);
            batch_int(&rows, 4, exact ? 1 : OBJ_LINE);
            batch_int(&rows, 5, (int64_t)h->loads);
            batch_int(&rows, 6, (int64_t)h->stores);
            if (batch_row(&rows) < 0)
                return -1;
        }
    }
    return batch_flush(&rows);
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
    static batch rows;
    if (!s->insn_ids ||
        batch_open(&rows, s->db, "INSERT INTO instr_groups (run, instruction, site, "
                   "accesses, bytes, objects, offsets, first_access, "
                   "last_access) VALUES", 9) < 0)
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
            batch_int(&rows, 1, s->run);
            batch_int(&rows, 2, s->insn_ids[slot]);
            batch_int(&rows, 3, site_id(s, ig->group));
            batch_int(&rows, 4, (int64_t)ig->accesses);
            batch_int(&rows, 5, (int64_t)ig->bytes);
            if (counted) {
                batch_int(&rows, 6, (int64_t)distinct_count(&ig->objects));
                batch_int(&rows, 7, (int64_t)distinct_count(&ig->offsets));
            }
            batch_int(&rows, 8, (int64_t)ig->first);
            batch_int(&rows, 9, (int64_t)ig->last);
            if (batch_row(&rows) < 0)
                return -1;
        }
    }
    return batch_flush(&rows);
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
    static batch rows;
    if (batch_open(&rows, s->db, "INSERT INTO access_samples (run, site, time, "
                   "instruction, object, offset, kind, tid) VALUES", 8) < 0)
        return -1;
    for (uint32_t i = 0; i < objmap_ngroups(m); i++) {
        obj_group *g = objmap_group(m, i);
        obj_gstats *gs = objprof_group_stats(p, g);
        for (uint32_t k = 0; gs && k < gs->nsamples; k++) {
            const obj_sample *smp = &gs->samples[k];
            batch_int(&rows, 1, s->run);
            batch_int(&rows, 2, site_id(s, g));
            batch_int(&rows, 3, (int64_t)smp->time);
            batch_int(&rows, 4, s->insn_ids[smp->insn]);
            batch_int(&rows, 5, (int64_t)smp->serial);
            batch_int(&rows, 6, (int64_t)smp->offset);
            batch_text(&rows, 7, access_kind_word(smp->kind));
            batch_int(&rows, 8, smp->tid);
            if (batch_row(&rows) < 0)
                return -1;
        }
    }
    return batch_flush(&rows);
}

int objstore_finish(objstore *s, objprof *p, uint64_t instructions)
{
    uint64_t accesses, loads, stores;
    if (s->failed)
        return -1;
    objprof_totals(p, &accesses, &loads, &stores);
    if (batch_flush(s->objects) < 0 || write_groups(s, p) < 0 || write_offsets(s, p) < 0 ||
        write_instructions(s, p) < 0 || write_threads(s, p) < 0 ||
        write_samples(s, p) < 0 ||
        pdb_set_totals(s->db, s->run, instructions, loads, stores) < 0) {
        s->failed = 1;
        return -1;
    }
    return 0;
}
