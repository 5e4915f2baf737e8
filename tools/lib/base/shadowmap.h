/*
 * shadowmap.h: paged shadow memory. One element of `elem` bytes per granule
 * of 2^granule_bits bytes of address space, zeroed until written. Pages
 * (2^page_bits bytes of address space each) are made on first write and
 * found through a u64map, behind a small direct-mapped cache of recently
 * used pages, so that a pass over a 64-bit address space costs memory in
 * proportion to what the program touched. (deps/shadow.h is LEAP's exact
 * profiler's own: a 32-bit last writer per byte in a three-level table cut
 * from huge pages, for its speed; it predates this one.)
 *
 *     shadowmap s;
 *     shadowmap_init(&s, sizeof(cell), 3, 12);     // a cell per 8 bytes
 *     cell *c = shadowmap_at(&s, addr >> 3, 1);    // NULL: out of memory
 */
#ifndef MEMREC_SHADOWMAP_H
#define MEMREC_SHADOWMAP_H

#include <stddef.h>
#include <stdint.h>
#include "base/u64map.h"

#define SHADOWMAP_CACHE 256        /* pages remembered before the map */

typedef struct shadowmap {
    u64map pages;               /* page number -> its elements */
    size_t elem;                /* bytes per element */
    unsigned granule_bits;      /* bytes of address space per element: 2^granule_bits */
    unsigned page_bits;         /* bytes of address space per page: 2^page_bits */
    uint64_t npages;
    struct {
        uint64_t key;           /* page number + 1 (0: empty) */
        char *page;
    } cache[SHADOWMAP_CACHE];
} shadowmap;

void shadowmap_init(shadowmap *s, size_t elem, unsigned granule_bits, unsigned page_bits);
void shadowmap_free(shadowmap *s);

/* The element of granule g (an address >> granule_bits). Its page is made
 * (zeroed) when make is set; otherwise NULL if it was never made. NULL
 * when out of memory. */
void *shadowmap_at(shadowmap *s, uint64_t g, int make);

/* Bytes the pages and the map hold. */
uint64_t shadowmap_bytes(const shadowmap *s);

#endif
