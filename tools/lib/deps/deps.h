/*
 * deps.h: the baseline dependence profilers of trace-deps, on raw
 * addresses (docs/trace-deps.md).
 *
 * A (store, load) pair conflicts on an execution of the load when the
 * store is the last writer of the load's first byte before the load (the
 * rule of every method, leap/leap_mdf.h included); a modify reads before
 * it writes. MDF = conflicts / the load's executions.
 *
 *   DEPS_EXACT    the truth: a shadow memory (deps/shadow.h) holds each
 *                 byte's last writer.
 *   DEPS_CONNORS  Connors' instruction-indexed profiler as LEAP's paper
 *                 re-implemented it: a bounded history of the last
 *                 `window` store accesses (address, size, instruction),
 *                 searched newest first by each load; a writer that left
 *                 the window is missed, so it never overestimates.
 */
#ifndef MEMREC_DEPS_H
#define MEMREC_DEPS_H

#include <stdint.h>

typedef enum deps_method { DEPS_EXACT = 0, DEPS_CONNORS = 1 } deps_method;

#define DEPS_DEFAULT_WINDOW 32  /* Connors: stores remembered (as fast
                                 * as trace-leap, bench/leap.sh) */

/* One dependent pair. */
typedef struct deps_pair {
    uint32_t store, load;       /* instruction numbers */
    uint64_t conflicts;
} deps_pair;

typedef struct deps deps;

/* window: Connors' history length (0: the default). NULL when out of
 * memory. */
deps *deps_new(deps_method method, uint32_t window);
void deps_free(deps *d);

/* One access in trace order: instruction insn (dense numbers from 0).
 * The exact method does it a few accesses later (its shadow prefetched
 * meanwhile); deps_pairs does the last ones. 0, or -1 when out of memory
 * (of this access or of one done now). */
int deps_access(deps *d, uint32_t insn, uint8_t kind, uint32_t size,
                uint64_t addr);

/* Executions of insn as a load (0 for a store). */
uint64_t deps_load_executions(const deps *d, uint32_t insn);

/* The dependent pairs, sorted by load then store, into *out (malloc'd, *n
 * entries). 0, or -1 when out of memory. */
int deps_pairs(deps *d, deps_pair **out, uint32_t *n);

/* Bytes the method's state takes (the shadow memory for exact). */
uint64_t deps_memory(const deps *d);

#endif /* MEMREC_DEPS_H */
