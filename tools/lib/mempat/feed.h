/*
 * feed.h: MemPat from a trace's events: every access of the one access
 * stream (stream/access.h) goes to its instruction's pattern (mempat.h).
 * When the reader batches loops (MR_BATCH_PER_INSTRUCTION, as trace-mempat
 * reads where it pays: mempat_feed_batching), a batch whose instructions are all different goes to each of them
 * as one arithmetic run: MemPat only needs each instruction's own order.
 */
#ifndef MEMREC_MEMPAT_FEED_H
#define MEMREC_MEMPAT_FEED_H

#include "memrec_trace.h"
#include "mempat/mempat.h"

typedef struct mempat_feed mempat_feed;

/* Feeds m (which the caller keeps and frees). NULL when out of memory. */
mempat_feed *mempat_feed_new(mempat *m);
void mempat_feed_free(mempat_feed *f);

/* Lets the feed choose r's batching (mr_reader_batch) as it goes:
 * MR_BATCH_PER_INSTRUCTION while batches stand for most accesses (long
 * loops), off while they do not, where batching costs more than it saves
 * (see feed.c). The patterns are the same either way. */
void mempat_feed_batching(mempat_feed *f, mr_reader *r);
/* 1 while the feed has r batching (for tests). */
int mempat_feed_batching_on(const mempat_feed *f);

/* One event. 0, or -1 when out of memory. */
int mempat_feed_event(mempat_feed *f, const mr_event *ev);

#endif
