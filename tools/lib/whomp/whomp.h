/*
 * whomp.h: WHOMP's object-relative grammars (Wu et al., section 3).
 *
 * Each kept memory access, as objects/objmap.h translates it, is the tuple
 * (instruction, group, object, offset): the instruction's dense number
 * (stream/insns.h), the group's id, the object's serial in its group,
 * the offset in the object. Horizontal decomposition gives four streams,
 * one grammar each: the OMSG. The RASG is the grammar of the same
 * accesses' raw stream, one symbol per access naming the pair
 * (instruction, address) as Chilimbi's data references do, packed as
 * address * 2^bits + instruction (so it is lossless without a dictionary, as
 * the OMSG's terminals are). bits is WHOMP_RASG_BITS, or, when a trace has
 * more memory instructions than that holds, the bits of its largest
 * instruction number: the builder is relabelled when an instruction first
 * needs a wider field (sq_relabel; the grammar depends only on which pairs
 * are equal, so it is the one the wider packing would have built). When an
 * address does not fit beside the field (user addresses reach 2^47, so
 * from 17 bits on: a JIT's reservations with more than 2^16 memory
 * instructions), addresses are packed by region from then on: the 4 GiB
 * region's number, by first use (the first 4 GiB are region 0), times 2^32
 * plus the address's low 32 bits; the builder is relabelled the same way,
 * and whomp_rasg_regions gives the regions' bases. Sizes
 * are the bytes of the stored grammars (algo/sequitur.h: zstd over
 * varints), the same encoding for both.
 *
 * Which accesses: heap and static objects (the paper's); stack accesses
 * only when asked (whomp_options.stack); `unknown` never (no object).
 *
 * Vertical decomposition (whomp_options.vertical): also one grammar per
 * instruction over its own accesses' (group, object, offset) tuples,
 * written as three symbols per access in that order.
 */
#ifndef MEMREC_WHOMP_H
#define MEMREC_WHOMP_H

#include <stdint.h>

#include "algo/sequitur.h"
#include "objects/objmap.h"

/* The OMSG's dimensions. */
enum { WHOMP_INSTRUCTION, WHOMP_GROUP, WHOMP_OBJECT, WHOMP_OFFSET, WHOMP_DIMS };

/* The RASG's instruction field at first: 16 bits (addresses below 2^47),
 * widened only for traces with more memory instructions. */
#define WHOMP_RASG_BITS 16u

typedef struct whomp_options {
    int stack;                  /* keep stack accesses too */
    int vertical;               /* also one grammar per instruction */
    int threads;                /* 2 or more: a second thread shares the
                                   grammars' work (the same grammars) */
} whomp_options;

typedef struct whomp whomp;

whomp *whomp_new(const whomp_options *o);
void whomp_free(whomp *w);

/* One access of instruction insn to address addr, in object o. 1 when
 * kept, 0 when left out (stack without the option, unknown), -1 when out
 * of memory, -2 when addr does not fit beside insn in a RASG symbol even
 * packed by region (more than 2^(31 - whomp_rasg_bits) regions of 4 GiB;
 * nothing is kept then).
 * Kept accesses are gathered and reach the grammars a batch at a time. */
int whomp_access(whomp *w, uint32_t insn, const obj_object *o, uint64_t addr);

/* After the last access: the gathered accesses into the grammars (and the
 * RASG's thread ended). 0, or -1 when out of memory. The grammars below are
 * NULL until it is called; no access may follow it. */
int whomp_finish(whomp *w);

/* The instruction bits of the RASG's terminals (address * 2^bits +
 * instruction): WHOMP_RASG_BITS or the bits of the largest instruction
 * number kept. After a -2 from whomp_access: the bits that access needed. */
unsigned whomp_rasg_bits(const whomp *w);

/* 0 while the RASG's terminals hold raw addresses; once they are packed by
 * region, the number of regions, and *bases the bits 32 and up of each
 * region's addresses (bases[0] is 0). */
uint32_t whomp_rasg_regions(const whomp *w, const uint64_t **bases);

uint64_t whomp_kept(const whomp *w);       /* accesses kept */
uint64_t whomp_skipped(const whomp *w);    /* accesses left out */

/* After whomp_finish: the grammars (malloc'd; sq_grammar_free them), each
 * taken once: its builder is freed as it is made, so that the builders'
 * memory is given back while the snapshots are made. NULL: no memory, or
 * taken already. */
sq_grammar *whomp_take_omsg(whomp *w, int dim);
sq_grammar *whomp_take_rasg(whomp *w);

/* With vertical: instructions with kept accesses, in order of first, the
 * instruction number of the i-th, and its grammar (taken once too). */
uint32_t whomp_vertical_count(const whomp *w);
uint32_t whomp_vertical_insn(const whomp *w, uint32_t i);
sq_grammar *whomp_take_vertical(whomp *w, uint32_t i);

/* The name of each dimension, for output: "instruction", "group", ... */
const char *whomp_dim_name(int dim);

#endif /* MEMREC_WHOMP_H */
