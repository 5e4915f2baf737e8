/*
 * cache.h: a cache hierarchy simulator, fed one access at a time.
 *
 * The hierarchy. Data accesses go to level 0 (D1), then down levels 1 ..
 * n-1 (L2, L3, ... ; the last is the LL) and then to memory. An optional
 * instruction cache (I1) sits beside D1 and its misses go to level 1, the
 * first shared level (to memory when D1 is the only data level). Every
 * level is set-associative: size, associativity and line size (the set
 * count, size / (assoc * line), must be a power of two; the line sizes must
 * not shrink going down), its own latency and replacement policy (LRU,
 * tree pseudo-LRU, or random with a fixed seed so runs repeat).
 *
 * Writes allocate (a store that misses brings the line in, as a load does);
 * dirtiness and write-back traffic are not modelled: a level's content
 * depends only on the sequence of lines asked of it. A modify (one
 * instruction's read-modify-write of one location) is one access.
 *
 * Inclusion. Non-inclusive by default (a lower level's eviction leaves the
 * upper levels alone, as Cachegrind does). With `inclusive`, a line evicted
 * from level k >= 1 is also removed from every level above it and from I1,
 * so that each level holds a subset of the one below.
 *
 * An access's result is the level that served it: 0 for D1 (or I1), k for
 * level k, n for memory; its latency is that level's latency (a load-to-use
 * latency as in the RDS paper's Table 1, not a sum along the way).
 *
 * Straddling accesses (bytes in more than one line). In the native model
 * every line touched is looked up in D1; the lines that missed go down
 * (each to the next level, and so on), and the access is served by the
 * deepest level any of its lines came from. It counts as one access at
 * D1, and as one access (one miss) at every lower level that at least one
 * of its lines reached (missed).
 *
 * The Cachegrind-compatible model (cache_config.cachegrind) does what
 * Cachegrind 3.19's cg_sim.c does: levels I1, D1 and LL only; LRU with
 * the most recently used line first in each set; a straddling access looks
 * up both lines at a level (both updated) and is one miss if either
 * missed; on an L1 miss the whole access, both lines, goes to LL, even the
 * line that hit in L1; LL is shared by instruction fetches and data and is
 * never inclusive. Data sizes are cut to the smallest line size, as
 * Cachegrind does for its big dirty-helper accesses, so no access spans
 * more than two lines. Callers then feed every executed instruction's fetch
 * (cache_fetch with its address and length) before its data accesses.
 *
 * Speed: the hot path is one set index, a compare against the set's MRU
 * line, and a counter; see bench/cache.sh. Memory: one 64-bit tag per line
 * of every level.
 */
#ifndef MEMREC_CACHE_H
#define MEMREC_CACHE_H

#include <stdint.h>

#define CACHE_MAX_LEVELS 6   /* data levels, D1 included */
#define CACHE_NAME_MAX 16

/* How a level chooses the line to evict. */
typedef enum cache_policy {
    CACHE_LRU = 0,     /* least recently used */
    CACHE_PLRU = 1,    /* tree pseudo-LRU (power-of-two associativity) */
    CACHE_RANDOM = 2   /* uniformly random way, fixed-seed generator */
} cache_policy;

/* The geometry and cost of one level. size 0: the level is absent. */
typedef struct cache_level_config {
    char name[CACHE_NAME_MAX];   /* "D1", "L2", "LL", ... for reports */
    uint64_t size;               /* bytes */
    uint32_t assoc;              /* ways per set */
    uint32_t line;               /* bytes per line, a power of two */
    uint32_t latency;            /* cycles when this level serves an access */
    uint8_t policy;              /* cache_policy */
} cache_level_config;

/* A whole hierarchy. */
typedef struct cache_config {
    cache_level_config i1;       /* instruction cache; size 0: none */
    cache_level_config level[CACHE_MAX_LEVELS];   /* D1, then lower levels */
    uint32_t nlevels;            /* data levels in use, >= 1 */
    uint32_t memory_latency;     /* cycles when memory serves an access */
    int inclusive;               /* back-invalidate on lower evictions */
    int cachegrind;              /* Cachegrind 3.19's conventions (above) */
} cache_config;

/* What an access is, for the counters. */
typedef enum cache_op {
    CACHE_FETCH = 0,   /* instruction fetch (I1) */
    CACHE_READ = 1,    /* load, or modify (Cachegrind counts it as a read) */
    CACHE_WRITE = 2    /* store */
} cache_op;
#define CACHE_NOPS 3

/* Counters of one level, by operation. */
typedef struct cache_level_stats {
    uint64_t accesses[CACHE_NOPS];
    uint64_t misses[CACHE_NOPS];
    uint64_t evictions;          /* valid lines replaced */
    uint64_t back_invalidations; /* lines removed above by inclusion */
} cache_level_stats;

typedef struct cache_sim cache_sim;

/* Checks a configuration: NULL when it can be simulated, else buf, holding
 * a one-line message naming the level and the problem. */
const char *cache_config_check(const cache_config *cfg, char *buf, size_t len);

/* A new, empty (cold) hierarchy. NULL when out of memory or when the
 * configuration fails cache_config_check (check it first for the message). */
cache_sim *cache_new(const cache_config *cfg);
void cache_free(cache_sim *c);

/* Empties every level and clears the counters. */
void cache_reset(cache_sim *c);

/* One data access of size bytes (>= 1) at addr, a load or a store: the
 * level that served it (0 .. nlevels; nlevels is memory). */
unsigned cache_access(cache_sim *c, uint64_t addr, uint32_t size, cache_op op);

/* One instruction fetch of len bytes at addr: the level that served it
 * (0 is I1). Without an I1 the fetch goes to D1 (a unified L1). */
unsigned cache_fetch(cache_sim *c, uint64_t addr, uint32_t len);

/* Latency of a result level (nlevels: memory). */
uint32_t cache_latency(const cache_sim *c, unsigned level);

/* Data levels (memory is level cache_nlevels()). */
unsigned cache_nlevels(const cache_sim *c);

/* The configuration in use. */
const cache_config *cache_get_config(const cache_sim *c);

/* Counters of data level k (k < nlevels; instruction fetches that reached
 * a shared level are counted there under CACHE_FETCH), and of I1. */
const cache_level_stats *cache_stats(const cache_sim *c, unsigned k);
const cache_level_stats *cache_i1_stats(const cache_sim *c);

/* Whether data level k (or I1 when k is -1) holds the line of addr now,
 * without touching the replacement state: for tests and assertions. */
int cache_holds(const cache_sim *c, int k, uint64_t addr);

#endif /* MEMREC_CACHE_H */
