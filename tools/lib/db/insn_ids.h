/*
 * insn_ids.h: the ids of the shared instructions table (pdb_instruction)
 * for a run, looked up by an analysis's dense instruction numbers
 * (stream/insns.h) and made on demand, so that every row can name
 * function:line.
 */
#ifndef MEMREC_INSN_IDS_H
#define MEMREC_INSN_IDS_H

#include <stddef.h>
#include <stdint.h>
#include "db/profiledb.h"
#include "memrec_trace.h"

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

#endif /* MEMREC_INSN_IDS_H */
