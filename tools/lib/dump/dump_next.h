/*
 * dump_next.h: reading the next event the way trace-info and trace-dump
 * both want: a corrupt or unreadable trace is an error (one line, exit 1);
 * a trace that ends early is a warning (one line) and the end of the
 * events. "Early" covers both a cut-off file (the reader returns -1) and a
 * trace whose writer stopped without a proper end (the reader returns 0
 * but reports truncation), so that a warning always goes with
 * "truncated": true.
 */
#ifndef MEMREC_DUMP_NEXT_H
#define MEMREC_DUMP_NEXT_H

#include "memrec_trace.h"

/* 1 and *ev filled, or 0 at the end of the events (after the warning when
 * the trace is truncated). Exits 1 through cli_fail() on any other error.
 * path is the trace argument as given ("-" for stdin). */
int dump_next_event(mr_reader *r, const char *path, mr_event *ev);

#endif /* MEMREC_DUMP_NEXT_H */
