/*
 * report.h: trace-rds's text report: the run's counters, the RDS types as
 * the paper's Table 3 gives them, and the instances with the most
 * traversals, with the instructions that create, traverse and delete them.
 */
#ifndef MEMREC_RDS_REPORT_H
#define MEMREC_RDS_REPORT_H

#include <stdio.h>
#include "memrec_trace.h"
#include "rds/feed.h"
#include "rds/results.h"

/* 0, or -1 when out writes fail. top: instances listed. */
int rds_report(FILE *out, rds_feed *f, const rds_results *res, uint32_t top,
               const char *cache, const mr_reader *r);

#endif
