/*
 * series.h: sets of timestamps as arithmetic series (seed 001, sections
 * 3.1 and 5.2): an entry l:h:s is l, l+s, ..., h (a singleton has l = h).
 * Profile-limited data-flow analysis moves whole series at once: the
 * predecessors of the executions of a node at 2:20:2 ran at 1:19:2, and
 * matching that against a predecessor's own entries intersects series,
 * splitting an entry when only part of it matches.
 */
#ifndef MEMREC_DATAFLOW_SERIES_H
#define MEMREC_DATAFLOW_SERIES_H

#include <stdint.h>

/* One entry: l, l + s, ..., h with h - l a multiple of s; s >= 1. */
typedef struct df_series {
    uint32_t l, h, s;
} df_series;

/* Timestamps in x. */
static inline uint64_t df_series_count(const df_series *x)
{
    return (uint64_t)(x->h - x->l) / x->s + 1;
}

/* The intersection of a and b: 1 and *out (a series again, its step the
 * lcm of theirs or, when it holds one timestamp, 1), or 0 when empty. */
int df_series_intersect(const df_series *a, const df_series *b, df_series *out);

/* Reads entries in TWPP's integers (twpp/timestamps.h: -l; l, -h;
 * l, h, -s) into out (n slots suffice). Returns the entries, or -1 when
 * the integers are not well formed. */
int64_t df_series_decode(const int64_t *ints, uint32_t n, df_series *out);

/* The entries of a list of increasing timestamps, chosen as TWPP chooses
 * them (twpp_ts_encode); out needs n slots. Returns the entries. */
uint32_t df_series_from(const uint32_t *ts, uint32_t n, df_series *out);

/* The entries of list (sorted, disjoint, count n) that intersect x, each
 * intersection handed to fn. Binary search to the first entry that can
 * overlap. Returns fn's first non-zero value, else 0. */
typedef int (*df_series_fn)(void *ctx, const df_series *piece, uint32_t entry);
int df_series_match(const df_series *list, uint32_t n, const df_series *x,
                    df_series_fn fn, void *ctx);

#endif
