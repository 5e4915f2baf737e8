/*
 * store.h: a run's slicing request and its three slices by source line in
 * the profile database (sql/schema/87-slice.sql).
 */
#ifndef MEMREC_SLICE_STORE_H
#define MEMREC_SLICE_STORE_H

#include <stdint.h>

#include "db/profiledb.h"
#include "slice/run.h"
#include "slice/slice.h"

/* The tables the "slice" analysis owns. */
extern const char *const SLICE_TABLES[];

/* The rows of run: the criterion (at, var and edges as given) and the
 * slices (edges, nodes may be NULL). 0, or -1 (the database's error, or
 * out of memory). */
int slice_store(pdb *db, int64_t run, const slice_run *r, const slice_criterion *c, const char *at,
                const char *edges_from, const slice_set *precise, const slice_set *edges,
                const slice_set *nodes);

#endif
