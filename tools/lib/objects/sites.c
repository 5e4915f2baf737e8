/* sites.c: a group's row in alloc_sites; see sites.h. */
#include "objects/sites.h"

#include <stdlib.h>

#include "base/array.h"
#include "base/symbolize.h"
#include "objects/groupname.h"

void obj_sites_init(obj_sites *s, pdb *db, int64_t run, const mr_reader *r)
{
    *s = (obj_sites){ .db = db, .run = run, .r = r };
}

void obj_sites_free(obj_sites *s)
{
    free(s->id);
    s->id = NULL;
    s->cap = 0;
}

int64_t obj_sites_known(const obj_sites *s, uint32_t gid)
{
    return gid < s->cap ? s->id[gid] : 0;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *t)
{
    if (t)
        sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

int64_t obj_sites_insert(pdb *db, int64_t run, const mr_reader *r, const obj_group *g,
                         const char *name, uint64_t objects, uint64_t accesses)
{
    sqlite3_stmt *st = pdb_prepare(db,
        "INSERT INTO alloc_sites (run, serial, kind, name, function, file, line, "
        "address, stack, objects, accesses) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return 0;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, g->id);
    sqlite3_bind_text(st, 3, obj_kind_name(g->kind), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
    /* The site columns say where a heap group was allocated; a static
     * group has only its address; stack and unknown memory have neither. */
    if (g->kind == OBJ_HEAP && g->depth) {
        char stack[4 * SYM_BUF];
        const mr_symbol *sym = obj_site_symbol(r, g->ips[0]);
        bind_text_or_null(st, 5, sym ? sym->function : NULL);
        bind_text_or_null(st, 6, sym ? sym->file : NULL);
        if (sym && sym->line)
            sqlite3_bind_int64(st, 7, sym->line);
        sqlite3_bind_int64(st, 8, (int64_t)g->ips[0]);
        obj_group_stack(r, g, stack, sizeof stack);
        sqlite3_bind_text(st, 9, stack, -1, SQLITE_TRANSIENT);
    } else if (g->kind == OBJ_STATIC) {
        sqlite3_bind_int64(st, 8, (int64_t)g->addr);
    }
    sqlite3_bind_int64(st, 10, (int64_t)objects);
    sqlite3_bind_int64(st, 11, (int64_t)accesses);
    if (pdb_exec(db, st) < 0)
        return 0;
    return pdb_last_id(db);
}

/* The row trace-objects wrote for g in this run, 0 if none (or error). */
static int64_t find_site(obj_sites *s, const obj_group *g, const char *name)
{
    sqlite3_stmt *q = pdb_prepare(s->db, "SELECT id FROM alloc_sites WHERE run = ?1 AND "
                                         "serial = ?2 AND kind = ?3 AND "
                                         "substr(name, 1, length(?4)) = ?4");
    if (!q)
        return 0;
    sqlite3_bind_int64(q, 1, s->run);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_text(q, 3, obj_kind_name(g->kind), -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, name, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return id;
}

int64_t obj_sites_id(obj_sites *s, const obj_group *g, uint64_t objects, uint64_t accesses)
{
    if (ARRAY_FIT(s->id, s->cap, (size_t)g->id + 1) < 0)
        return 0;
    if (s->id[g->id])
        return s->id[g->id];
    char name[SYM_BUF];
    obj_group_name(s->r, g, name, sizeof name);
    int64_t id = find_site(s, g, name);
    if (!id)
        id = obj_sites_insert(s->db, s->run, s->r, g, name, objects, accesses);
    return s->id[g->id] = id;
}
