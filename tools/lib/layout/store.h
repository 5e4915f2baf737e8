/*
 * store.h: trace-layout's results into the profile database (the layout_*
 * tables of sql/schema/70-layout.sql), in the caller's session.
 *
 * Groups are alloc_sites rows: a row trace-objects wrote for this run is
 * used when one has the group's serial and kind and its name begins with
 * the group's (trace-objects adds " (2)" to repeated names; run trace-objects
 * first to have its object tables too); otherwise trace-layout inserts
 * the row itself, filled the same way (bytes left 0).
 */
#ifndef MEMREC_LAYOUT_STORE_H
#define MEMREC_LAYOUT_STORE_H

#include <stdint.h>
#include "db/profiledb.h"
#include "layout/layout.h"
#include "layout/replay.h"

/* The tables trace-layout owns. */
extern const char *const LAYOUT_TABLES[];

/* r may be NULL (no replay). 0, or -1 (pdb_error says why). */
int ly_store(pdb *db, int64_t run, const ly_profile *p, const ly_replay *r,
             const mr_reader *reader);

#endif /* MEMREC_LAYOUT_STORE_H */
