/*
 * insns.h: static memory instructions, numbered densely.
 *
 * The trace names an access by (block, access index); the same machine
 * instruction appears in several blocks (Valgrind retranslates and builds
 * overlapping superblocks). Analyses want one number per memory
 * instruction, i.e. per (instruction address, access kind, size): that is
 * what this table gives, through a per-block array so that finding the
 * number of an access costs two array loads.
 */
#ifndef MEMREC_INSNS_H
#define MEMREC_INSNS_H

#include <stdint.h>
#include "memrec_trace.h"

/* One static memory instruction. */
typedef struct insn_info {
    uint64_t addr;          /* address of the machine instruction */
    uint32_t size;          /* bytes accessed */
    uint8_t kind;           /* mr_access_kind */
} insn_info;

typedef struct insn_table insn_table;

insn_table *insn_table_new(void);
void insn_table_free(insn_table *t);

/* The slot numbers of the accesses of block def, one per def->accesses
 * entry (built on first use). NULL when out of memory. */
const uint32_t *insn_table_block(insn_table *t, const mr_block_def *def);

/* The slot numbers of the accesses of an MR_EV_EXEC event, one per
 * ev->u.exec.accesses entry: the block's array when every access of the
 * exit happened, else the accesses that did happen (guarded ones whose
 * guard was false are dropped) are matched to their definitions in order
 * and their slots written to scratch (room for def->naccesses entries).
 * NULL when out of memory. */
const uint32_t *insn_table_exec(insn_table *t, const mr_event *ev, uint32_t *scratch);

/* Instructions so far; slots are 0 .. count-1 in order of first sight. */
uint32_t insn_table_count(const insn_table *t);
const insn_info *insn_table_get(const insn_table *t, uint32_t slot);

#endif
