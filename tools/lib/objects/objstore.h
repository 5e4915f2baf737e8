/*
 * objstore.h: writes an object profile (objprof) into the profile database:
 * alloc_sites, objects, object_offsets, instr_groups, threads,
 * access_samples and the run's totals, all in the caller's transaction.
 *
 * Use: pdb_begin_run(..., OBJSTORE_TABLES, &run); objstore_new(); pass
 * objstore_object as objprof's on_object (objects are written as they
 * die, so millions of them never sit in memory); after objprof_finish(),
 * objstore_finish(); then pdb_commit(). The first error stops all writing
 * and is kept: objstore_failed() says so, pdb_error() says what.
 */
#ifndef MEMREC_OBJSTORE_H
#define MEMREC_OBJSTORE_H

#include <stdint.h>
#include "memrec_trace.h"
#include "objects/objprof.h"
#include "db/profiledb.h"

/* The tables of the "objects" analysis, for pdb_begin_run(). */
extern const char *const OBJSTORE_TABLES[];

typedef struct objstore objstore;

/* r is the trace's reader (for symbols); it must outlive the store. */
objstore *objstore_new(pdb *db, int64_t run, const mr_reader *r);

/* objprof_options.on_object with ctx = the store. */
void objstore_object(void *ctx, const obj_object *o, const obj_stats *s);

/* Writes everything else. instructions is the trace's instruction count
 * (0 if unknown). Returns 0 or -1. */
int objstore_finish(objstore *s, objprof *p, uint64_t instructions);

int objstore_failed(const objstore *s);
void objstore_free(objstore *s);

#endif
