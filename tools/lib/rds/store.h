/*
 * store.h: the RDS profile into the profile database (sql/schema/60-rds.sql:
 * rds_summary, rds_types, rds_type_sites, rds_instances, rds_instance_insns,
 * rds_instance_frees, and the shared instructions table), in the caller's
 * transaction (db/session.h).
 */
#ifndef MEMREC_RDS_STORE_H
#define MEMREC_RDS_STORE_H

#include <stdint.h>
#include "memrec_trace.h"
#include "db/profiledb.h"
#include "rds/feed.h"
#include "rds/results.h"

/* The tables of the "rds" analysis, for pdb_session_begin(). */
extern const char *const RDS_TABLES[];

/* Writes the run's rows; cache: the hierarchy's description; r gives the
 * symbols. 0, or -1 with pdb_error() set ("" when out of memory). */
int rds_store_run(pdb *db, int64_t run, rds_feed *f, const rds_results *res,
                  double threshold, const char *cache, const mr_reader *r);

/* "function:line" of a site or call return address into buf (SYM_BUF). */
const char *rds_site_name(const mr_reader *r, const obj_group *g, char *buf,
                          size_t n);
const char *rds_call_name(const mr_reader *r, uint64_t ret, char *buf,
                          size_t n);

#endif
