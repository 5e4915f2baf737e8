/*
 * cachestore.h: writes a cache profile (cacheprof) into the profile
 * database, tables of sql/schema/40-cache.sql, in the caller's transaction
 * (pdb_begin_run with CACHESTORE_TABLES ... pdb_commit).
 */
#ifndef MEMREC_CACHESTORE_H
#define MEMREC_CACHESTORE_H

#include <stdint.h>
#include "cache/cacheprof.h"
#include "cache/cachereport.h"
#include "db/profiledb.h"

/* The tables of the "cache" analysis, for pdb_begin_run(). */
extern const char *const CACHESTORE_TABLES[];

/* Every row of one run. 0, or -1 with the message in pdb_error() (or out
 * of memory when that is empty). */
int cs_store(pdb *db, int64_t run, const cacheprof *p, const mr_reader *r,
             cr_names *names);

#endif /* MEMREC_CACHESTORE_H */
