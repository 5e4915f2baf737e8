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
 *
 * Repeats. A column is fed to Sequitur with its short periodic repeats
 * coded as copies (a run is a copy at distance 1; two stores taking turns
 * make copies at distance 2 or 4). Sequitur would fold them into rules
 * anyway, but in as many steps as values: a loop's columns are mostly
 * such repeats, and Sequitur's time goes to what is left.
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

/* twpp_edge_decode for a reader that skipped the load's columns (0 and
 * 1): the edge's load is <g, 0, 0>. */
static inline int twpp_edge_decode_store(twpp_edge_state *st, uint32_t g, const uint64_t col[TWPP_COLUMNS],
                                         twpp_edge *e)
{
    int64_t wf = (int64_t)st->wf + twpp_unzigzag(col[3]);
    int64_t wb = (int64_t)st->wb + twpp_unzigzag(col[4]);
    if (col[2] > UINT32_MAX || wf < 1 || wf > UINT32_MAX || wb < 1 || wb > UINT32_MAX || col[5] < 1 ||
        col[5] > UINT32_MAX)
        return -1;
    *e = (twpp_edge){ { g, 0, 0 }, { (uint32_t)col[2], (uint32_t)wf, (uint32_t)wb }, (uint32_t)col[5] };
    st->wf = e->store.fc;
    st->wb = e->store.bc;
    return 0;
}

/* One column's repeat coder (see the top): feed values, emit terminals.
 * Terminal 4v is the value v; terminal (m << 3 | (p - 1)) << 2 | 1 says
 * "m more values, each the one p before it" (1 <= p <= TWPP_PERIOD,
 * m >= 1; overlapping, as LZ77 copies: p = 1 is a run). A copy is
 * written only from TWPP_MIN_COPY values; shorter ones stay values. */
#define TWPP_PERIOD 8
#define TWPP_MIN_COPY 2

typedef struct twpp_rep {
    uint64_t hist[TWPP_PERIOD]; /* the last values, hist[n % TWPP_PERIOD] next */
    uint64_t n;                 /* values so far */
    uint64_t m;                 /* values of the pending copy */
    uint32_t p;                 /* its distance */
} twpp_rep;

typedef int (*twpp_emit)(void *ctx, uint64_t terminal);

static inline uint64_t twpp_rep_back(const twpp_rep *r, uint32_t p)
{
    return r->hist[(r->n - p) % TWPP_PERIOD];
}

static inline void twpp_rep_push(twpp_rep *r, uint64_t v)
{
    r->hist[r->n++ % TWPP_PERIOD] = v;
}

/* Writes the pending copy: as a copy, or its values one by one. */
static inline int twpp_rep_flush(twpp_rep *r, twpp_emit emit, void *ctx)
{
    int rc = 0;
    if (r->m >= TWPP_MIN_COPY)
        rc = emit(ctx, (r->m << 3 | (r->p - 1)) << 2 | 1);
    else
        for (uint64_t i = r->m; i > 0 && rc == 0; i--)     /* still in the history */
            rc = emit(ctx, twpp_rep_back(r, (uint32_t)i) << 2);
    r->m = 0;
    return rc;
}

/* Feeds v: it continues the pending copy, starts one at the nearest
 * distance that repeats, or is written as it is. */
static inline int twpp_rep_put(twpp_rep *r, uint64_t v, twpp_emit emit, void *ctx)
{
    if (r->m && twpp_rep_back(r, r->p) == v) {
        r->m++;
        twpp_rep_push(r, v);
        return 0;
    }
    int rc = twpp_rep_flush(r, emit, ctx);
    uint32_t span = r->n < TWPP_PERIOD ? (uint32_t)r->n : TWPP_PERIOD;
    for (uint32_t p = 1; p <= span && rc == 0; p++)
        if (twpp_rep_back(r, p) == v) {
            r->p = p;
            r->m = 1;
            twpp_rep_push(r, v);
            return 0;
        }
    twpp_rep_push(r, v);
    return rc ? rc : emit(ctx, v << 2);
}

/* Decoding: the next value from terminals given by next (1, or 0 at the
 * end). 0, or -1 when the terminals end or are not such a stream. */
static inline int twpp_rep_get(twpp_rep *r, int (*next)(void *, uint64_t *), void *ctx, uint64_t *v)
{
    uint64_t t;
    if (!r->m) {
        if (next(ctx, &t) != 1)
            return -1;
        if ((t & 3) == 0) {
            *v = t >> 2;
            twpp_rep_push(r, *v);
            return 0;
        }
        r->p = (uint32_t)((t >> 2) & 7) + 1;
        r->m = t >> 5;
        if ((t & 3) != 1 || r->m == 0 || r->p > r->n)
            return -1;
    }
    r->m--;
    *v = twpp_rep_back(r, r->p);
    twpp_rep_push(r, *v);
    return 0;
}

#endif
