/*
 * leap.h: LEAP, the loss-enhanced access profiler of Wu et al. (section
 * 4): the object-relative access stream decomposed vertically by
 * (instruction, group), each (object, offset, time) sub-stream compressed
 * into at most max_lmads LMADs (algo/lmad.h), the rest of it summarised.
 *
 * time is the global access counter of section 2.2: 0 for the first
 * access of the trace, one more for every access after it, whatever its
 * instruction or group. docs/trace-leap.md has the decisions.
 *
 * The post-processors that work on the LMADs alone are in leap_mdf.h
 * (memory dependence frequencies) and leap_stride.h (strongly strided
 * instructions).
 */
#ifndef MEMREC_LEAP_H
#define MEMREC_LEAP_H

#include <stdint.h>
#include "algo/lmad.h"

/* The dimensions of a LEAP stream. */
enum { LEAP_OBJECT = 0, LEAP_OFFSET = 1, LEAP_TIME = 2, LEAP_DIMS = 3 };

#define LEAP_NONE UINT32_MAX

/* One (instruction, group) stream. */
typedef struct leap_stream {
    uint32_t insn;          /* the caller's instruction number */
    uint32_t group;         /* the caller's group number */
    uint32_t next;          /* next stream of the same instruction, or
                             * LEAP_NONE */
    lmad_stream lmads;      /* (object, offset, time) */
} leap_stream;

/* One static memory instruction. */
typedef struct leap_insn {
    uint8_t kind;           /* mr_access_kind: a modify is a load and a store */
    uint32_t size;          /* bytes of its accesses */
    uint64_t executions;    /* accesses it made */
    uint32_t first;         /* its first stream, LEAP_NONE before any */
    uint32_t last;          /* the stream of its last access (the next one is
                             * most likely to the same group) */
} leap_insn;

typedef struct leap leap;

/* A profile keeping at most max_lmads LMADs per stream (0: 30). NULL when
 * out of memory. */
leap *leap_new(uint32_t max_lmads);
void leap_free(leap *l);

/* One access, in trace order: instruction insn (dense numbers from 0) of
 * the given kind and size touched offset of object `object` of group
 * `group`. 0, or -1 when out of memory (the profile is then incomplete:
 * leap_failed). */
int leap_access(leap *l, uint32_t insn, uint8_t kind, uint32_t size,
                uint32_t group, uint64_t object, uint64_t offset);

/* One access of a batch (a loop the reader folded): its instruction, and
 * the object it touches in every iteration, at offset + j * step in
 * iteration j < count; place: the accesses before it in an iteration. */
typedef struct leap_batch_access {
    uint32_t insn;
    uint8_t kind;
    uint32_t size;
    uint32_t group;
    uint64_t object;
    uint64_t offset;
    int64_t step;
    uint32_t place;
    uint64_t count;
} leap_batch_access;

/* The accesses of a loop run: iteration after iteration, each making
 * per_iteration accesses, access a at a->place of iteration j (j <
 * a->count), no other access between. The accesses of the last iteration
 * are a prefix (the loop left mid-body): counts are at most one apart and
 * never grow with place. The same as the leap_access() calls in that
 * order, in O(n) once each stream's run continues its LMAD; the clock
 * advances by the sum of the counts. An instruction that has several of
 * the accesses (a wide move in pieces) is added point by point, in that
 * order. 0, or -1 when out of memory. */
int leap_batch(leap *l, const leap_batch_access *acc, uint32_t n,
               uint32_t per_iteration);

/* The trace has ended: each stream's last LMAD is folded if it can be
 * (lmad_finish). */
void leap_finish(leap *l);

int leap_failed(const leap *l);

/* Accesses so far (the clock). */
uint64_t leap_accesses(const leap *l);

uint32_t leap_ninsns(const leap *l);
const leap_insn *leap_insn_get(const leap *l, uint32_t insn);
uint32_t leap_nstreams(const leap *l);
const leap_stream *leap_stream_get(const leap *l, uint32_t i);

/* Table 1 and the profile's size. */
typedef struct leap_summary {
    uint64_t accesses;          /* in the trace */
    uint64_t captured;          /* held by LMADs (the rest summarised) */
    uint32_t instructions;      /* memory instructions that ran */
    uint32_t insns_captured;    /* whose every stream fits its LMADs */
    uint32_t streams;           /* (instruction, group) streams */
    uint64_t lmads;             /* LMADs in all */
    uint32_t overflowed;        /* streams with a summary */
    uint64_t profile_bytes;     /* the profile's size, see leap_summarise */
    uint64_t trace_bytes;       /* 16 bytes per access: instruction, address */
} leap_summary;

/* Fills *s. The profile's size is that of its compact form: per stream
 * the instruction and group numbers and the LMAD count, per LMAD its
 * seven numbers, its number of outer levels and four per outer level, per
 * summary its ten, each number a zigzag LEB128
 * varint (as memrec's trace format writes integers). */
void leap_summarise(const leap *l, leap_summary *s);

/* One stream's part of the profile size (leap_summarise's measure). */
uint64_t leap_stream_bytes(const leap_stream *st);

#endif /* MEMREC_LEAP_H */
