/* store.h: redundancy results into the profile database (85-redundancy.sql). */
#ifndef MEMREC_REDUNDANCY_STORE_H
#define MEMREC_REDUNDANCY_STORE_H

#include <stdint.h>

#include "db/profiledb.h"
#include "redundancy/redundancy.h"

/* The tables trace-redundancy owns (pdb_session_begin). */
extern const char *const REDUNDANCY_TABLES[];

/* r's instructions as rows of run, method 'direct' or 'twpp'. 0 or -1. */
int redund_store(pdb *db, int64_t run, const char *method, const redund_result *r);

#endif
