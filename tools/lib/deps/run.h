/*
 * run.h: the dependence baselines over one trace: every access of the one
 * access stream into the exact or Connors profiler (deps.h) and, for the
 * exact method, the stride profile within objects (stride.h, through the
 * object-relative stream); then the results as text or rows.
 */
#ifndef MEMREC_DEPS_RUN_H
#define MEMREC_DEPS_RUN_H

#include <stdint.h>
#include <stdio.h>
#include "db/profiledb.h"
#include "deps/deps.h"
#include "memrec_trace.h"

typedef struct deps_run deps_run;

/* strides: also the exact stride profile (heap groups of group_depth
 * frames). NULL when out of memory. */
deps_run *deps_run_new(const mr_reader *r, deps_method method, uint32_t window,
                       int strides, uint32_t group_depth);
void deps_run_free(deps_run *d);

/* One event. 0, or -1 when out of memory. */
int deps_run_event(deps_run *d, const mr_event *ev);

/* After the last event: the pairs and strides. 0, or -1. */
int deps_run_finish(deps_run *d);

/* "exact" or "connors". */
const char *deps_run_method(const deps_run *d);

/* The summary, dep and stride lines (see trace-deps --help). 0 or -1. */
int deps_run_print(deps_run *d, FILE *out);

/* The method's rows of dependences and strides in run. 0, or -1. */
int deps_run_store(deps_run *d, pdb *db, int64_t run);

#endif
