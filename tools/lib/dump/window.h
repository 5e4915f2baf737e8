/*
 * window.h: starting a dump at a point in time without reading what comes
 * before it, through the trace's chunk index.
 */
#ifndef MEMREC_DUMP_WINDOW_H
#define MEMREC_DUMP_WINDOW_H

#include <stdint.h>
#include "memrec_trace.h"

/* With a window starting at time `from` on an indexed trace file, positions
 * r at the last chunk whose first event comes before `from`: the clock never
 * goes back, so every event of an earlier chunk, and every instruction of an
 * execution in one, is before it (an execution ends where the next chunk's
 * clock starts). Binary search over the chunks, one chunk decoded per step.
 * Returns 0 when r is ready (positioned, or left at the start), -1 when a
 * probe failed (a damaged chunk the window may never need): r must then be
 * opened again and read from the start. */
int dump_seek_window(mr_reader *r, uint64_t from);

#endif
