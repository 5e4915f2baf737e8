/*
 * cachereport.h: trace-cache's text output: the per-level summary, the
 * worst instructions, groups and objects (by latency, with function:line
 * and group names), the run's miss-ratio curve; and the per-access stream.
 */
#ifndef MEMREC_CACHEREPORT_H
#define MEMREC_CACHEREPORT_H

#include <stdio.h>
#include "cache/cacheprof.h"

/* Group names by id, made once each (objstore_group_name). */
typedef struct cr_names cr_names;
cr_names *cr_names_new(const mr_reader *r);
void cr_names_free(cr_names *n);
/* NULL when out of memory. */
const char *cr_group_name(cr_names *n, const obj_group *g);

/* The report; top: rows per "worst" table. 0, or -1 on a write error. */
int cr_report(FILE *out, const cacheprof *p, const mr_reader *r, cr_names *n,
              unsigned top);

/* The header line and one line per access of --per-access (tab-separated:
 * time tid pc kind size address level latency distance group object
 * offset). level names the serving level ("D1", ..., "mem"). */
void cr_access_header(FILE *out);
void cr_access_line(FILE *out, const cache_sim *sim, cr_names *n,
                    const cp_access *a);

/* Shared with the store: the level name of a result level. */
const char *cr_level_name(const cache_sim *sim, unsigned level);

#endif /* MEMREC_CACHEREPORT_H */
