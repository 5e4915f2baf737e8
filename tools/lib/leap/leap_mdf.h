/*
 * leap_mdf.h: memory dependence frequencies from the LMADs alone (Wu et
 * al., section 4.2.1).
 *
 * A (store, load) pair conflicts on an execution of the load when the
 * store is the last writer, before the load, of the load's first byte:
 * its element covers that byte of the same object (same group, object
 * serial, and offset within [store offset, store offset + store size)),
 * at an earlier time, and no later element of any store does. A load's
 * frequencies therefore add up to at most 1. MDF = conflicts / the load's
 * executions in the sample.
 *
 * The solving: for every element k2 of a load LMAD, each candidate store
 * LMAD (same group, bounding boxes overlapping) gives its last covering
 * element in closed form: the object equation start + k1 * stride = object
 * fixes k1 (or leaves it free when the stride is 0), the offset inequality
 * bounds it to an interval, time order (earlier than the load) and the
 * count bound it from above; the largest k1 left is the store's last
 * write. The latest of the candidates' writes is the last writer. A folded
 * store LMAD (outer levels, algo/lmad.h) is solved level by level from the
 * outermost: the same inequalities on each copy's extent narrow a level's
 * copies to an interval, tried latest first, so a loop nest costs a few
 * steps per level, never an expansion. A store LMAD of a few points
 * (leap_writes.h) is taken as its writes instead, indexed by offset and
 * time: irregular groups are made of them, and their boxes are wide and
 * nearly empty.
 *
 * Summarised streams. What is past a stream's cap is not known element by
 * element, so the sample of a load stream stops at the first time some
 * store stream of its group whose summary's (object, offset) box overlaps
 * the load's own went past its cap: after that, the last writer cannot be
 * told. The load's own summarised part is outside the sample too. The
 * frequencies measured on the sample are those reported for the load
 * (conflicts are scaled to all its executions when stored). A load none
 * of whose sampled points is decided is guessed: its points' answers with
 * the summaries left out (the LMADs' last writer taken, as if the
 * summarised writes were older; kept apart while solving, so one pass
 * does both), counted in `guessed`, not `sampled`.
 */
#ifndef MEMREC_LEAP_MDF_H
#define MEMREC_LEAP_MDF_H

#include <stdint.h>
#include "leap/leap.h"

/* One dependent pair. */
typedef struct leap_dep {
    uint32_t store, load;       /* instruction numbers */
    uint64_t conflicts;         /* in the load's sample */
} leap_dep;

typedef struct leap_mdf {
    leap_dep *deps;             /* sorted by load, then store */
    size_t cap;
    uint32_t n;
    uint64_t *sampled;          /* per instruction: load executions in the
                                 * sample (0 for stores) */
    uint64_t *guessed;          /* per instruction: for a load none of whose
                                 * sampled points was decided, the points
                                 * its guess rests on (else 0) */
    uint32_t ninsns;
} leap_mdf;

/* The frequency of a pair: conflicts over the load's decided points, or
 * over its guessed points when none was decided. */
double leap_mdf_frequency(const leap_mdf *m, const leap_dep *d);

/* Load points solved per load stream by default (leap_mdf_compute). */
#define LEAP_MDF_SAMPLE 1024

/* Solves every load against the stores of its groups: each load stream's
 * points in the sample, all of them when they are at most budget (0: no
 * limit), else a stratified random sample of budget points (the points
 * cut into budget equal strata in stream order, one drawn from each, with
 * a generator seeded by the stream: the same every run). 0, or -1 when
 * out of memory. */
int leap_mdf_compute(const leap *l, uint64_t budget, leap_mdf *out);
void leap_mdf_free(leap_mdf *m);

/* The time of the last point of store LMAD s (accesses of size bytes)
 * written before time t over the first byte of (object, offset), or -1
 * when none. Exposed for the tests. */
int64_t leap_last_write(const lmad *s, uint32_t size, int64_t object,
                        int64_t offset, int64_t t);

#endif /* MEMREC_LEAP_MDF_H */
