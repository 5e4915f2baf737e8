/*
 * shadow.h: shadow memory of 32-bit values per byte of the address space,
 * paged: a 4 KiB page of the program costs 16 KiB, made when first
 * written, so memory stays proportional to the memory the program touched.
 * Pages are found through a three-level radix tree over the 48-bit
 * address (14, 11 and 11 bits: three dependent loads, no hashing; the
 * tables are made as pages appear), with the last page found kept in
 * front. Addresses above 2^48 (none on x86-64 user space) go to a hash.
 * Reading an untouched byte gives 0. Pages are cut from 2 MiB chunks that
 * the kernel is asked to back with huge pages: a random access then costs
 * its cache miss, seldom a TLB miss as well.
 */
#ifndef MEMREC_SHADOW_H
#define MEMREC_SHADOW_H

#include <stdint.h>
#include "base/u64map.h"

#define SHADOW_PAGE_BITS 12
#define SHADOW_PAGE (1u << SHADOW_PAGE_BITS)
#define SHADOW_L1_BITS 14       /* address bits 47..34 */
#define SHADOW_L2_BITS 11       /* bits 33..23 */
#define SHADOW_L3_BITS 11       /* bits 22..12 */

typedef struct shadow {
    void **l1;                      /* [1 << L1] -> void *[1 << L2] ->
                                     * uint32_t *[1 << L3] -> page */
    u64map high;                    /* page number -> page, above 2^48 */
    uint64_t last_pn;               /* page number + 1 of last_page (0: none) */
    uint32_t *last_page;
    uint64_t npages, table_bytes;   /* for shadow_bytes */
    char *chunk;                    /* the chunk pages are cut from */
    uint32_t chunk_left;            /* pages still free in it */
    void **chunks;                  /* every chunk, to unmap */
    size_t nchunks, cap_chunks;
} shadow;

void shadow_init(shadow *s);
void shadow_free(shadow *s);

/* The value of byte addr (0 when never set). */
uint32_t shadow_get(shadow *s, uint64_t addr);

/* Asks the cache for byte addr's value, to be read or set a little later
 * (a random access's shadow is a cache miss: issued early, several
 * overlap). Makes nothing; a hint only. */
void shadow_prefetch(const shadow *s, uint64_t addr);

/* Sets bytes [addr, addr + size) to v. 0, or -1 when out of memory. */
int shadow_set(shadow *s, uint64_t addr, uint32_t size, uint32_t v);

/* Bytes of memory the pages and tables take. */
uint64_t shadow_bytes(const shadow *s);

#endif /* MEMREC_SHADOW_H */
