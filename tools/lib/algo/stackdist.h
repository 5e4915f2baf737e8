/*
 * stackdist.h: LRU stack (reuse) distances of one line size, and from them
 * the miss ratio of every fully associative LRU cache size in one pass
 * (Mattson et al., 1970).
 *
 * The distance of an access is the number of distinct other lines touched
 * since the previous access to its line (0: the line again at once); an
 * access hits in a fully associative LRU cache of C lines exactly when its
 * distance is below C. A first access is cold (a miss at every size).
 *
 * How. Each line keeps the time of its last access; the times that are
 * some line's last access are marked in a bitmap, and a Fenwick tree
 * counts the marks of each 64-time word. The distance of an access to a
 * line last seen at p is the number of marks after p (O(log T/64) plus a
 * popcount); then p's mark moves to now. When the time axis fills, the
 * live marks are renumbered 0 .. D-1 in order (D distinct lines) and the
 * axis doubles past them, so memory stays proportional to the distinct
 * lines (a hash slot, a mark and a histogram counter each) whatever the
 * trace length, at an amortised O(1) extra per access.
 *
 * Sampling (SHARDS, Waldspurger et al., FAST 2015, fixed rate). With a
 * rate R < 1 only lines whose hash falls below R * 2^24 are followed; a
 * sampled distance d stands for d / R lines, and each sampled access for
 * 1 / R accesses. The miss ratio uses SHARDS-adj: the expected sample
 * size N * R (N: all accesses offered) is the denominator, which corrects
 * a sample that drew more or fewer accesses than its share. Memory and
 * time shrink by R; the error is measured against exact in
 * tests/unit/test_stackdist.c and bench/cache.sh.
 */
#ifndef MEMREC_STACKDIST_H
#define MEMREC_STACKDIST_H

#include <stdint.h>

#define SD_COLD UINT64_MAX        /* distance of a first access */
#define SD_SKIPPED (UINT64_MAX - 1) /* not sampled */

/* Log2 buckets, for per-group and per-instruction histograms: bucket 0
 * holds distance 0, bucket b >= 1 holds [2^(b-1), 2^b), SD_BUCKET_COLD the
 * cold accesses. The misses of a cache of 2^k lines are the accesses in
 * buckets k+1 and above, cold included: exact at powers of two. */
#define SD_BUCKETS 48
#define SD_BUCKET_COLD (SD_BUCKETS - 1)

static inline unsigned sd_bucket(uint64_t d)
{
    if (d == SD_COLD)
        return SD_BUCKET_COLD;
    unsigned b = d ? 64 - (unsigned)__builtin_clzll(d) : 0;
    return b < SD_BUCKET_COLD ? b : SD_BUCKET_COLD - 1;
}

typedef struct stackdist stackdist;

/* line_bytes: a power of two; rate in (0, 1], 1 for exact. NULL when out
 * of memory or for bad arguments. */
stackdist *sd_new(uint32_t line_bytes, double rate);
void sd_free(stackdist *s);

/* One access of size bytes at addr: its distance in lines (scaled by 1/R
 * when sampling), SD_COLD, or SD_SKIPPED when its line is not sampled.
 * A straddling access touches each of its lines in order and reports the
 * largest distance (cold if any line was). SD_SKIPPED also when memory ran
 * out: sd_failed() then says so. */
uint64_t sd_access(stackdist *s, uint64_t addr, uint32_t size);

int sd_failed(const stackdist *s);

/* Accesses offered, accesses sampled (all when exact), distinct lines
 * followed. */
uint64_t sd_accesses(const stackdist *s);
uint64_t sd_sampled(const stackdist *s);
uint64_t sd_distinct(const stackdist *s);
double sd_rate(const stackdist *s);
uint32_t sd_line_bytes(const stackdist *s);

/* Miss ratio (0..1) of a fully associative LRU cache of `lines` lines over
 * every access offered so far (an estimate when sampling). O(1) after the
 * first call following new accesses (which sums the histogram once). */
double sd_miss_ratio(stackdist *s, uint64_t lines);

/* The largest cache size, in lines, the curve can tell apart from an
 * infinite one: the distinct lines, scaled by 1/R when sampling. */
uint64_t sd_max_lines(const stackdist *s);

#endif /* MEMREC_STACKDIST_H */
