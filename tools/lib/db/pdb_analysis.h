/*
 * pdb_analysis.h: the opening steps every analysis writing into the
 * profile database repeats (profiledb.h steps 1 to 3): open or create the
 * file, describe the run from the trace's process record, begin the one
 * transaction, and make sure this build's tables exist (a database made
 * by an older build at the same schema version may lack tables added
 * since; the schema is idempotent). Also the instruction ids of a run,
 * by the caller's dense instruction numbers.
 */
#ifndef MEMREC_PDB_ANALYSIS_H
#define MEMREC_PDB_ANALYSIS_H

#include <stdint.h>
#include "db/profiledb.h"
#include "memrec_trace.h"

/* Opens path and begins the run of the trace read by r under the name
 * analysis, deleting this run's rows of owned tables (NULL-terminated).
 * argc/argv: the analysis's own command line, for the record. On failure
 * returns NULL with a one-line message in err (nothing is left behind). */
pdb *pdb_analysis_begin(const char *path, const mr_reader *r,
                        const char *trace, const char *analysis,
                        int argc, char **argv, const char *const *owned,
                        int64_t *run, char *err, size_t errlen);

/* Instruction ids by dense number, made on demand (pdb_instruction with
 * the symbol of the address). */
typedef struct pdb_insn_ids {
    int64_t *ids;           /* 0: not asked yet */
    size_t cap;
} pdb_insn_ids;

/* The id of instruction number n at addr (kind: mr_access_kind). 0, or -1
 * with the error in pdb_error(db). */
int pdb_insn_id(pdb *db, int64_t run, const mr_reader *r, pdb_insn_ids *t,
                uint32_t n, uint64_t addr, uint8_t kind, uint32_t size,
                int64_t *id);

void pdb_insn_ids_free(pdb_insn_ids *t);

#endif /* MEMREC_PDB_ANALYSIS_H */
