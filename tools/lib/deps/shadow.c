/*
 * shadow.c: paged shadow memory (see shadow.h).
 */
#include <stdlib.h>
#include <string.h>

#include "deps/shadow.h"

void shadow_init(shadow *s)
{
    memset(s, 0, sizeof *s);
    u64map_init(&s->pages);
}

void shadow_free(shadow *s)
{
    for (size_t i = 0; i < s->pages.cap; i++)
        if (s->pages.slots[i].used)
            free(s->pages.slots[i].value);
    u64map_free(&s->pages);
    memset(s, 0, sizeof *s);
}

/* The page of page number pn; made when create is set, else NULL if it
 * was never made (or, with create, when out of memory). */
static uint32_t *page_of(shadow *s, uint64_t pn, int create)
{
    uint32_t c = (uint32_t)(pn % SHADOW_CACHE);
    if (s->cache_key[c] == pn + 1)
        return s->cache_page[c];
    uint32_t *p = u64map_get(&s->pages, pn);
    if (!p && create) {
        int added;
        void **slot = u64map_slot_of(&s->pages, pn, &added);
        if (!slot || !(p = calloc(SHADOW_PAGE, sizeof *p)))
            return NULL;
        *slot = p;
        s->npages++;
    }
    if (p) {
        s->cache_key[c] = pn + 1;
        s->cache_page[c] = p;
    }
    return p;
}

uint32_t shadow_get(shadow *s, uint64_t addr)
{
    uint32_t *p = page_of(s, addr >> SHADOW_PAGE_BITS, 0);
    return p ? p[addr & (SHADOW_PAGE - 1)] : 0;
}

int shadow_set(shadow *s, uint64_t addr, uint32_t size, uint32_t v)
{
    while (size) {
        uint32_t *p = page_of(s, addr >> SHADOW_PAGE_BITS, 1);
        if (!p)
            return -1;
        uint32_t at = (uint32_t)(addr & (SHADOW_PAGE - 1));
        uint32_t n = SHADOW_PAGE - at < size ? SHADOW_PAGE - at : size;
        for (uint32_t i = 0; i < n; i++)
            p[at + i] = v;
        addr += n;
        size -= n;
    }
    return 0;
}

uint64_t shadow_bytes(const shadow *s)
{
    return s->npages * SHADOW_PAGE * sizeof(uint32_t) +
           s->pages.cap * sizeof *s->pages.slots;
}
