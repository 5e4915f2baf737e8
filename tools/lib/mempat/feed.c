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
};

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

int mempat_feed_event(mempat_feed *f, const mr_event *ev)
{
    access_exec x;
    int rc = access_stream_exec(f->stream, ev, &x);
    if (rc <= 0)
        return rc;
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
