/*
 * timestamps.h: steps 4-5 of TWPP. A compacted path trace T -> B is
 * stored inverted, B -> P(T): each DBB with the set of its timestamps
 * (local to the call, from 1), the set as arithmetic-series entries
 * `l`, `l:h` (step 1), `l:h:s`, stored as one, two or three integers with
 * the last one negated: -l; l, -h; l, h, -s. Runs are chosen greedily left
 * to right: a step-1 run from 3 timestamps, a longer step from 4 (where
 * they start to save integers); anything else is a singleton.
 */
#ifndef MEMREC_TWPP_TIMESTAMPS_H
#define MEMREC_TWPP_TIMESTAMPS_H

#include <stdint.h>

#include "twpp/bytes.h"
#include "twpp/twpp.h"

/* The longest compacted trace twpp_ts_read accepts (default 2^32 - 2;
 * the fuzz target lowers it to stay within its memory limit). */
extern uint64_t twpp_read_limit;

/* Encodes increasing timestamps ts[0..n) into out (n slots suffice);
 * returns the integers written. */
uint32_t twpp_ts_encode(const uint32_t *ts, uint32_t n, int64_t *out);

/* Writes trace in TWPP form: its length, its DBB count, per DBB in
 * increasing id its id and its number of timestamps, the byte length of
 * what follows (so that a reader wanting the counts skips it), then per
 * DBB: its entry count, the entries (zigzag varints), each entry's l
 * stored as the distance from the previous entry's last timestamp and its
 * h as the distance from l (signs as above). 0, or -1 when out of memory. */
int twpp_ts_write(twpp_buf *b, const twpp_seq *trace, uint32_t nsymbols);

/* Each DBB's timestamps of trace as entries (twpp_ts_encode), calling fn
 * per DBB in increasing id. 0, -1 when out of memory, or fn's non-zero. */
typedef int (*twpp_dbb_fn)(void *ctx, uint32_t dbb, const int64_t *ints, uint32_t n);
int twpp_ts_form(const twpp_seq *trace, uint32_t nsymbols, twpp_dbb_fn fn, void *ctx);

/* Reads one back into trace (malloc'd), checking that every timestamp
 * 1..length is taken exactly once, ids are below nsymbols, and the counts
 * and the byte length agree with the entries. 0, or -1 with c->bad set
 * (or out of memory). */
int twpp_ts_read(twpp_cur *c, uint32_t nsymbols, twpp_seq *trace);

/* Reads one in TWPP form without expanding its series: counts gets
 * [length, then per DBB its id and its number of timestamps] (malloc'd)
 * from the head, the entries skipped by their byte length: the head is
 * checked (ids increasing and below nsymbols, counts summing to the
 * length, the entries inside the block), the entries are not (a whole read
 * checks them). 0, or -1 with c->bad set. */
int twpp_ts_skim(twpp_cur *c, uint32_t nsymbols, twpp_seq *counts);

/* Reads one in TWPP form keeping its series as they are, without
 * expanding them (trace-dataflow's queries move whole series): s gets
 * [length, DBB count, then per DBB in increasing id: its id, its number of
 * timestamps, its entry count, then each entry as l, h, step] (malloc'd).
 * Checked: the head, every entry inside 1..length, a DBB's entries
 * increasing and summing to its count, the byte length; not that the
 * DBBs' timestamps are disjoint (a whole read checks that). 0, or -1
 * with c->bad set. */
int twpp_ts_series(twpp_cur *c, uint32_t nsymbols, twpp_seq *s);

#endif
