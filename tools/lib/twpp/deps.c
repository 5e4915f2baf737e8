/* deps.c: the last-writer shadow memory of TWPP+ (see deps.h). */
#include "twpp/deps.h"

#include <stdlib.h>

#include "base/u64map.h"

#define PAGE_BITS 12                            /* 4 KiB of memory per page */
#define GRANULE_BITS 3                          /* 8-byte granules */
#define GRANULES (1u << (PAGE_BITS - GRANULE_BITS))

/* The last store into one granule, and the loads it has served there. */
typedef struct granule {
    uint64_t serial;            /* the store's number, from 1; 0: never written */
    uint64_t when;              /* accesses (loads and stores) before that store */
    twpp_instance store;
    uint32_t loads;
} granule;

struct twpp_deps {
    u64map pages;               /* address >> PAGE_BITS -> granule[GRANULES] */
    uint64_t serial;            /* stores so far */
    uint64_t accesses;          /* loads and stores so far */
    uint64_t scan_sum, scan_max;    /* accesses between each edge's store and load */
    uint64_t npages;
    uint64_t last_key;          /* a one-page cache before the map */
    granule *last_page;
};

twpp_deps *twpp_deps_new(void)
{
    return calloc(1, sizeof(twpp_deps));
}

void twpp_deps_free(twpp_deps *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->pages.cap; i++)
        if (d->pages.slots[i].used)
            free(d->pages.slots[i].value);
    u64map_free(&d->pages);
    free(d);
}

/* The page of addr; made when make is set (else NULL if absent); NULL
 * when out of memory. */
static granule *page_of(twpp_deps *d, uint64_t addr, int make)
{
    uint64_t key = addr >> PAGE_BITS;
    if (d->last_page && d->last_key == key)
        return d->last_page;
    granule *p = u64map_get(&d->pages, key);
    if (!p && make) {
        int added;
        void **slot = u64map_slot_of(&d->pages, key, &added);
        if (!slot || !(p = calloc(GRANULES, sizeof *p)))
            return NULL;
        *slot = p;
        d->npages++;
    }
    if (p) {
        d->last_key = key;
        d->last_page = p;
    }
    return p;
}

int twpp_deps_store(twpp_deps *d, const twpp_instance *s, uint64_t addr, uint32_t size)
{
    uint64_t serial = ++d->serial, when = d->accesses++;
    uint64_t last = addr + (size ? size - 1 : 0);
    for (uint64_t g = addr >> GRANULE_BITS; g <= last >> GRANULE_BITS; g++) {
        granule *p = page_of(d, g << GRANULE_BITS, 1);
        if (!p)
            return -1;
        p[g & (GRANULES - 1)] = (granule){ serial, when, *s, 0 };
    }
    return 0;
}

int twpp_deps_load(twpp_deps *d, const twpp_instance *l, uint64_t addr, uint32_t size,
                   twpp_edge *edge)
{
    uint64_t last = addr + (size ? size - 1 : 0);
    granule *best = NULL;
    for (uint64_t g = addr >> GRANULE_BITS; g <= last >> GRANULE_BITS; g++) {
        granule *p = page_of(d, g << GRANULE_BITS, 0);
        granule *x = p ? &p[g & (GRANULES - 1)] : NULL;
        if (x && x->serial && (!best || x->serial > best->serial))
            best = x;           /* the most recent store among the granules */
    }
    uint64_t now = d->accesses++;
    if (!best)
        return 0;
    d->scan_sum += now - best->when;    /* a backward scan from the load finds the store */
    if (now - best->when > d->scan_max)
        d->scan_max = now - best->when;
    *edge = (twpp_edge){ *l, best->store, ++best->loads };
    return 1;
}

void twpp_deps_scan(const twpp_deps *d, uint64_t *sum, uint64_t *max)
{
    *sum = d->scan_sum;
    *max = d->scan_max;
}

uint64_t twpp_deps_bytes(const twpp_deps *d)
{
    return d->npages * GRANULES * sizeof(granule) + d->pages.cap * sizeof(u64map_slot);
}
