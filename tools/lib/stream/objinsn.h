/*
 * objinsn.h: static memory instructions, numbered densely.
 *
 * The trace names an access by (block, access index); the same machine
 * instruction appears in several blocks (Valgrind retranslates and builds
 * overlapping superblocks). Analyses want one number per memory
 * instruction, i.e. per (instruction address, access kind, size): that is
 * what this table gives, through a per-block array so that finding the
 * number of an access costs two array loads.
 */
#ifndef MEMREC_OBJINSN_H
#define MEMREC_OBJINSN_H

#include <stdint.h>
#include "memrec_trace.h"

/* One static memory instruction. */
typedef struct obj_insn {
    uint64_t addr;          /* address of the machine instruction */
    uint32_t size;          /* bytes accessed */
    uint8_t kind;           /* mr_access_kind */
} obj_insn;

typedef struct objinsn objinsn;

objinsn *objinsn_new(void);
void objinsn_free(objinsn *t);

/* The slot numbers of the accesses of block def, one per def->accesses
 * entry (built on first use). NULL when out of memory. */
const uint32_t *objinsn_block(objinsn *t, const mr_block_def *def);

/* The slot numbers of the accesses of an MR_EV_EXEC event, one per
 * ev->u.exec.accesses entry: the block's array when every access of the
 * exit happened, else the accesses that did happen (guarded ones whose
 * guard was false are dropped) are matched to their definitions in order
 * and their slots written to scratch (room for def->naccesses entries).
 * NULL when out of memory. */
const uint32_t *objinsn_exec(objinsn *t, const mr_event *ev, uint32_t *scratch);

/* Instructions so far; slots are 0 .. count-1 in order of first sight. */
uint32_t objinsn_count(const objinsn *t);
const obj_insn *objinsn_get(const objinsn *t, uint32_t slot);

#endif
