/*
 * cacheprof.h: trace-cache's analysis. Feeds every event of a trace to a
 * cache hierarchy (algo/cache.h) and, optionally, to an LRU stack-distance
 * counter (algo/stackdist.h), and charges each data access's result (the
 * level that served it, its latency, its stack distance) to its static
 * instruction (stream/insns.h), its object and group (objects/objmap.h)
 * and, for heap and static groups, to its (group, offset).
 *
 * Order. Events are taken one execution at a time in trace order (no
 * batching: the cache state depends on the global order). Within a block
 * execution, when instruction fetches are simulated, instruction i's fetch
 * comes before its data accesses and after instruction i-1's, as in
 * Cachegrind, so that a shared lower level sees both streams interleaved.
 *
 * Per access consumers (RDS edge latency, LWPTool's latency weights) get
 * each data access with its result through on_access, in trace order: that
 * is the library route, for analyses in this process. trace-cache's
 * --per-access prints the same records as a text stream for the shell.
 *
 * Memory: the cache's tags, a record per static instruction, per group,
 * per (group, offset) touched, per object touched (kept after it dies, for
 * the report), and the stack-distance state (proportional to distinct
 * lines). Nothing of the access stream is kept.
 */
#ifndef MEMREC_CACHEPROF_H
#define MEMREC_CACHEPROF_H

#include <stdint.h>
#include "memrec_trace.h"
#include "algo/cache.h"
#include "algo/stackdist.h"
#include "objects/objmap.h"
#include "stream/insns.h"

/* What a set of accesses cost. */
typedef struct cache_counts {
    uint64_t accesses;
    uint64_t misses[CACHE_MAX_LEVELS];  /* accesses that missed data level k */
    uint64_t latency;                   /* cycles, summed over the accesses */
} cache_counts;

/* One data access with its result, for on_access. */
typedef struct cp_access {
    uint64_t time;          /* trace time of its instruction */
    uint32_t tid;
    uint64_t pc;            /* address of the instruction */
    uint32_t insn;          /* instruction number (stream/insns.h) */
    uint64_t addr;
    uint32_t size;
    uint8_t kind;           /* mr_access_kind */
    const obj_object *object;
    uint64_t offset;        /* addr - object->addr */
    unsigned level;         /* level that served it; cache_nlevels: memory */
    uint32_t latency;       /* cycles */
    uint64_t distance;      /* stack distance in lines, SD_COLD, SD_SKIPPED
                             * (not sampled, or no curves asked) */
} cp_access;

typedef void (*cp_access_fn)(void *ctx, const cp_access *a);

typedef struct cacheprof_options {
    cache_config cache;         /* checked by the caller (cache_config_check) */
    int fetches;                /* simulate instruction fetches (needs I1 or
                                 * goes to D1) */
    uint32_t curve_line;        /* line bytes of the stack distances; 0: none */
    double rate;                /* 1: exact curves; < 1: SHARDS rate */
    uint32_t group_depth;       /* objmap's; 0 means 1 */
    uint64_t field_limit;       /* offsets from this one on share one field
                                 * record (arrays and buffers would make one
                                 * per byte touched); 0: no limit */
    const mr_reader *reader;    /* symbols for objmap's allocator frames */
    cp_access_fn on_access;     /* may be NULL */
    void *ctx;
} cacheprof_options;

/* Per static instruction. */
typedef struct cp_insn {
    cache_counts c;
    uint64_t hist[SD_BUCKETS];  /* stack distances, log2 buckets */
} cp_insn;

/* Per group (objmap group id). */
typedef struct cp_group {
    cache_counts c;
    uint64_t hist[SD_BUCKETS];
    uint64_t objects;           /* objects of it that were accessed */
} cp_group;

/* Per (group, offset) of heap and static groups; offset == field_limit
 * holds every offset from the limit on. */
typedef struct cp_field {
    uint32_t group;
    uint64_t offset;
    cache_counts c;
} cp_field;

/* Per object accessed, kept when it dies. */
typedef struct cp_object {
    uint32_t group;
    uint64_t serial, addr, size;
    cache_counts c;
} cp_object;

typedef struct cacheprof cacheprof;

/* NULL when out of memory or the configuration is invalid. */
cacheprof *cp_new(const cacheprof_options *o);
void cp_free(cacheprof *p);

/* Feeds one event. 0, or -1 when out of memory. */
int cp_event(cacheprof *p, const mr_event *ev);

/* Ends the trace: objects still live are recorded. 0 or -1. */
int cp_finish(cacheprof *p);

/* The simulated hierarchy (its counters are the run's totals, fetches
 * included) and the stack distances (NULL without curves). */
const cache_sim *cp_sim(const cacheprof *p);
stackdist *cp_stackdist(const cacheprof *p);

/* All data accesses together. */
const cache_counts *cp_totals(const cacheprof *p);
/* Instructions executed (fetched when fetches are simulated). */
uint64_t cp_instructions(const cacheprof *p);

uint32_t cp_ninsns(const cacheprof *p);
const cp_insn *cp_get_insn(const cacheprof *p, uint32_t i);
const insn_info *cp_insn_def(const cacheprof *p, uint32_t i);

uint32_t cp_ngroups(const cacheprof *p);
const cp_group *cp_get_group(const cacheprof *p, uint32_t id);
const obj_group *cp_group_def(const cacheprof *p, uint32_t id);

uint64_t cp_nfields(const cacheprof *p);
const cp_field *cp_get_field(const cacheprof *p, uint64_t i);

uint64_t cp_nobjects(const cacheprof *p);
const cp_object *cp_get_object(const cacheprof *p, uint64_t i);

/* Miss ratio of a fully associative LRU cache of 2^k lines from a log2
 * histogram (cp_insn.hist, cp_group.hist); -1 when it has no access. */
double cp_hist_miss_ratio(const uint64_t *hist, unsigned k);

#endif /* MEMREC_CACHEPROF_H */
