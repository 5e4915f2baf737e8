/*
 * dump_map.h: a small hash map from 64-bit keys to pointers, for the
 * per-definition caches of trace-info and trace-dump (keyed by the address
 * of an mr_block_def, which the reader keeps stable until it closes) and
 * for sets of thread ids or instruction addresses. Open addressing with
 * linear probing; no deletion (nothing here ever forgets).
 */
#ifndef MEMREC_DUMP_MAP_H
#define MEMREC_DUMP_MAP_H

#include <stddef.h>
#include <stdint.h>

/* One slot. used tells an empty slot from a key 0. */
typedef struct dump_map_slot {
    uint64_t key;
    void *value;
    int used;
} dump_map_slot;

typedef struct dump_map {
    dump_map_slot *slots;
    size_t cap;                 /* power of two, or 0 before the first insert */
    size_t count;               /* keys present */
} dump_map;

/* An empty map needs no allocation: `dump_map m = {0};` works too. */
void dump_map_init(dump_map *m);

/* Frees the table (not the values: the caller owns them). */
void dump_map_free(dump_map *m);

/* The value of key, or NULL when key is absent. */
void *dump_map_get(const dump_map *m, uint64_t key);

/* The value slot of key, inserting key with value NULL if absent;
 * *added tells which. NULL when memory runs out. */
void **dump_map_slot_of(dump_map *m, uint64_t key, int *added);

/* Adds key to the map used as a set; returns 1 if it was new, 0 if it was
 * there, -1 when memory runs out. */
int dump_set_add(dump_map *m, uint64_t key);

#endif /* MEMREC_DUMP_MAP_H */
