/*
 * slice.h: the three dynamic slices of seed 001, section 5.3 (Agrawal and
 * Horgan's approaches, computed over the run of run.h on demand):
 *
 *   precise (approach 3, Figure 5.7): instruction instances. From the
 *     criterion's definitions, each instance in the slice adds the
 *     instances it depends on (deps.h), once each.
 *   executed edges (approach 2): static instructions. A dependence found
 *     from one instance of an instruction brings in the other instruction
 *     with all its instances: an instruction joins when some instance of
 *     an instruction already in the slice depends on some instance of it.
 *   executed nodes (approach 1): static instructions, a static slice over
 *     the instructions that ran: registers by reaching definitions over
 *     the graph of executed instructions (every observed successor, calls
 *     and returns included, plus both sides of conditional branches);
 *     memory by the stores whose addresses, over the run, overlap the
 *     load's, found walking back the same graph and stopped only by a
 *     single-address store of exactly the load's single address; control
 *     by static control dependence, or every call site of the function.
 */
#ifndef MEMREC_SLICE_SLICE_H
#define MEMREC_SLICE_SLICE_H

#include <stdint.h>

#include "base/u64map.h"
#include "slice/cfg.h"
#include "slice/run.h"

/* A slice: instruction instances (precise) or static instructions.
 * Membership is a hash set, or a bitmap over dense numbers once
 * slice_set_dense was called (instances: run->insn_first[step] + index;
 * static instructions: their id). */
typedef struct slice_set {
    u64map has;
    uint64_t *bits;             /* the bitmap, or NULL */
    const uint64_t *first;      /* instances: run->insn_first; static: NULL */
    uint64_t *v;                /* members in the order they joined */
    size_t n, cap;
} slice_set;

/* Adds x; 1 new, 0 there, -1 out of memory. */
int slice_set_add(slice_set *s, uint64_t x);
/* Makes an empty set's membership a bitmap for r's instances (instances
 * set) or static instructions. 0, or -1 when out of memory. */
int slice_set_dense(slice_set *s, const slice_run *r, int instances);
void slice_set_free(slice_set *s);

/* The criterion's definitions (instance keys): the first members of the
 * precise slice, whose instructions start the other two. 0 or -1. */
int slice_seed(const slice_run *r, const slice_criterion *c, slice_set *out);

/* Approach 3 into out (instance keys). 0, or -1 with err. */
int slice_precise(const slice_run *r, slice_cfg *g, const slice_criterion *c, slice_set *out,
                  char *err, size_t errlen);

/* Approach 2 into out (static instruction ids). */
int slice_edges(const slice_run *r, slice_cfg *g, const slice_criterion *c, slice_set *out,
                char *err, size_t errlen);

/* Approach 1 into out (static instruction ids). */
int slice_nodes(const slice_run *r, slice_cfg *g, const slice_criterion *c, slice_set *out,
                char *err, size_t errlen);

#endif
