/* store.h: trace-dataflow's rows (dataflow_graphs in 85-redundancy.sql). */
#ifndef MEMREC_DATAFLOW_STORE_H
#define MEMREC_DATAFLOW_STORE_H

#include <stdint.h>

#include "dataflow/table.h"
#include "db/profiledb.h"
#include "twpp/twpp.h"

/* The tables trace-dataflow owns. */
extern const char *const DATAFLOW_TABLES[];

/* Table 5.1's row of every function of m (rows[i] for function i). 0 or -1. */
int df_store_table(pdb *db, int64_t run, const twpp_model *m, const df_table_row *rows);

#endif
