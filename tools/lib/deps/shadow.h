/*
 * shadow.h: shadow memory of 32-bit values per byte of the address space,
 * paged: a 4 KiB page of the program costs 16 KiB, made when first
 * written, so memory stays proportional to the memory the program touched.
 * Pages are found through a hash of page numbers with a small direct-
 * mapped cache in front. Reading an untouched byte gives 0.
 */
#ifndef MEMREC_SHADOW_H
#define MEMREC_SHADOW_H

#include <stdint.h>
#include "base/u64map.h"

#define SHADOW_PAGE_BITS 12
#define SHADOW_PAGE (1u << SHADOW_PAGE_BITS)
#define SHADOW_CACHE 256        /* direct-mapped page cache entries */

typedef struct shadow {
    u64map pages;                   /* page number -> uint32_t[SHADOW_PAGE] */
    uint64_t cache_key[SHADOW_CACHE];   /* page number + 1 (0: empty) */
    uint32_t *cache_page[SHADOW_CACHE];
    uint64_t npages;
} shadow;

void shadow_init(shadow *s);
void shadow_free(shadow *s);

/* The value of byte addr (0 when never set). */
uint32_t shadow_get(shadow *s, uint64_t addr);

/* Sets bytes [addr, addr + size) to v. 0, or -1 when out of memory. */
int shadow_set(shadow *s, uint64_t addr, uint32_t size, uint32_t v);

/* Bytes of memory the pages take. */
uint64_t shadow_bytes(const shadow *s);

#endif /* MEMREC_SHADOW_H */
