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
#include "db/session.h"
#include "memrec_trace.h"

/* pdb_session_begin() for an analysis that stores grammars: also deletes
 * the run's grammars rows of this analysis (the table is shared). 0 or -1. */
int grammar_store_begin(pdb_session *s, const char *analysis,
                        const char *const *owned, const mr_reader *r,
                        const char *trace, int argc, char **argv);

/* One grammars row: the grammar serialised, its size, the length of the
 * stream. 0, or -1 (pdb_error says why, or no memory). */
int grammar_store(pdb *db, int64_t run, const char *analysis, const char *stream,
                  const sq_grammar *g);

#endif /* MEMREC_GRAMMAR_STORE_H */
