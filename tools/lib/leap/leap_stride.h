/*
 * leap_stride.h: strongly strided instructions from the LMADs alone (Wu et
 * al., section 4.2.2, after Wu's stride profiling): an instruction is
 * strongly strided when one non-zero stride accounts for at least 70% of
 * its strides within objects.
 *
 * An instruction's strides are the offset differences of its consecutive
 * accesses (in time order) that touch the same object of the same group;
 * a step to another object is a stride sample of no value. The LMADs
 * give them directly: an LMAD of count c whose object stride is 0 holds
 * c - 1 steps of its offset stride, one whose object stride is not 0
 * holds c - 1 steps between objects; consecutive LMADs of the instruction
 * (its streams merged by time) add the step between them. The share of
 * the most frequent stride is taken over the steps the LMADs hold (the
 * captured sample); an instruction with fewer than LEAP_STRIDE_MIN
 * accesses is never strongly strided (too few steps to say).
 */
#ifndef MEMREC_LEAP_STRIDE_H
#define MEMREC_LEAP_STRIDE_H

#include <stdint.h>
#include "leap/leap.h"

#define LEAP_STRIDE_SHARE 0.70  /* the threshold of [2] */
#define LEAP_STRIDE_MIN 10      /* accesses needed to call an instruction
                                 * strongly strided */

/* The stride profile of one instruction. */
typedef struct leap_stride {
    uint32_t insn;
    int64_t stride;         /* the most frequent within-object stride (the
                             * smallest such on a tie), 0 when none */
    uint64_t steps;         /* steps in the sample */
    uint64_t hits;          /* of which with that stride */
    double share;           /* hits / steps, 0 when no steps */
    int strongly;           /* share >= 70%, stride != 0, enough accesses */
} leap_stride;

/* One entry per instruction that ran, by instruction number, into *out
 * (malloc'd; *n entries). 0, or -1 when out of memory. */
int leap_strides(const leap *l, leap_stride **out, uint32_t *n);

#endif /* MEMREC_LEAP_STRIDE_H */
