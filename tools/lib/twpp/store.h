/*
 * store.h: a run's TWPP in the profile database (sql/schema/80-twpp.sql):
 * one twpp_functions row per function, one twpp_sizes row per part,
 * TWPP+'s counts (twpp_dependences) and one twpp_load_points row per load
 * point.
 */
#ifndef MEMREC_TWPP_STORE_H
#define MEMREC_TWPP_STORE_H

#include <stdint.h>

#include "db/profiledb.h"
#include "twpp/file.h"

/* The tables the "twpp" analysis owns. */
extern const char *const TWPP_TABLES[];

/* m's and plus's rows for run; sz and fn_bytes as twpp_write gave them,
 * blocks the block executions read. 0, or -1 (the database's error). */
int twpp_store(pdb *db, int64_t run, const twpp_model *m, const twpp_plus *plus,
               const twpp_sizes *sz, const uint64_t *fn_bytes, uint64_t blocks);

#endif
