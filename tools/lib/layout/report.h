/*
 * report.h: trace-layout's text report: the predicted gains (best first),
 * hot data, each significant structure's size, fields, affinity matrix
 * and split, the arrays with their classes, conflicts and regroupings,
 * and the loops by weight with the fields they touch.
 */
#ifndef MEMREC_LAYOUT_REPORT_H
#define MEMREC_LAYOUT_REPORT_H

#include <stdio.h>
#include "layout/layout.h"
#include "layout/replay.h"

/* r may be NULL (no replay). 0, or -1 when out could not be written. */
int ly_report(FILE *out, const ly_profile *p, const ly_replay *r, uint32_t top);

#endif /* MEMREC_LAYOUT_REPORT_H */
