/* shadow.c: paged shadow memory; see shadow.h. */
#include "base/shadow.h"

#include <stdlib.h>

void shadow_init(shadow *s, size_t elem, unsigned granule_bits, unsigned page_bits)
{
    *s = (shadow){ .elem = elem, .granule_bits = granule_bits, .page_bits = page_bits };
}

void shadow_free(shadow *s)
{
    for (size_t i = 0; i < s->pages.cap; i++)
        if (s->pages.slots[i].used)
            free(s->pages.slots[i].value);
    u64map_free(&s->pages);
    shadow_init(s, s->elem, s->granule_bits, s->page_bits);
}

/* Elements per page. */
static size_t per_page(const shadow *s)
{
    return (size_t)1 << (s->page_bits - s->granule_bits);
}

void *shadow_at(shadow *s, uint64_t g, int make)
{
    unsigned shift = s->page_bits - s->granule_bits;
    uint64_t key = g >> shift;
    size_t at = (size_t)(g & (per_page(s) - 1)) * s->elem;
    unsigned c = (unsigned)(key & (SHADOW_CACHE - 1));
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

uint64_t shadow_bytes(const shadow *s)
{
    return s->npages * per_page(s) * s->elem + s->pages.cap * sizeof(u64map_slot);
}
