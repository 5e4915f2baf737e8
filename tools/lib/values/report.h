/*
 * report.h: trace-values' text report: the run's classes, Figures 6.4 and
 * 6.5 as a table, the fields and instructions with the most accesses (with
 * their ranges and most frequent values), and the fields the selection
 * rule chooses with the heap bytes a compressed layout saves.
 */
#ifndef MEMREC_VALUES_REPORT_H
#define MEMREC_VALUES_REPORT_H

#include <stdio.h>
#include <stdint.h>
#include "values/values.h"

/* rows: fields and instructions listed; top: values shown per row;
 * percent: the selection rule's. 0, or -1 when writing failed. */
int values_report(FILE *out, values *p, uint32_t rows, uint32_t top,
                  uint32_t percent, const mr_reader *r);

#endif /* MEMREC_VALUES_REPORT_H */
