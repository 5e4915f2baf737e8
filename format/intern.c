/*
 * intern.c: the two hash tables of the library: a 64-bit key -> pointer map
 * (reader: symbols by address, threads by id) and the writer's string
 * interning table (string -> string id). Open addressing, linear probing,
 * load factor at most 1/2.
 */
#include <stdlib.h>
#include "trace_internal.h"

static inline size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

void *mr_map_get(const mr_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash64(key) & mask;; i = (i + 1) & mask) {
        if (!m->vals[i])
            return NULL;
        if (m->keys[i] == key)
            return m->vals[i];
    }
}

static int map_grow(mr_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = calloc(cap, sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t j = 0; j < m->cap; j++) {
        if (!m->vals[j])
            continue;
        size_t i = hash64(m->keys[j]) & (cap - 1);
        while (vals[i])
            i = (i + 1) & (cap - 1);
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int mr_map_put(mr_map *m, uint64_t key, void *val)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m))
        return -1;
    size_t mask = m->cap - 1;
    size_t i = hash64(key) & mask;
    while (m->vals[i] && m->keys[i] != key)
        i = (i + 1) & mask;
    if (!m->vals[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void mr_map_free(mr_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* FNV-1a: short strings, no need for anything stronger. */
static size_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 0x100000001b3ULL;
    return (size_t)h;
}

static int intern_grow(mr_intern *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    char **strs = calloc(cap, sizeof *strs);
    uint32_t *ids = calloc(cap, sizeof *ids);
    if (!strs || !ids) {
        free(strs);
        free(ids);
        return -1;
    }
    for (size_t j = 0; j < t->cap; j++) {
        if (!t->strs[j])
            continue;
        size_t i = hash_str(t->strs[j]) & (cap - 1);
        while (strs[i])
            i = (i + 1) & (cap - 1);
        strs[i] = t->strs[j];
        ids[i] = t->ids[j];
    }
    free(t->strs);
    free(t->ids);
    t->strs = strs;
    t->ids = ids;
    t->cap = cap;
    return 0;
}

uint32_t mr_intern_get(mr_intern *t, const char *s, int *is_new)
{
    *is_new = 0;
    if (!s)
        return 0;
    if ((t->n + 1) * 2 > t->cap && intern_grow(t))
        return UINT32_MAX;
    size_t mask = t->cap - 1;
    size_t i = hash_str(s) & mask;
    while (t->strs[i]) {
        if (!strcmp(t->strs[i], s))
            return t->ids[i];
        i = (i + 1) & mask;
    }
    char *copy = strdup(s);
    if (!copy)
        return UINT32_MAX;
    t->strs[i] = copy;
    t->ids[i] = (uint32_t)++t->n;
    *is_new = 1;
    return t->ids[i];
}

void mr_intern_free(mr_intern *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->ids);
    memset(t, 0, sizeof *t);
}
