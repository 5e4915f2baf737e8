/*
 * cfg.h: control dependence per function, from the function's control
 * flow graph over the instructions its calls ran. The graph is made from
 * the function's unique path traces in the .twpp file (consecutive
 * instructions of each path; a call instruction's successor is the
 * instruction its call returns to), plus, for a conditional branch, both
 * of its static successors (capstone gives the target): one the function
 * never ran is an edge to EXIT, so that the branch still decides what ran
 * on the other side. A path's last instruction and every return go to
 * EXIT. Post-dominators by Cooper, Harvey and Kennedy's iterative
 * algorithm on the reversed graph; instruction n is control dependent on
 * branch b when n post-dominates a successor of b but not b (Ferrante,
 * Ottenstein and Warren).
 */
#ifndef MEMREC_SLICE_CFG_H
#define MEMREC_SLICE_CFG_H

#include <stdint.h>

#include "slice/run.h"

typedef struct slice_cfg slice_cfg;

slice_cfg *slice_cfg_new(const slice_run *r);
void slice_cfg_free(slice_cfg *g);

/* The branch instructions (static ids) that instruction insn of function
 * fn is control dependent on: *n of them in *out (valid until the next
 * call). 0, or -1 when out of memory. */
int slice_cfg_parents(slice_cfg *g, uint32_t fn, uint32_t insn, const uint32_t **out, uint32_t *n);

#endif
