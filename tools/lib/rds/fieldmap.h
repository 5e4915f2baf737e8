/*
 * fieldmap.h: a hash map from 64-bit keys to 32-bit values that forgets
 * (base/u64map.h never deletes). The RDS profiler keys each pointer field
 * holding an edge by (source node, offset) and must drop it when the field
 * is overwritten or its object freed. Open addressing, linear probing,
 * deletion by backward shift (no tombstones, so probe runs stay short
 * however many fields come and go); memory follows the live keys.
 */
#ifndef MEMREC_RDS_FIELDMAP_H
#define MEMREC_RDS_FIELDMAP_H

#include <stddef.h>
#include <stdint.h>

#define FIELDMAP_NONE UINT32_MAX   /* "absent", never a stored value */

/* One slot: value FIELDMAP_NONE marks it empty. */
typedef struct fieldmap_slot {
    uint64_t key;
    uint32_t value;
} fieldmap_slot;

typedef struct fieldmap {
    fieldmap_slot *slots;
    size_t cap;             /* power of two, or 0 before the first insert */
    size_t count;           /* keys present */
} fieldmap;

void fieldmap_init(fieldmap *m);
void fieldmap_free(fieldmap *m);

/* The value of key, or FIELDMAP_NONE. */
uint32_t fieldmap_get(const fieldmap *m, uint64_t key);

/* Sets key to value (not FIELDMAP_NONE). 0, or -1 when out of memory. */
int fieldmap_put(fieldmap *m, uint64_t key, uint32_t value);

/* Removes key; 1 if it was there, else 0. */
int fieldmap_del(fieldmap *m, uint64_t key);

#endif
