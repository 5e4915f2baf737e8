/*
 * groupname.h: how groups and allocation call sites are named, the same
 * in every report, database and stream.
 */
#ifndef MEMREC_GROUPNAME_H
#define MEMREC_GROUPNAME_H

#include <stddef.h>
#include <stdint.h>
#include "memrec_trace.h"
#include "objects/objmap.h"

/* "heap", "static", "stack" or "unknown". */
const char *obj_kind_name(int kind);

/* The symbol of a call site: frames are return addresses (or just below
 * them), so this looks one byte lower, inside the call instruction. */
const mr_symbol *obj_site_symbol(const mr_reader *r, uint64_t ip);

/* A group's display name into buf: "function:line" of its call site (heap;
 * with more than one defining frame, "f:12 <- g:30"), the symbol (static),
 * "stack" or "unknown". Returns buf. */
const char *obj_group_name(const mr_reader *r, const obj_group *g,
                           char *buf, size_t n);

/* "f:12 <- g:30": the frames that define a heap group. */
void obj_group_stack(const mr_reader *r, const obj_group *g, char *buf,
                     size_t n);

#endif
