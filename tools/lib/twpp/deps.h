/*
 * deps.h: TWPP+'s exact dependence pass (seed 001, section 4.1, step 1):
 * one edge per dynamic load, to the store instance that last wrote what
 * it read, over a last-writer shadow memory.
 *
 * An instance is <G, FC, BC>: the access point (a static memory
 * instruction, numbered globally), the call instance of its function
 * (the function's FC-th call, from 1) and the instance of its block
 * within that call (from 1); the caller supplies them. An edge is
 * [<G0,FC0,BC0>, <G1,FC1,BC1>, SN]: the load, the store, and SN = this
 * load is the SN-th load from that store instance at that location.
 *
 * Granule: 8 aligned bytes. A store writes its instance into every
 * granule it touches; a load depends on the most recent store among the
 * granules it touches, and SN counts loads per (store instance, granule),
 * as the dissertation's word-granular model does. Memory never written
 * (initialised data, the kernel's writes) gives no edge. The shadow is
 * paged: 4 KiB of memory per page, pages made at first touch.
 */
#ifndef MEMREC_TWPP_DEPS_H
#define MEMREC_TWPP_DEPS_H

#include <stdint.h>

/* One dynamic access: <G, FC, BC>. */
typedef struct twpp_instance {
    uint32_t point, fc, bc;
} twpp_instance;

/* A dependence edge. */
typedef struct twpp_edge {
    twpp_instance load, store;
    uint32_t sn;
} twpp_edge;

typedef struct twpp_deps twpp_deps;

twpp_deps *twpp_deps_new(void);
void twpp_deps_free(twpp_deps *d);

/* A store of size bytes at addr. 0, or -1 when out of memory. */
int twpp_deps_store(twpp_deps *d, const twpp_instance *s, uint64_t addr, uint32_t size);

/* A load of size bytes at addr: 1 and *edge when some store wrote what it
 * reads, 0 when none did, -1 when out of memory. */
int twpp_deps_load(twpp_deps *d, const twpp_instance *l, uint64_t addr, uint32_t size,
                   twpp_edge *edge);

/* Over the edges so far: the sum and the maximum of the accesses (loads
 * and stores, as called) from the store to the load, the load included,
 * i.e. the items a backward scan of the raw trace's addresses reads to
 * find the store (Table 4.7's raw column). */
void twpp_deps_scan(const twpp_deps *d, uint64_t *sum, uint64_t *max);

/* Bytes the shadow memory holds. */
uint64_t twpp_deps_bytes(const twpp_deps *d);

#endif
