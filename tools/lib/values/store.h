/*
 * store.h: trace-values' profile into the profile database (the value_*
 * tables of sql/schema/90-values.sql), in the caller's session.
 *
 * Groups are alloc_sites rows: the row trace-objects wrote for this run
 * when one has the group's serial and kind and a name beginning with the
 * group's (trace-objects adds " (2)" to repeated names), otherwise a row
 * inserted here, filled the same way (bytes left 0), as trace-layout does.
 */
#ifndef MEMREC_VALUES_STORE_H
#define MEMREC_VALUES_STORE_H

#include <stdint.h>
#include "db/profiledb.h"
#include "values/values.h"

/* The tables trace-values owns. */
extern const char *const VALUES_TABLES[];

/* Writes the run's rows; top: values listed per field and instruction,
 * percent: the selection rule's, note: what could not be seen (NULL:
 * nothing). After values_finish. 0, or -1 (pdb_error says why). */
int values_store(pdb *db, int64_t run, values *p, uint32_t top,
                 uint32_t percent, const char *note, const mr_reader *r);

#endif /* MEMREC_VALUES_STORE_H */
