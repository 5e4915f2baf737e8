/*
 * topvalues.h: the most frequent values of one stream (a field, an
 * instruction) in a table of fixed size, by Metwally, Agrawal and El
 * Abbadi's Space-Saving algorithm: a value already in the table counts one
 * more; a new one takes a free entry, or else replaces the entry with the
 * smallest count and inherits that count (its error) plus one.
 *
 * With k entries and n values counted, every value seen more than n/k
 * times is in the table, and an entry's count overstates its value's
 * frequency by at most its error: count - error is a lower bound. Calder
 * et al.'s TNV table (the dissertation's section 2 background) clears its
 * bottom half at intervals instead; Space-Saving needs no interval to
 * tune and bounds its error, which is why it is used here.
 */
#ifndef MEMREC_VALUES_TOPVALUES_H
#define MEMREC_VALUES_TOPVALUES_H

#include <stdint.h>

/* One entry. */
typedef struct topv_entry {
    uint64_t value;
    uint64_t count;         /* times counted, an upper bound */
    uint64_t error;         /* of count: what it inherited on replacement */
} topv_entry;

/* A table of k entries: n of them used, the entries follow the header
 * (topv_bytes(k) bytes in all, zeroed = empty). */
typedef struct topv {
    uint32_t n;
    uint32_t last;          /* entry of the last value counted: a field
                             * holding the same value again costs one compare */
    topv_entry e[];
} topv;

static inline uint64_t topv_bytes(uint32_t k)
{
    return sizeof(topv) + (uint64_t)k * sizeof(topv_entry);
}

/* Counts value (k: the table's entries, at least 1). */
void topv_add_slow(topv *t, uint32_t k, uint64_t value);
static inline void topv_add(topv *t, uint32_t k, uint64_t value)
{
    if (t->n && t->e[t->last].value == value) {
        t->e[t->last].count++;
        return;
    }
    topv_add_slow(t, k, value);
}

/* Sorts the used entries by count, highest first (ties: smaller value
 * first), for reports; counting may go on afterwards. */
void topv_sort(topv *t);

#endif /* MEMREC_VALUES_TOPVALUES_H */
