/*
 * objrel_text.h: the object-relative stream as text, one access per line,
 * tab-separated, as in Figure 3 of Wu et al. with the raw address beside:
 *
 *   time  tid  instruction  pc  kind  size  group  object  offset  address
 *
 * (trace-objrel prints it; its --help says what each column is).
 */
#ifndef MEMREC_OBJREL_TEXT_H
#define MEMREC_OBJREL_TEXT_H

#include <stdio.h>
#include "memrec_trace.h"
#include "objects/objmap.h"

typedef struct objrel_text objrel_text;

/* only: print only accesses to the group of that name (NULL: all). */
objrel_text *objrel_text_new(const mr_reader *r, const objmap_options *mo,
                             const char *only, FILE *out);
void objrel_text_free(objrel_text *t);

/* The "# time\ttid..." header line. */
void objrel_text_header(objrel_text *t);

/* Feeds one event, printing its accesses. 0, or -1 when out of memory. */
int objrel_text_event(objrel_text *t, const mr_event *ev);

#endif
