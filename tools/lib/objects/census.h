/*
 * census.h: the object-relative translation alone (trace-objects
 * --translate-only): every access looked up in the object map and counted
 * by the kind of memory it hit, nothing else kept. It measures what the
 * translation costs and how much memory it can name.
 */
#ifndef MEMREC_CENSUS_H
#define MEMREC_CENSUS_H

#include <stdint.h>
#include <stdio.h>
#include "objects/objmap.h"

typedef struct obj_census obj_census;

obj_census *obj_census_new(const objmap_options *mo);
void obj_census_free(obj_census *c);

/* Feeds one event. 0, or -1 when out of memory. */
int obj_census_event(obj_census *c, const mr_event *ev);

/* Ends the map and prints the counts (two lines). */
void obj_census_print(obj_census *c, FILE *out);

#endif
