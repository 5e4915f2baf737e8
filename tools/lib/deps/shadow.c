/*
 * shadow.c: paged shadow memory behind a radix tree (see shadow.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/array.h"

#include "deps/shadow.h"

#define L1_SIZE (1u << SHADOW_L1_BITS)
#define L2_SIZE (1u << SHADOW_L2_BITS)
#define L3_SIZE (1u << SHADOW_L3_BITS)
#define LOW_PAGES (1ull << (SHADOW_L1_BITS + SHADOW_L2_BITS + SHADOW_L3_BITS))

void shadow_init(shadow *s)
{
    memset(s, 0, sizeof *s);
    u64map_init(&s->high);
}

#define CHUNK_BYTES (2u << 20)             /* one huge page */
#define CHUNK_PAGES (CHUNK_BYTES / (SHADOW_PAGE * sizeof(uint32_t)))

/* A zeroed shadow page from the current chunk (a new one when it is used
 * up). NULL when out of memory. */
static uint32_t *new_page(shadow *s)
{
    if (!s->chunk_left) {
        if (ARRAY_FIT(s->chunks, s->cap_chunks, s->nchunks + 1) < 0)
            return NULL;
        void *c = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED)
            return NULL;
        madvise(c, CHUNK_BYTES, MADV_HUGEPAGE);     /* a hint: may be refused */
        s->chunks[s->nchunks++] = c;
        s->chunk = c;
        s->chunk_left = CHUNK_PAGES;
    }
    uint32_t *p = (uint32_t *)s->chunk;
    s->chunk += SHADOW_PAGE * sizeof(uint32_t);
    s->chunk_left--;
    s->npages++;
    return p;
}

void shadow_free(shadow *s)
{
    for (uint32_t i = 0; s->l1 && i < L1_SIZE; i++) {
        void **l2 = s->l1[i];
        for (uint32_t j = 0; l2 && j < L2_SIZE; j++) {
            free(l2[j]);        /* the pages are in the chunks */
        }
        free(l2);
    }
    free(s->l1);
    for (size_t i = 0; i < s->nchunks; i++)
        munmap(s->chunks[i], CHUNK_BYTES);
    free(s->chunks);
    u64map_free(&s->high);
    memset(s, 0, sizeof *s);
}

/* *slot, allocated (n pointers, zeroed) if NULL and create is set. */
static void *table(shadow *s, void **slot, size_t n, int create)
{
    if (!*slot && create && (*slot = calloc(n, sizeof(void *))))
        s->table_bytes += n * sizeof(void *);
    return *slot;
}

/* A page above 2^48, from the hash (rare: no cache). */
static uint32_t *high_page(shadow *s, uint64_t pn, int create)
{
    uint32_t *p = u64map_get(&s->high, pn);
    if (p || !create)
        return p;
    int added;
    void **slot = u64map_slot_of(&s->high, pn, &added);
    if (!slot || !(p = new_page(s)))
        return NULL;
    *slot = p;
    return p;
}

/* The page slot of page number pn (below 2^36) in the radix tree. */
static uint32_t **page_slot(shadow *s, uint64_t pn, int create)
{
    void **l1 = table(s, (void **)&s->l1, L1_SIZE, create);
    if (!l1)
        return NULL;
    void **l2 = table(s, &l1[pn >> (SHADOW_L2_BITS + SHADOW_L3_BITS)], L2_SIZE, create);
    if (!l2)
        return NULL;
    uint32_t **l3 = table(s, &l2[(pn >> SHADOW_L3_BITS) & (L2_SIZE - 1)], L3_SIZE, create);
    return l3 ? &l3[pn & (L3_SIZE - 1)] : NULL;
}

/* The page of page number pn; made when create is set, else NULL if it
 * was never made (or, with create, when out of memory). */
static uint32_t *page_of(shadow *s, uint64_t pn, int create)
{
    if (s->last_pn == pn + 1)
        return s->last_page;
    if (pn >= LOW_PAGES)
        return high_page(s, pn, create);
    uint32_t **slot = page_slot(s, pn, create);
    if (!slot)
        return NULL;
    if (!*slot && create && !(*slot = new_page(s)))
        return NULL;
    if (*slot) {
        s->last_pn = pn + 1;
        s->last_page = *slot;
    }
    return *slot;
}

void shadow_prefetch(const shadow *s, uint64_t addr)
{
    uint64_t pn = addr >> SHADOW_PAGE_BITS;
    const uint32_t *p = NULL;
    if (s->last_pn == pn + 1) {
        p = s->last_page;
    } else if (pn < LOW_PAGES && s->l1) {   /* the tree, made nothing, moved
                                             * no cache: a read of it */
        void **l2 = s->l1[pn >> (SHADOW_L2_BITS + SHADOW_L3_BITS)];
        uint32_t **l3 = l2 ? l2[(pn >> SHADOW_L3_BITS) & (L2_SIZE - 1)] : NULL;
        p = l3 ? l3[pn & (L3_SIZE - 1)] : NULL;
    }
    if (p)
        __builtin_prefetch(&p[addr & (SHADOW_PAGE - 1)]);
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
           s->table_bytes +
           s->high.cap * sizeof *s->high.slots;
}
