/*
 * store.h: MemPat patterns into the profile database (table mempat, and the
 * shared instructions table), in the caller's transaction (db/session.h).
 */
#ifndef MEMREC_MEMPAT_STORE_H
#define MEMREC_MEMPAT_STORE_H

#include <stdint.h>
#include "memrec_trace.h"
#include "db/profiledb.h"
#include "mempat/mempat.h"

/* The tables of the "mempat" analysis, for pdb_session_begin(). */
extern const char *const MEMPAT_TABLES[];

/* Writes the n patterns of order (mempat_order) of run; r gives the
 * symbols. 0, or -1 with pdb_error() set ("" when out of memory). */
int mempat_store(pdb *db, int64_t run, const mempat *m, const uint32_t *order,
                 uint32_t n, const mr_reader *r);

#endif
