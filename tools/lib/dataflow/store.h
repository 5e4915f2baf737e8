/* store.h: trace-dataflow's rows (dataflow_graphs in 85-redundancy.sql). */
#ifndef MEMREC_DATAFLOW_STORE_H
#define MEMREC_DATAFLOW_STORE_H

#include <stdint.h>

#include "dataflow/table.h"
#include "db/profiledb.h"
#include "db/session.h"
#include "twpp/twpp.h"

/* The tables trace-dataflow owns. */
extern const char *const DATAFLOW_TABLES[];

/* Begins s's transaction and the run of .twpp file path: the file keeps no
 * process identity, so its path names the run. 0 or -1. */
int df_begin_run(pdb_session *s, const char *path, int argc, char **argv);

/* Table 5.1's row of every function of m (rows[i] for function i). 0 or -1. */
int df_store_table(pdb *db, int64_t run, const twpp_model *m, const df_table_row *rows);

#endif
