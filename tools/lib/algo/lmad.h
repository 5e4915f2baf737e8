/*
 * lmad.h: linear memory access descriptors (LMADs), the linear compressor
 * of LEAP (Wu et al., "Exposing memory access regularities using
 * object-relative memory profiling", section 4.1).
 *
 * A stream of n-dimensional integer points (for LEAP: object, offset,
 * time) is cut greedily into LMADs [start, stride, count]: start and
 * stride are n-vectors and the LMAD stands for the points
 * start + k * stride, k = 0 .. count - 1. A new point extends the current
 * LMAD when it continues it: any point continues an LMAD of one point (it
 * fixes the stride), and a longer one when it equals start + count *
 * stride. Otherwise the point starts a new LMAD. The paper's offset stream
 * 0, 8, ..., 80, 4, 8, ..., 36 comes out as [0,8,11] [4,4,9]: the paper
 * prints [0,8,10], but 0 to 80 by 8 is eleven points and its second LMAD
 * counts points (4 to 36 by 4 is nine), so count here is always the number
 * of points.
 *
 * Folding (the multi-dimensional LMADs of Paek, Hoeflinger and Padua, the
 * paper's reference [9]): a loop nest makes one LMAD per run of its inner
 * loop, all of one shape, each a constant distance after the one before.
 * When an LMAD is finished (a point starts the next one), it is folded into
 * the LMAD before it if it repeats that one's shape: two LMADs of the same
 * shape become one with an outer level [distance, 2], and an LMAD of the
 * shape below an outer level that starts where that level's next copy
 * would start adds one to the level's count. An LMAD then stands for the
 * points start + k0 * stride + k1 * outer[0].stride + ..., every k below
 * its count, in that order (k0 fastest), which is the order of the stream.
 * A 3-deep loop nest repeated by a fourth loop is one LMAD.
 *
 * At most `max` LMADs are kept per stream. The points after the cap are
 * not kept: they are summarised, per dimension, by their minimum, maximum
 * and granularity (the greatest common divisor of their distances from the
 * first summarised point), with their number. They are the part of the
 * stream the LMADs did not capture.
 */
#ifndef MEMREC_LMAD_H
#define MEMREC_LMAD_H

#include <stddef.h>
#include <stdint.h>

#define LMAD_MAX_DIMS 3         /* dimensions a stream may have: LEAP's
                                 * three (4 made every LMAD 200 bytes, not
                                 * 160: trace-leap on the stencil 40 10 touched
                                 * 270 pages more and ran 2% longer) */
#define LMAD_DEFAULT_MAX 30     /* the paper's cap per stream */
#define LMAD_MAX_OUTER 3        /* outer levels an LMAD may have */

/* An outer level: the levels below it repeated count times, each copy
 * stride further. */
typedef struct lmad_level {
    int64_t stride[LMAD_MAX_DIMS];
    uint64_t count;             /* 2 or more */
} lmad_level;

/* One descriptor: the points start + k * stride, 0 <= k < count, repeated
 * by its outer levels (none for the paper's [start, stride, count]). */
typedef struct lmad {
    int64_t start[LMAD_MAX_DIMS];
    int64_t stride[LMAD_MAX_DIMS];  /* 0 while count is 1 */
    uint64_t count;                 /* points of the innermost level */
    uint32_t nouter;                /* outer levels in use */
    lmad_level outer[LMAD_MAX_OUTER];  /* innermost first */
} lmad;

/* What is known of the points past the cap. */
typedef struct lmad_summary {
    uint64_t count;                 /* points summarised (0: none) */
    int64_t first[LMAD_MAX_DIMS];   /* the first of them */
    int64_t min[LMAD_MAX_DIMS];
    int64_t max[LMAD_MAX_DIMS];
    uint64_t gran[LMAD_MAX_DIMS];   /* gcd of |point - first|; 0 when all
                                     * points agree in that dimension */
} lmad_summary;

/* A compressed stream. Zero-initialise, then lmad_stream_init(). */
typedef struct lmad_stream {
    uint32_t ndims;         /* 1 .. LMAD_MAX_DIMS */
    uint32_t max;           /* the cap */
    uint32_t n;             /* LMADs in use */
    lmad *lmads;            /* grown up to max as needed */
    size_t cap;             /* allocated entries of lmads */
    lmad_summary over;      /* the points past the cap */
} lmad_stream;

/* Prepares s for points of ndims dimensions and at most max LMADs (0 means
 * LMAD_DEFAULT_MAX). Allocates nothing. */
void lmad_stream_init(lmad_stream *s, uint32_t ndims, uint32_t max);

/* Frees the LMADs (s can be initialised again). */
void lmad_stream_free(lmad_stream *s);

/* Appends one point (ndims values). 0, or -1 when out of memory (the
 * point is then counted in the summary, so totals stay right). */
int lmad_add(lmad_stream *s, const int64_t *point);

/* Appends the n points point + k * step, k = 0 .. n-1, with the result of
 * n lmad_add() calls, in O(1) once a run continues an LMAD (a loop seen
 * as a batch). 0, or -1 when out of memory. */
int lmad_add_run(lmad_stream *s, const int64_t *point, const int64_t *step,
                 uint64_t n);

/* The stream has ended: folds its last LMAD if it can (points may still
 * be added after it). */
void lmad_finish(lmad_stream *s);

/* Points given so far, and those the LMADs hold. */
uint64_t lmad_total(const lmad_stream *s);
uint64_t lmad_captured(const lmad_stream *s);

/* Point k of l's innermost level (its first copy) in dimension d. */
static inline int64_t lmad_at(const lmad *l, uint32_t d, uint64_t k)
{
    /* Unsigned arithmetic: wraps instead of overflowing, as addresses do. */
    return (int64_t)((uint64_t)l->start[d] + k * (uint64_t)l->stride[d]);
}

/* The points l stands for (count times its outer levels' counts). */
uint64_t lmad_points(const lmad *l);

/* Point number idx of l, in stream order, into p (ndims values). */
void lmad_point(const lmad *l, uint32_t ndims, uint64_t idx, int64_t *p);

/* The value of l's last point in dimension d. */
int64_t lmad_last(const lmad *l, uint32_t d);

/* The smallest and largest value of l's points in dimension d, over the
 * levels below `levels` (0: the innermost only; l->nouter + 1: all). */
void lmad_extent(const lmad *l, uint32_t d, uint32_t levels, int64_t *min,
                 int64_t *max);

/* How many of l's points come before the first whose value in dimension d
 * is v or more, for a dimension that grows along the stream (LEAP's
 * time). */
uint64_t lmad_points_before(const lmad *l, uint32_t d, int64_t v);

#endif /* MEMREC_LMAD_H */
