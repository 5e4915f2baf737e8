/*
 * leap_writes.h: the short store LMADs of a group as single writes, sorted
 * so that the last write of a byte before a time is a few binary searches
 * (the dependence solver's index, leap_mdf.c).
 *
 * Why: in a program's irregular groups (the stack, an allocator's arenas)
 * almost every store LMAD holds two points, written far apart in offset
 * and in time, so its bounding box is wide and nearly empty. Compared box
 * by box, every load point met most of the group's boxes (a python3
 * script: 97 s). Taken point by point, an LMAD of a few points costs a few
 * entries, and a byte's writers are found by offset and time alone.
 *
 * The writes are sorted by (object, offset, size, time): the writes of one
 * (object, offset, size) are a run in time order, and the runs are listed
 * apart in that order. A byte is covered by the runs that start at most
 * `widest - 1` bytes before it and reach it (a binary search finds the
 * first); in each, the last write before the time is a binary search.
 */
#ifndef MEMREC_LEAP_WRITES_H
#define MEMREC_LEAP_WRITES_H

#include <stddef.h>
#include <stdint.h>
#include "algo/lmad.h"

/* An LMAD of at most this many points is taken as its writes; a longer
 * one (a loop) stays a box for the solver's closed form. A write costs at
 * most 76 bytes of the index (its entry 32, its time and writer apart 12,
 * a run of its own 32), so an LMAD (160 bytes) at most 7.6 times its own
 * size. One group's index is held at a time (on py.trace, trace-leap's
 * peak memory with --db fell with it, from 378 to 344 MB). */
#define LEAP_WRITES_MAX_POINTS 16

/* One write: size bytes from offset of object, at time, by insn. */
typedef struct leap_write {
    int64_t object, offset, time;
    uint32_t size;              /* 1 or more */
    uint32_t insn;
} leap_write;

/* The writes of one (object, offset, size): entries [begin, end). */
typedef struct leap_write_run {
    int64_t object, offset;
    uint32_t size;
    uint32_t begin, end;
} leap_write_run;

/* The index of one group's short store LMADs. Zero-initialise. */
typedef struct leap_writes {
    leap_write *w;              /* sorted by (object, offset, size, time)
                                 * once leap_writes_sort ran */
    size_t cap;
    uint32_t n;
    leap_write_run *runs;       /* in the same order (leap_writes_sort) */
    size_t cap_runs;
    uint32_t nruns;
    int64_t *time;              /* w's times and writers apart, in w's */
    uint32_t *insn;             /* order: a run's binary search in time
                                 * reads 8 bytes an entry, not 32 */
    size_t cap_time, cap_insn;
    uint32_t widest;            /* the largest size: how far before a byte
                                 * a covering write may start */
} leap_writes;

/* Empties x for another group (keeps its memory). */
void leap_writes_clear(leap_writes *x);

/* Adds every point of m (an LMAD of a stream of (object, offset, time),
 * algo/lmad.h, LEAP's dimensions) as a write of size bytes (0 counts as
 * 1) by insn. 0, or -1 when out of memory. */
int leap_writes_add(leap_writes *x, const lmad *m, uint32_t size, uint32_t insn);

/* Sorts the writes added and lists their runs: call before
 * leap_writes_last. 0, or -1 when out of memory. */
int leap_writes_sort(leap_writes *x);

/* The time of the last write before t that covers byte offset of object,
 * its writer in *insn; -1 (and *insn untouched) when none. */
int64_t leap_writes_last(const leap_writes *x, int64_t object, int64_t offset,
                         int64_t t, uint32_t *insn);

void leap_writes_free(leap_writes *x);

#endif /* MEMREC_LEAP_WRITES_H */
