/*
 * edgecode.h: how a load point's dependence edges become the six columns
 * its Sequitur grammars hold (docs/trace-twpp.md, "TWPP+"). The load
 * point G0 is implicit; per edge [<G0,FC0,BC0>, <G1,FC1,BC1>, SN], in the
 * point's execution order:
 *
 *   column 0  FC0, zigzag delta from the point's previous edge
 *   column 1  BC0, zigzag delta from the previous BC0 when FC0 did not
 *             change, else BC0 itself
 *   column 2  G1, the store's access point
 *   column 3  FC1, zigzag delta from the previous edge's FC1
 *   column 4  BC1, zigzag delta from the previous edge's BC1
 *   column 5  SN
 *
 * The deltas are ours, not the dissertation's: a loop's BC0 runs 1, 2,
 * 3, ..., which Sequitur cannot shorten, while its deltas are 1, 1, 1.
 * The same coding packs the edges buffered while the trace is read.
 */
#ifndef MEMREC_TWPP_EDGECODE_H
#define MEMREC_TWPP_EDGECODE_H

#include <stdint.h>

#include "twpp/deps.h"

#define TWPP_COLUMNS 6

/* The previous edge of a point (zero before the first). */
typedef struct twpp_edge_state {
    uint32_t fc, bc, wf, wb;
} twpp_edge_state;

static inline uint64_t twpp_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t twpp_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Edge e as its six column values; advances st. */
static inline void twpp_edge_encode(twpp_edge_state *st, const twpp_edge *e, uint64_t col[TWPP_COLUMNS])
{
    col[0] = twpp_zigzag((int64_t)e->load.fc - st->fc);
    col[1] = e->load.fc == st->fc ? twpp_zigzag((int64_t)e->load.bc - st->bc) : e->load.bc;
    col[2] = e->store.point;
    col[3] = twpp_zigzag((int64_t)e->store.fc - st->wf);
    col[4] = twpp_zigzag((int64_t)e->store.bc - st->wb);
    col[5] = e->sn;
    *st = (twpp_edge_state){ e->load.fc, e->load.bc, e->store.fc, e->store.bc };
}

/* The edge of load point g from its six column values; advances st. 0,
 * or -1 when a value does not fit (corrupt columns). */
static inline int twpp_edge_decode(twpp_edge_state *st, uint32_t g, const uint64_t col[TWPP_COLUMNS],
                                   twpp_edge *e)
{
    int64_t fc = (int64_t)st->fc + twpp_unzigzag(col[0]);
    int64_t bc = fc == st->fc ? (int64_t)st->bc + twpp_unzigzag(col[1]) : (int64_t)col[1];
    int64_t wf = (int64_t)st->wf + twpp_unzigzag(col[3]);
    int64_t wb = (int64_t)st->wb + twpp_unzigzag(col[4]);
    if (fc < 1 || fc > UINT32_MAX || bc < 1 || bc > UINT32_MAX || col[2] > UINT32_MAX ||
        wf < 1 || wf > UINT32_MAX || wb < 1 || wb > UINT32_MAX || col[5] < 1 || col[5] > UINT32_MAX)
        return -1;
    *e = (twpp_edge){ { g, (uint32_t)fc, (uint32_t)bc },
                      { (uint32_t)col[2], (uint32_t)wf, (uint32_t)wb }, (uint32_t)col[5] };
    *st = (twpp_edge_state){ e->load.fc, e->load.bc, e->store.fc, e->store.bc };
    return 0;
}

#endif
