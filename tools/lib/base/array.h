/*
 * array.h: the one growable-array idiom. An array is a pointer, a capacity
 * (size_t) and whatever count the owner keeps; ARRAY_FIT makes room for
 * `need` elements by doubling, zeroing the new ones, so that an index can
 * be used as soon as it fits:
 *
 *     if (ARRAY_FIT(t->items, t->cap, id + 1) < 0) return -1;
 *     t->items[id].hits++;
 */
#ifndef MEMREC_ARRAY_H
#define MEMREC_ARRAY_H

#include <stddef.h>

/* Grows *items (elements of elem bytes, *cap of them) to hold at least
 * need, at least doubling (first size: min_cap); new elements are zeroed.
 * 0, or -1 when out of memory (the array is left as it was). */
int array_grow(void *items, size_t *cap, size_t need, size_t elem,
               size_t min_cap);

#define ARRAY_FIT(items, cap, need)                                          \
    ((size_t)(need) <= (cap) ? 0                                              \
                             : array_grow(&(items), &(cap), (size_t)(need),  \
                                          sizeof *(items), 16))

#endif /* MEMREC_ARRAY_H */
