/*
 * report.h: the slices for people: source lines as function:line, sorted,
 * the precise slice with its line instances (how many of the line's runs
 * are in the slice), the approximate ones with how often the line ran.
 */
#ifndef MEMREC_SLICE_REPORT_H
#define MEMREC_SLICE_REPORT_H

#include <stdio.h>

#include "slice/run.h"
#include "slice/slice.h"

/* Prints the criterion and the slices given (edges, nodes may be NULL).
 * 0, or -1 when out of memory. */
int slice_report(FILE *out, const slice_run *r, const slice_criterion *c, const slice_set *precise,
                 const slice_set *edges, const slice_set *nodes);

#endif
