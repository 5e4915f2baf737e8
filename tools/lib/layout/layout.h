/*
 * layout.h: LWPTool's data layout analyses over a whole trace (Yu et al.,
 * TPDS 2018; docs/trace-layout.md gives every formula, threshold and
 * decision): hot data (Eq. 1), structure splitting (streams, GCD strides,
 * structure size, field offsets, field affinity: Eqs. 2-7) and array
 * regrouping (classification, conflicts, array affinity: Eqs. 8-11), with
 * every access weighted by its latency in the cache model (algo/cache.h),
 * by whether it missed D1, or by one (the frequency-based variant).
 *
 * Passes: the loops come first (stream/cfg.h over the whole trace); then
 * ly_event takes every event again, with streams per (instruction, group)
 * in the instruction's innermost loop and each loop's instances followed
 * (for the time windows of Eq. 10); ly_finish runs the analyses. The
 * predicted gain of the advice is layout/replay.h, a third pass.
 */
#ifndef MEMREC_LAYOUT_H
#define MEMREC_LAYOUT_H

#include <stdint.h>
#include "memrec_trace.h"
#include "algo/cache.h"
#include "objects/objmap.h"
#include "stream/cfg.h"

typedef enum ly_metric {
    LY_LATENCY = 0,     /* the cache model's latency of the serving level */
    LY_MISSES = 1,      /* 1 when D1 missed, else 0 */
    LY_COUNT = 2        /* 1 per access: frequency-based */
} ly_metric;

#define LY_DEFAULT_HOT 0.01        /* l_d for an object to be analysed */
#define LY_DEFAULT_TAU 0.5         /* FA / AA to put two in one cluster */
#define LY_DEFAULT_PRESENCE 0.001  /* share of a field's (array's) weight a
                                    * loop needs to count as touching it */

typedef struct ly_options {
    cache_config cache;         /* checked by the caller */
    ly_metric metric;
    int loads_only;             /* stores (and modifies' stores) unweighted */
    uint64_t sample;            /* 0: every access; N: a random 1 in N
                                 * (geometric gaps of mean N) */
    uint64_t seed;              /* of the sampling */
    double hot, tau, presence;  /* the thresholds above */
    uint32_t group_depth;       /* objmap's */
    const mr_reader *reader;    /* symbols: loops' lines, group names */
} ly_options;

/* A stream: the accesses of one instruction to one group (the loop is the
 * instruction's). Offsets are relative to the accessed object's start. */
typedef struct ly_stream {
    uint32_t insn, group;
    uint64_t pc;
    int32_t loop;               /* innermost loop, -1: none */
    uint64_t n;                 /* accesses (sampled) */
    uint64_t base_off;          /* the first access's offset */
    uint64_t stride;            /* gcd of |offset - base_off|: Eqs. 2-3 */
    uint32_t min_size, max_size;
    uint8_t kind;               /* mr_access_kind of its first access */
    double w;                   /* weight */
    double o_min, o_max;        /* Eq. 9: offset / object size */
    uint64_t t_min, t_max;      /* first and last access time */
    double o_tmin, o_tmax;      /* o of those two accesses */
    uint64_t prev_off, step;    /* the last offset and step: a step seen
                                 * before leaves the stride as it is */
} ly_stream;

/* A field of a structure: the offset streams with a non-unit stride reach
 * (Eq. 6). */
typedef struct ly_field {
    uint64_t offset;
    uint32_t size;              /* widest access to it */
    double w;
    int cluster;                /* proposed structure, 0.. */
    int multi;                  /* an access to it covers another field */
} ly_field;

/* A group analysed for splitting. */
typedef struct ly_struct {
    uint32_t group;
    uint64_t size;              /* Eq. 5; 0 when no stream qualifies */
    uint32_t nfields;
    ly_field *fields;           /* by offset */
    double *fa;                 /* nfields x nfields, Eq. 7 */
    uint32_t nclusters;
    int split;                  /* the advice: split into nclusters */
    int size_mismatch;          /* size does not divide the object size */
} ly_struct;

/* A group considered for regrouping. */
typedef struct ly_array {
    uint32_t group;
    uint64_t elem, memsize, scheme;     /* Eq. 8 */
    int cls;                    /* classification (-1: not classified) */
    int advice;                 /* regrouping it belongs to, -1: none */
} ly_array;

typedef enum ly_conflict_kind { LY_CONFLICT_OFFSET, LY_CONFLICT_TIME,
                                LY_CONFLICT_REVERSE } ly_conflict_kind;
typedef struct ly_conflict {
    uint32_t a, b;              /* indexes into the arrays */
    int32_t loop;
    ly_conflict_kind kind;
} ly_conflict;

/* A group's totals. */
typedef struct ly_group {
    obj_group *g;               /* NULL: never accessed */
    double w;
    uint64_t n, objects, max_size;
    uint64_t first_t, last_t;   /* active time */
    uint64_t life_start, life_end;  /* lifetime (UINT64_MAX: not freed) */
} ly_group;

/* One of the heaviest objects (Eq. 1 per object). */
typedef struct ly_object {
    uint32_t group;
    uint64_t serial, addr, size;
    double w;
    uint64_t n;                 /* accesses weighed */
} ly_object;

#define LY_TOP_OBJECTS 100      /* objects kept, heaviest first */

typedef struct ly_profile ly_profile;

/* g: the trace's loops (kept by the caller while p lives). */
ly_profile *ly_new(const ly_options *opts, const cfg *g);
void ly_free(ly_profile *p);
/* Every event of the trace in order: 0, or -1 when out of memory. */
int ly_event(ly_profile *p, const mr_event *ev);
/* The loops and the analyses: 0, or -1 when out of memory. */
int ly_finish(ly_profile *p);

/* ---- results (after ly_finish) ---- */
const ly_options *ly_opts(const ly_profile *p);
const cfg *ly_cfg(const ly_profile *p);
double ly_total(const ly_profile *p);           /* program weight */
uint64_t ly_accesses(const ly_profile *p);      /* accesses weighed */
uint32_t ly_ngroups(const ly_profile *p);
const ly_group *ly_group_at(const ly_profile *p, uint32_t id);
/* The heaviest objects, heaviest first (at most LY_TOP_OBJECTS). */
uint32_t ly_nobjects(const ly_profile *p);
const ly_object *ly_object_at(const ly_profile *p, uint32_t i);
uint32_t ly_nstreams(const ly_profile *p);
const ly_stream *ly_stream_at(const ly_profile *p, uint32_t i);
uint32_t ly_nstructs(const ly_profile *p);
const ly_struct *ly_struct_at(const ly_profile *p, uint32_t i);
uint32_t ly_narrays(const ly_profile *p);
const ly_array *ly_array_at(const ly_profile *p, uint32_t i);
uint32_t ly_nconflicts(const ly_profile *p);
const ly_conflict *ly_conflict_at(const ly_profile *p, uint32_t i);
/* AA of arrays a and b (Eq. 11), -1 when not computed (other class or
 * conflicting). */
double ly_aa(const ly_profile *p, uint32_t a, uint32_t b);
uint32_t ly_nregroups(const ly_profile *p);
/* The unchanged layout in the cache model: misses of data level k (all
 * accesses, loads and stores) and the total latency of every access. */
uint64_t ly_misses(const ly_profile *p, unsigned k);
double ly_latency(const ly_profile *p);
/* Weight of loop l (-1: outside loops): its own accesses (innermost
 * loop of their instruction). */
double ly_loop_weight(const ly_profile *p, int32_t l);
/* Inclusive weight of loop l: its own, its nested loops', and that of
 * accesses in no loop of a function it called (stream/cfg.h's cfg_ctx);
 * for -1, accesses in no loop at all, even through calls. */
double ly_loop_inclusive(const ly_profile *p, int32_t l);

/* Helpers, exposed for the tests. */
uint64_t ly_gcd(uint64_t a, uint64_t b);
/* Eq. 5 with the extraction's rules: the gcd of the strides of the streams
 * whose stride exceeds their widest access (non-unit, non-zero) and that
 * have at least min_n accesses; 0 when none does. */
uint64_t ly_struct_size(const ly_stream *const *s, uint32_t n, uint64_t min_n);
/* Eqs. 7 and 11: the affinity of every pair of n items, from w[l * n + i],
 * the weight of item i in loop slot l (nl slots; slot 0 is outside every
 * loop and counts only in the denominators): the weight of both items in
 * the loops where both are present (each with at least presence of its
 * total), over both items' totals. aff[a * n + a] is 1. */
void ly_affinity(uint32_t nl, uint32_t n, const double *w, double presence,
                 double *aff);
/* Average-linkage clustering of n items with affinity aff[i*n+j] at
 * threshold tau; forbid[i*n+j] (may be NULL) keeps two items apart.
 * cluster[] gets 0.. numbers in order of the items' first member; returns
 * the count. */
uint32_t ly_cluster(uint32_t n, const double *aff, const uint8_t *forbid,
                    double tau, int *cluster);

#endif /* MEMREC_LAYOUT_H */
