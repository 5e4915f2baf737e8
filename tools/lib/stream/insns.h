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

/* The instruction numbers of a block's accesses, one per def->accesses
 * entry, made at the block's first execution. */
typedef struct block_insns {
    const mr_block_def *def;    /* the definition they were made for: an
                                 * id defined again gets new numbers */
    int distinct;               /* no number appears twice: a batch of
                                 * executions can go to each instruction
                                 * whole */
    uint32_t insn[];
} block_insns;

/* The numbers of block def's accesses; NULL when out of memory. Inline:
 * it runs once per block execution, and almost always finds them made. */
static inline const block_insns *insn_table_block(insn_table *t,
                                                  const mr_block_def *def);

/* insn_table_block when they are not made yet. */
const block_insns *insn_table_block_slow(insn_table *t, const mr_block_def *def);

/* Instructions so far, numbered 0 .. count-1 in order of first sight. */
uint32_t insn_table_count(const insn_table *t);
const insn_info *insn_table_get(const insn_table *t, uint32_t insn);

/* Instruction insn as reports write it, "function:line@0xADDR(kind size)",
 * into buf (r gives the symbols). Returns buf. */
const char *insn_table_text(const insn_table *t, const mr_reader *r,
                            uint32_t insn, char *buf, size_t n);

/* ---- inline part ---------------------------------------------------------- */
struct insn_table_head {
    block_insns **blocks;   /* block id -> the numbers of its accesses */
    size_t nblocks;
};
static inline const block_insns *insn_table_block(insn_table *t,
                                                  const mr_block_def *def)
{
    const struct insn_table_head *h = (const struct insn_table_head *)t;
    if (def->id < h->nblocks) {
        const block_insns *b = h->blocks[def->id];
        if (b && b->def == def)
            return b;
    }
    return insn_table_block_slow(t, def);
}

#endif
