/* report.h: trace-dataflow's text: Table 5.1 and annotated CFGs. */
#ifndef MEMREC_DATAFLOW_REPORT_H
#define MEMREC_DATAFLOW_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "dataflow/answer.h"
#include "dataflow/table.h"
#include "twpp/file.h"

/* Table 5.1 of the whole file: every function's block is read. rows[i]
 * gets function i's figures (an array of the model's nfunctions), *total
 * their sum. 0, or -1 with a message in err. */
int df_table_file(twpp_file *f, df_table_row *rows, df_table_row *total, char *err, size_t errlen);

/* Prints the total and the top functions (most dynamic nodes first). */
int df_print_table(FILE *out, const twpp_model *m, const df_table_row *rows,
                   const df_table_row *total, uint32_t top);

/* Prints the timestamp-annotated dynamic CFG of each compacted trace of
 * function fn (loaded), nodes as function:line of their first block, and
 * its TWPP+ access points (loaded). */
int df_print_function(FILE *out, const twpp_file *f, uint32_t fn, char *err, size_t errlen);

/* Prints a query's answer (and the check's, when asked; calls: callees
 * were followed). */
int df_print_answer(FILE *out, const twpp_model *m, const df_spec *d, const char *at,
                    const df_result *r, int check, int calls, double ms);

#endif
