/*
 * dump_filter.h: which events trace-dump prints: one thread, a window of
 * global time (instructions executed before the event, all threads), and
 * the code of one function.
 *
 * Time: an event is in the window when FROM <= time < TO; in Lackey form,
 * each instruction of a block execution is judged by its own time (the
 * execution's time plus its index), so windows cut blocks exactly.
 * Function: a block execution is selected when any instruction of its block
 * belongs to the function (by the trace's symbols); calls and returns when
 * their source or target does; nothing else is. In Lackey form only the
 * function's own instructions (and their accesses) are printed.
 */
#ifndef MEMREC_DUMP_FILTER_H
#define MEMREC_DUMP_FILTER_H

#include <stdint.h>
#include "memrec_trace.h"
#include "base/u64map.h"

typedef struct dump_filter {
    int by_thread;              /* --thread given */
    uint32_t tid;
    uint64_t from, to;          /* [from, to): 0 and UINT64_MAX select all */
    const char *function;       /* --function, or NULL */
    const mr_reader *reader;    /* for symbols */
    u64map blocks;            /* mr_block_def* -> block_selection* */
    int out_of_memory;          /* a selection could not be cached */
} dump_filter;

/* Starts with no restriction; the caller then sets the fields it wants. */
void dump_filter_init(dump_filter *f, const mr_reader *r);
void dump_filter_free(dump_filter *f);

/* Whether the event is printed as a whole in text form. */
int dump_filter_event(dump_filter *f, const mr_event *ev);

/* For a block execution that passed the thread filter: which of its
 * instructions belong to the function, one byte per instruction of the
 * definition (1: yes). NULL when no function is selected (all do).
 * *any tells whether any does. When memory runs out, *any is 0 and
 * f->out_of_memory is set. */
const uint8_t *dump_filter_function_mask(dump_filter *f,
                                         const mr_block_def *def, int *any);

#endif /* MEMREC_DUMP_FILTER_H */
