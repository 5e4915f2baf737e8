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

/* A group's display name into buf: "function@file:line" of its call site
 * (heap; with more than one defining frame, "f@a.c:12 <- g@b.c:30"; the
 * function shortened by obj_short_function; "function@module+0xOFF" for
 * code with a symbol but no line, "module+0xOFF" for code with no symbol,
 * OFF the return address in the module's file), "module:symbol" (static, see
 * objmap.h), "stack" or "unknown". Returns buf. */
const char *obj_group_name(const mr_reader *r, const obj_group *g,
                           char *buf, size_t n);

/* "f@a.c:12 <- g@b.c:30": the frames that define a heap group. */
void obj_group_stack(const mr_reader *r, const obj_group *g, char *buf,
                     size_t n);

/* A C++ function name as profilers show it, into buf (n bytes, cut to
 * fit): template arguments elided ("std::vector<...>::_M_realloc_insert"),
 * parameter lists and their qualifiers dropped, "(anonymous namespace)",
 * operators ("operator<<", "operator()") and local names kept, GCC's
 * " [clone .constprop.0]" dropped. A C name comes back as it is. The
 * full name stays in the database (alloc_sites.function). Returns buf. */
const char *obj_short_function(const char *full, char *buf, size_t n);

#endif
