/* store.h: redundancy results into the profile database (85-redundancy.sql). */
#ifndef MEMREC_REDUNDANCY_STORE_H
#define MEMREC_REDUNDANCY_STORE_H

#include <stdint.h>

#include "db/profiledb.h"
#include "db/session.h"
#include "redundancy/redundancy.h"

/* The tables trace-redundancy owns (pdb_session_begin). */
extern const char *const REDUNDANCY_TABLES[];

/* Begins s's transaction and the run of .twpp file path: the file keeps no
 * process identity, so its path names the run. 0 or -1. */
int redund_begin_run(pdb_session *s, const char *path, int argc, char **argv);

/* r's instructions as rows of run, method 'direct' or 'twpp'. 0 or -1. */
int redund_store(pdb *db, int64_t run, const char *method, const redund_result *r);

#endif
