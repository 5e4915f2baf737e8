/*
 * leap_store.h: a LEAP profile and its post-processors' answers into the
 * profile database (sql/schema/50-leap.sql): leap_lmads, leap_overflow,
 * leap_summary, and the method 'leap' rows of dependences and strides.
 */
#ifndef MEMREC_LEAP_STORE_H
#define MEMREC_LEAP_STORE_H

#include "db/profiledb.h"
#include "leap/leap.h"
#include "leap/leap_mdf.h"
#include "leap/leap_stride.h"
#include "objects/objmap.h"
#include "stream/insns.h"

/* What names the profile's numbers: instructions are stream/insns.h numbers,
 * groups objmap group ids. */
typedef struct leap_names {
    const mr_reader *reader;
    const insn_table *insns;
    const objmap *map;
} leap_names;

/* Writes everything inside the open transaction of run (the caller began
 * it and commits it). 0, or -1 with the message in pdb_error(db). */
int leap_store(pdb *db, int64_t run, const leap *l, const leap_mdf *mdf,
               const leap_stride *strides, uint32_t nstrides,
               const leap_names *names);

#endif /* MEMREC_LEAP_STORE_H */
