/* feed.c: a trace's accesses into MemPat patterns; see feed.h. */
#include "mempat/feed.h"

#include "base/array.h"
#include "stream/access.h"

#include <stdlib.h>

struct mempat_feed {
    mempat *m;
    access_stream *stream;  /* per instruction: its mempat slot */
    uint32_t assigned;      /* instructions given their slot so far */
    uint64_t *stamp;        /* per mempat slot: the last batch that used it */
    size_t nstamp;
    uint64_t stamp_now;
    /* Adaptive batching (mempat_feed_batching): the reader, NULL when the
     * caller chose its mode itself, and the current window's counts. */
    mr_reader *reader;
    uint32_t window_events;     /* executions with accesses in the window */
    uint64_t window_accesses;   /* the accesses they stand for */
    uint64_t window_batched;    /* those of events with repeat > 1 */
    uint32_t off_windows;       /* windows left with batching off, 0 = on */
};

/* Batching pays only where loops run long: inside every run it takes the
 * reader off its quick path, and the runs of real programs are mostly a
 * few executions whose values change (python3, perl, sqlite3, gzip: 5-7%
 * of the accesses come batched, and trace-mempat ran 8-16% slower with
 * batching than without), while a stencil's come almost all batched (6.6
 * times faster). So the feed looks at windows of BATCH_WINDOW executions:
 * batching stays on while batched events stand for half of a window's
 * accesses or more, else it is off for BATCH_OFF_WINDOWS windows, then a
 * window tries it again. MemPat's patterns do not depend on batching. */
#define BATCH_WINDOW 65536
#define BATCH_OFF_WINDOWS 63

mempat_feed *mempat_feed_new(mempat *m)
{
    mempat_feed *f = calloc(1, sizeof *f);
    if (!f || !(f->stream = access_stream_new(sizeof(uint32_t)))) {
        free(f);
        return NULL;
    }
    f->m = m;
    return f;
}

void mempat_feed_free(mempat_feed *f)
{
    if (!f)
        return;
    access_stream_free(f->stream);
    free(f->stamp);
    free(f);
}

/* Gives every instruction numbered so far its mempat slot, in the order
 * of numbering (the stream keys by size too; a MemPat line is per address
 * and kind, so several instructions may share a slot). */
static int assign_slots(mempat_feed *f)
{
    const insn_table *t = access_stream_insns(f->stream);
    for (uint32_t n = insn_table_count(t); f->assigned < n; f->assigned++) {
        const insn_info *in = insn_table_get(t, f->assigned);
        uint32_t slot = mempat_slot(f->m, in->addr, in->kind);
        if (slot == UINT32_MAX)
            return -1;
        *(uint32_t *)access_stream_user(f->stream, f->assigned) = slot;
    }
    return 0;
}

/* No two accesses of x share a mempat slot (instructions that differ only
 * in size share one). */
static int slots_distinct(mempat_feed *f, const access_exec *x)
{
    if (!x->distinct ||
        ARRAY_FIT(f->stamp, f->nstamp, mempat_count(f->m)) < 0)
        return 0;
    f->stamp_now++;
    for (uint32_t i = 0; i < x->n; i++) {
        uint32_t slot = *(uint32_t *)access_user(x, i);
        if (f->stamp[slot] == f->stamp_now)
            return 0;
        f->stamp[slot] = f->stamp_now;
    }
    return 1;
}

void mempat_feed_batching(mempat_feed *f, mr_reader *r)
{
    f->reader = r;
    f->off_windows = 0;
    f->window_events = 0;
    f->window_accesses = f->window_batched = 0;
    mr_reader_batch(r, MR_BATCH_PER_INSTRUCTION);
}

int mempat_feed_batching_on(const mempat_feed *f)
{
    return f->reader && !f->off_windows;
}

/* The end of a window: batching on or off for the next (see BATCH_WINDOW). */
static void adapt_batching(mempat_feed *f)
{
    if (f->off_windows) {
        if (!--f->off_windows)
            mr_reader_batch(f->reader, MR_BATCH_PER_INSTRUCTION);
    } else if (f->window_batched * 2 < f->window_accesses) {
        f->off_windows = BATCH_OFF_WINDOWS;
        mr_reader_batch(f->reader, MR_BATCH_OFF);
    }
    f->window_events = 0;
    f->window_accesses = f->window_batched = 0;
}

int mempat_feed_event(mempat_feed *f, const mr_event *ev)
{
    access_exec x;
    int rc = access_stream_exec(f->stream, ev, &x);
    if (rc <= 0)
        return rc;
    if (f->reader) {
        uint64_t stands_for = x.n * x.repeat;
        f->window_accesses += stands_for;
        f->window_batched += x.repeat > 1 ? stands_for : 0;
        if (++f->window_events == BATCH_WINDOW)
            adapt_batching(f);
    }
    if (f->assigned < access_stream_ninsns(f->stream) && assign_slots(f) < 0)
        return -1;
    mempat_run *runs = mempat_runs(f->m);
    const mr_access *a = x.acc;
    if (x.repeat == 1) {    /* the common case */
        for (uint32_t i = 0; i < x.n; i++)
            mempat_access(f->m, runs, *(uint32_t *)access_user(&x, i),
                          a[i].addr, a[i].size);
        return 0;
    }
    if (slots_distinct(f, &x)) {
        /* independent slots: each takes its run whole */
        for (uint32_t i = 0; i < x.n; i++)
            mempat_access_run(f->m, runs, *(uint32_t *)access_user(&x, i),
                              a[i].addr, x.strides[i], x.repeat, a[i].size);
        return 0;
    }
    for (uint64_t j = 0; j < x.repeat; j++)
        for (uint32_t i = 0; i < x.n; i++)
            mempat_access(f->m, runs, *(uint32_t *)access_user(&x, i),
                          a[i].addr + j * x.strides[i], a[i].size);
    return 0;
}
