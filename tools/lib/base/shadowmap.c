/* shadowmap.c: paged shadow memory; see shadowmap.h. */
#include "base/shadowmap.h"

#include <stdlib.h>

void shadowmap_init(shadowmap *s, size_t elem, unsigned granule_bits, unsigned page_bits)
{
    *s = (shadowmap){ .elem = elem, .granule_bits = granule_bits, .page_bits = page_bits };
}

void shadowmap_free(shadowmap *s)
{
    for (size_t i = 0; i < s->pages.cap; i++)
        if (s->pages.slots[i].used)
            free(s->pages.slots[i].value);
    u64map_free(&s->pages);
    shadowmap_init(s, s->elem, s->granule_bits, s->page_bits);
}

/* Elements per page. */
static size_t per_page(const shadowmap *s)
{
    return (size_t)1 << (s->page_bits - s->granule_bits);
}

void *shadowmap_at(shadowmap *s, uint64_t g, int make)
{
    unsigned shift = s->page_bits - s->granule_bits;
    uint64_t key = g >> shift;
    size_t at = (size_t)(g & (per_page(s) - 1)) * s->elem;
    unsigned c = (unsigned)(key & (SHADOWMAP_CACHE - 1));
    if (s->cache[c].key == key + 1)
        return s->cache[c].page + at;
    char *p = u64map_get(&s->pages, key);
    if (!p && make) {
        int added;
        void **slot = u64map_slot_of(&s->pages, key, &added);
        if (!slot || !(p = calloc(per_page(s), s->elem)))
            return NULL;
        *slot = p;
        s->npages++;
    }
    if (!p)
        return NULL;
    s->cache[c].key = key + 1;
    s->cache[c].page = p;
    return p + at;
}

uint64_t shadowmap_bytes(const shadowmap *s)
{
    return s->npages * per_page(s) * s->elem + s->pages.cap * sizeof(u64map_slot);
}
