/* u64map.c: 64-bit key -> pointer hash map, see u64map.h. */
#include "base/u64map.h"

#include <stdlib.h>

void u64map_init(u64map *m)
{
    m->slots = NULL;
    m->cap = m->count = 0;
}

void u64map_free(u64map *m)
{
    free(m->slots);
    u64map_init(m);
}

/* A 64-bit mix (the finaliser of MurmurHash3) so that aligned pointers and
 * sequential ids spread over the table. */
static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* The slot holding key, or the empty slot where it would go. */
static u64map_slot *find(const u64map *m, uint64_t key)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)mix(key) & mask;
    while (m->slots[i].used && m->slots[i].key != key)
        i = (i + 1) & mask;
    return &m->slots[i];
}

void *u64map_get(const u64map *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    u64map_slot *s = find(m, key);
    return s->used ? s->value : NULL;
}

/* Doubles the table (or makes the first one). 0 or -1. */
static int grow(u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    u64map_slot *old = m->slots;
    size_t oldcap = m->cap;
    u64map_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used)
            *find(m, old[i].key) = old[i];
    free(old);
    return 0;
}

void **u64map_slot_of(u64map *m, uint64_t key, int *added)
{
    /* Keep the load factor at most 1/2 so that probes stay short. */
    if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
        return NULL;
    u64map_slot *s = find(m, key);
    *added = !s->used;
    if (!s->used) {
        s->used = 1;
        s->key = key;
        s->value = NULL;
        m->count++;
    }
    return &s->value;
}

int u64set_add(u64map *m, uint64_t key)
{
    int added;
    return u64map_slot_of(m, key, &added) ? added : -1;
}
