/* deps.c: the last-writer shadow memory of TWPP+ (see deps.h). */
#include "twpp/deps.h"

#include <stdlib.h>

#include "base/shadowmap.h"

#define PAGE_BITS 12                            /* 4 KiB of memory per page */
#define GRANULE_BITS 3                          /* 8-byte granules */

/* The last store into one granule, and the loads it has served there. */
typedef struct granule {
    uint64_t serial;            /* the store's number, from 1; 0: never written */
    uint64_t when;              /* accesses (loads and stores) before that store */
    twpp_instance store;
    uint32_t loads;
} granule;

struct twpp_deps {
    shadowmap mem;              /* a granule per 8 bytes of memory */
    uint64_t serial;            /* stores so far */
    uint64_t accesses;          /* loads and stores so far */
    uint64_t scan_sum, scan_max;    /* accesses between each edge's store and load */
};

twpp_deps *twpp_deps_new(void)
{
    twpp_deps *d = calloc(1, sizeof(twpp_deps));
    if (d)
        shadowmap_init(&d->mem, sizeof(granule), GRANULE_BITS, PAGE_BITS);
    return d;
}

void twpp_deps_free(twpp_deps *d)
{
    if (!d)
        return;
    shadowmap_free(&d->mem);
    free(d);
}

int twpp_deps_store(twpp_deps *d, const twpp_instance *s, uint64_t addr, uint32_t size)
{
    uint64_t serial = ++d->serial, when = d->accesses++;
    uint64_t last = addr + (size ? size - 1 : 0);
    for (uint64_t g = addr >> GRANULE_BITS; g <= last >> GRANULE_BITS; g++) {
        granule *x = shadowmap_at(&d->mem, g, 1);
        if (!x)
            return -1;
        *x = (granule){ serial, when, *s, 0 };
    }
    return 0;
}

int twpp_deps_load(twpp_deps *d, const twpp_instance *l, uint64_t addr, uint32_t size,
                   twpp_edge *edge)
{
    uint64_t last = addr + (size ? size - 1 : 0);
    granule *best = NULL;
    for (uint64_t g = addr >> GRANULE_BITS; g <= last >> GRANULE_BITS; g++) {
        granule *x = shadowmap_at(&d->mem, g, 0);
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
    return shadowmap_bytes(&d->mem);
}
