/*
 * leap_feed.h: a trace's events into a LEAP profile. Every access is made
 * object-relative (objects/objmap.h for the object, stream/insns.h for
 * the instruction number) as trace-objrel walks them, guarded accesses
 * included, and given to leap_access() in execution order.
 *
 * Loops. With the reader batching loops (mr_reader_batch
 * MR_BATCH_PER_INSTRUCTION), a loop run comes as one event per block of
 * its body, each standing for its executions in the run (execution j at
 * its first time + j periods; the blocks after the loop's exit point run
 * once less). Those events are gathered (same period, first executions
 * within one period), put in time order, and each access of the body is a
 * run: in iteration j at its first address + j * its stride, at global
 * access time base + j * (accesses per iteration) + its place in the
 * iteration. When no instruction appears twice in the body, every run
 * stays within one heap, static or stack object (its first and last
 * address in it) and the blocks' counts are R for a prefix and R - 1 after
 * it, the runs go to leap_batch() whole; otherwise the executions are
 * replayed one by one in time order. Either way the profile is exactly the
 * one an unbatched reading gives (trace-leap --no-batch; tests/e2e/leap.sh
 * compares both).
 */
#ifndef MEMREC_LEAP_FEED_H
#define MEMREC_LEAP_FEED_H

#include "leap/leap.h"
#include "objects/objmap.h"
#include "stream/insns.h"

typedef struct leap_feed leap_feed;

/* Feeds l, translating with an object map made with mo. NULL when out of
 * memory. */
leap_feed *leap_feed_new(leap *l, const objmap_options *mo);
void leap_feed_free(leap_feed *f);

/* The object map and the instruction numbers (for names in reports). */
objmap *leap_feed_map(leap_feed *f);
const insn_table *leap_feed_insns(leap_feed *f);

/* One event of the trace, in order. 0, or -1 when out of memory. */
int leap_feed_event(leap_feed *f, const mr_event *ev);

/* The end of the trace: a loop run still gathered is fed. 0 or -1. */
int leap_feed_finish(leap_feed *f);

/* Accesses that went in as whole runs (for the record). */
uint64_t leap_feed_batched(const leap_feed *f);

#endif /* MEMREC_LEAP_FEED_H */
