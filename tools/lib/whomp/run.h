/*
 * run.h: WHOMP over one trace: the object-relative stream (objects/objrel.h)
 * fed into the grammars (whomp.h), then printed back (--expand), measured,
 * printed or stored (sql/schema/30-grammars.sql: grammars, whomp_sizes).
 */
#ifndef MEMREC_WHOMP_RUN_H
#define MEMREC_WHOMP_RUN_H

#include <stdint.h>
#include <stdio.h>
#include "db/profiledb.h"
#include "memrec_trace.h"
#include "whomp/whomp.h"

/* The tables the "whomp" analysis owns (its grammars rows are deleted by
 * grammar_store_begin). */
extern const char *const WHOMP_TABLES[];

typedef struct whomp_run whomp_run;

/* r: the trace's reader (symbols, group names); NULL when out of memory. */
whomp_run *whomp_run_new(const mr_reader *r, uint32_t group_depth,
                         const whomp_options *o);
void whomp_run_free(whomp_run *w);

/* One event. 0; -1 when out of memory; -2 when an access's address does
 * not fit beside its instruction number in a RASG symbol (whomp_access). */
int whomp_run_event(whomp_run *w, const mr_event *ev);

/* The RASG's instruction bits (whomp_rasg_bits): after a -2, the bits the
 * refused access needed, beside which at most 2^(31 - bits) regions fit. */
unsigned whomp_run_rasg_bits(const whomp_run *w);

/* After whomp_run_finish: the RASG (owned by the run), whose terminals are
 * address * 2^whomp_run_rasg_bits + instruction, the address packed by
 * region when whomp_rasg_regions says so (whomp.h). */
const sq_grammar *whomp_run_rasg(const whomp_run *w);

/* After the last event: makes the grammars. 0, or -1 when out of memory. */
int whomp_run_finish(whomp_run *w);

/* The object-relative stream back from the four grammars, one access per
 * line: function:line, pc, group, object, offset. 0, or -1. */
int whomp_run_expand(whomp_run *w, FILE *out);

/* The sizes of every grammar and the OMSG/RASG ratio. */
void whomp_run_print(whomp_run *w, FILE *out);

/* The grammars and the sizes as rows of run. 0, or -1 (pdb_error). */
int whomp_run_store(whomp_run *w, pdb *db, int64_t run);

#endif
