/*
 * deps_store.h: trace-deps's answers into the profile database
 * (sql/schema/50-leap.sql): the rows of dependences (method 'exact' or
 * 'connors') and, for exact, of strides, replacing that method's rows of
 * the run.
 */
#ifndef MEMREC_DEPS_STORE_H
#define MEMREC_DEPS_STORE_H

#include "db/profiledb.h"
#include "deps/deps.h"
#include "deps/stride.h"
#include "stream/insns.h"

/* Writes inside the open transaction of run. strides may be NULL (Connors
 * measures none). 0, or -1 with the message in pdb_error(db). */
int deps_store(pdb *db, int64_t run, const mr_reader *r, const insn_table *insns,
               const char *method, const deps *d, const deps_pair *pairs,
               uint32_t npairs, const stride_info *strides, uint32_t nstrides);

#endif /* MEMREC_DEPS_STORE_H */
