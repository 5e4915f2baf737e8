/*
 * shadow.h: paged shadow memory. One element of `elem` bytes per granule
 * of 2^granule_bits bytes of address space, zeroed until written. Pages
 * (2^page_bits bytes of address space each) are made on first write and
 * found through a u64map, behind a small direct-mapped cache of recently
 * used pages, so that a pass over a 64-bit address space costs memory in
 * proportion to what the program touched.
 *
 *     shadow s;
 *     shadow_init(&s, sizeof(cell), 3, 12);        // a cell per 8 bytes
 *     cell *c = shadow_at(&s, addr >> 3, 1);       // NULL: out of memory
 */
#ifndef MEMREC_SHADOW_H
#define MEMREC_SHADOW_H

#include <stddef.h>
#include <stdint.h>
#include "base/u64map.h"

#define SHADOW_CACHE 256        /* pages remembered before the map */

typedef struct shadow {
    u64map pages;               /* page number -> its elements */
    size_t elem;                /* bytes per element */
    unsigned granule_bits;      /* bytes of address space per element: 2^granule_bits */
    unsigned page_bits;         /* bytes of address space per page: 2^page_bits */
    uint64_t npages;
    struct {
        uint64_t key;           /* page number + 1 (0: empty) */
        char *page;
    } cache[SHADOW_CACHE];
} shadow;

void shadow_init(shadow *s, size_t elem, unsigned granule_bits, unsigned page_bits);
void shadow_free(shadow *s);

/* The element of granule g (an address >> granule_bits). Its page is made
 * (zeroed) when make is set; otherwise NULL if it was never made. NULL
 * when out of memory. */
void *shadow_at(shadow *s, uint64_t g, int make);

/* Bytes the pages and the map hold. */
uint64_t shadow_bytes(const shadow *s);

#endif
