/*
 * objreport.h: the readable object profile trace-objects prints without
 * --db: totals, the hottest groups with their hottest offsets, the hottest
 * objects.
 *
 * Use: objreport_new(); pass objreport_object as objprof's on_object (it
 * keeps the top objects only); after objprof_finish(), objreport_print().
 */
#ifndef MEMREC_OBJREPORT_H
#define MEMREC_OBJREPORT_H

#include <stdio.h>
#include "memrec_trace.h"
#include "objects/objprof.h"

typedef struct objreport objreport;

/* top: how many groups and objects to list. */
objreport *objreport_new(unsigned top);
void objreport_object(void *ctx, const obj_object *o, const obj_stats *s);
void objreport_print(objreport *rep, objprof *p, const mr_reader *r,
                     const char *trace, FILE *out);
void objreport_free(objreport *rep);

#endif
