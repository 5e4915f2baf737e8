/*
 * dump_text.h: trace-dump's text form: one event per line,
 *
 *   TIME tTID KIND FIELDS...
 *
 * with instruction addresses symbolised (function:line, see symbolize.h).
 * A block execution is followed by its accesses, indented:
 *
 *   1234 t1 exec 0x401120 main:12 exit=1 instrs=5 block=7
 *     L 0x1ffefff8,8 @0x401124 =0x4011a0
 *
 * (kind, address, size, instruction address, and the value when recorded).
 * A block definition is followed by its instructions, accesses and exits.
 * Strings are printed as JSON string literals. The lines are for people
 * and grep; the exact fields of each kind are listed in dump_text.c.
 */
#ifndef MEMREC_DUMP_TEXT_H
#define MEMREC_DUMP_TEXT_H

#include "base/u64map.h"
#include "dump/dump_out.h"
#include "memrec_trace.h"

typedef struct dump_text {
    dump_out *out;
    const mr_reader *reader;    /* for symbols */
    u64map where;             /* mr_block_def* -> malloc'd "main:12" */
} dump_text;

void dump_text_init(dump_text *t, dump_out *o, const mr_reader *r);
void dump_text_free(dump_text *t);

/* Prints one event (with its indented detail lines). */
void dump_text_event(dump_text *t, const mr_event *ev);

#endif /* MEMREC_DUMP_TEXT_H */
