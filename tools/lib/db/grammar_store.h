/*
 * grammar_store.h: what trace-wpp and trace-whomp share when they write the
 * profile database (sql/schema/30-grammars.sql): opening the one
 * transaction of a run, and storing a Sequitur grammar as a grammars row.
 */
#ifndef MEMREC_GRAMMAR_STORE_H
#define MEMREC_GRAMMAR_STORE_H

#include <stdint.h>

#include "algo/sequitur.h"
#include "db/profiledb.h"
#include "memrec_trace.h"

/* Opens (creating) db_path and begins the run of the trace read by r for
 * analysis: deletes the run's rows of owned (NULL-terminated) and its rows
 * of grammars whose analysis column is this analysis. argc/argv are the
 * analysis's own command line, for the record. NULL with a malloc'd
 * one-line message in *err on failure. */
pdb *grammar_store_begin(const char *db_path, const char *analysis,
                         const char *const *owned, const char *trace,
                         const mr_reader *r, int argc, char **argv,
                         int64_t *run, char **err);

/* One grammars row: the grammar serialised, its size, the length of the
 * stream. 0, or -1 (pdb_error says why, or no memory). */
int grammar_store(pdb *db, int64_t run, const char *analysis, const char *stream,
                  const sq_grammar *g);

#endif /* MEMREC_GRAMMAR_STORE_H */
