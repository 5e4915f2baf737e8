/*
 * stride.h: the exact stride profile of every instruction (the lossless
 * re-implementation of Wu's stride profiling that LEAP's paper compares
 * against): every within-object step of every instruction counted by
 * stride. The definitions are those of leap/leap_stride.h: a step is the
 * offset difference of an instruction's consecutive accesses to the same
 * object (same group and object serial); a step to another object counts
 * as a step without a stride; strongly strided = one non-zero stride has
 * at least 70% of the steps, and the instruction ran at least 10 times.
 */
#ifndef MEMREC_STRIDE_H
#define MEMREC_STRIDE_H

#include <stdint.h>

#define STRIDE_SHARE 0.70
#define STRIDE_MIN 10
/* An instruction's histogram is exact up to 2 x STRIDE_KEPT distinct
 * strides; past that it is a bounded Misra-Gries summary keeping at least
 * the STRIDE_KEPT largest (see stride.c and docs/trace-deps.md). */
#define STRIDE_KEPT 256

/* The stride profile of one instruction. */
typedef struct stride_info {
    uint32_t insn;
    int64_t stride;         /* the most frequent within-object stride (the
                             * smallest on a tie), 0 when none */
    uint64_t steps;         /* accesses - 1 */
    uint64_t hits;          /* steps with that stride: exact, or at most
                             * `error` fewer than the truth */
    uint64_t error;         /* 0: the histogram was exact; else the most
                             * steps any count may miss, <= steps /
                             * (STRIDE_KEPT + 1) */
    double share;           /* hits / steps */
    int strongly;
} stride_info;

typedef struct stride_prof stride_prof;

stride_prof *stride_new(void);
void stride_free(stride_prof *s);

/* One access in trace order. 0, or -1 when out of memory. */
int stride_access(stride_prof *s, uint32_t insn, uint32_t group,
                  uint64_t object, uint64_t offset);

/* One entry per instruction seen, by instruction number, into *out
 * (malloc'd; *n entries). 0, or -1 when out of memory. */
int stride_results(stride_prof *s, stride_info **out, uint32_t *n);

#endif /* MEMREC_STRIDE_H */
