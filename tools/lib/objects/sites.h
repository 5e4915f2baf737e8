/*
 * sites.h: a group's row in alloc_sites, written once per run.
 *
 * trace-objects inserts a row per group it profiles; every other analysis
 * that reports per group (layout, values, ...) refers to that row when the
 * run has it and inserts one when it does not, so a group has one id in a
 * run whichever analyses filled it. Rows are matched on the group's serial
 * (objmap's group id), kind and name (trace-objects may append " (2)" to
 * tell equal names apart, so the name is matched as a prefix).
 */
#ifndef MEMREC_OBJECTS_SITES_H
#define MEMREC_OBJECTS_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "memrec_trace.h"
#include "db/profiledb.h"
#include "objects/objmap.h"

/* The alloc_sites ids of one run's groups, found or inserted. */
typedef struct obj_sites {
    pdb *db;
    int64_t run;
    const mr_reader *r;         /* for names and symbols */
    int64_t *id;                /* by group id; 0: not yet known */
    size_t cap;
} obj_sites;

void obj_sites_init(obj_sites *s, pdb *db, int64_t run, const mr_reader *r);
void obj_sites_free(obj_sites *s);

/* The id of g's row: the run's existing row, else a new one carrying
 * objects and accesses. 0 on error (pdb_error says what). */
int64_t obj_sites_id(obj_sites *s, const obj_group *g, uint64_t objects, uint64_t accesses);

/* The id obj_sites_id gave group gid, 0 if it was never asked. */
int64_t obj_sites_known(const obj_sites *s, uint32_t gid);

/* Inserts g's row under name (already made unique by the caller). Its id,
 * or 0 on error. */
int64_t obj_sites_insert(pdb *db, int64_t run, const mr_reader *r, const obj_group *g,
                         const char *name, uint64_t objects, uint64_t accesses);

#endif
