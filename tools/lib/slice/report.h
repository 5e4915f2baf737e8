/*
 * report.h: slices by source line, for people and for the database: per
 * line of a slice, how many of its instances are in it (precise) and how
 * many of its instructions; the lines sorted by function and number; the
 * criterion's line in every slice, as in Figure 5.8.
 */
#ifndef MEMREC_SLICE_REPORT_H
#define MEMREC_SLICE_REPORT_H

#include <stdio.h>

#include "slice/run.h"
#include "slice/slice.h"

/* A slice counted per source line (indexed like slice_run.lines). */
typedef struct slice_tally {
    uint64_t *instances;        /* precise: line instances in the slice; else 1 when in it */
    uint64_t *insns;            /* instruction instances (precise) or instructions in it */
    uint32_t *order;            /* the lines in the slice, sorted */
    uint32_t nlines;
    uint64_t line_instances;    /* sum of instances (precise) */
    uint64_t nolines;           /* members without a line */
} slice_tally;

/* Counts s (precise: instance keys; else static ids) for c. 0, or -1
 * when out of memory. */
int slice_tally_make(const slice_run *r, const slice_criterion *c, const slice_set *s, int precise,
                     slice_tally *t);
void slice_tally_free(slice_tally *t);

/* Prints the criterion and the slices given (edges, nodes may be NULL).
 * 0, or -1 when out of memory. */
int slice_report(FILE *out, const slice_run *r, const slice_criterion *c, const slice_set *precise,
                 const slice_set *edges, const slice_set *nodes);

#endif
