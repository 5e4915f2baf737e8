/*
 * u64map.h: a small hash map from 64-bit keys to pointers, for the
 * per-definition caches of trace-info and trace-dump (keyed by the address
 * of an mr_block_def, which the reader keeps stable until it closes) and
 * for sets of thread ids or instruction addresses. Open addressing with
 * linear probing; no deletion (nothing here ever forgets).
 */
#ifndef MEMREC_U64MAP_H
#define MEMREC_U64MAP_H

#include <stddef.h>
#include <stdint.h>

/* One slot. used tells an empty slot from a key 0. */
typedef struct u64map_slot {
    uint64_t key;
    void *value;
    int used;
} u64map_slot;

typedef struct u64map {
    u64map_slot *slots;
    size_t cap;                 /* power of two, or 0 before the first insert */
    size_t count;               /* keys present */
} u64map;

/* An empty map needs no allocation: `u64map m = {0};` works too. */
void u64map_init(u64map *m);

/* Frees the table (not the values: the caller owns them). */
void u64map_free(u64map *m);

/* The value of key, or NULL when key is absent. */
void *u64map_get(const u64map *m, uint64_t key);

/* The value slot of key, inserting key with value NULL if absent;
 * *added tells which. NULL when memory runs out. */
void **u64map_slot_of(u64map *m, uint64_t key, int *added);

/* Adds key to the map used as a set; returns 1 if it was new, 0 if it was
 * there, -1 when memory runs out. */
int u64set_add(u64map *m, uint64_t key);

#endif /* MEMREC_U64MAP_H */
