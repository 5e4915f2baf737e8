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
 *
 * The table keeps its values, counts and errors in three arrays, so that
 * the search for a value reads k consecutive words: it runs for every
 * access of every field and instruction.
 */
#ifndef MEMREC_VALUES_TOPVALUES_H
#define MEMREC_VALUES_TOPVALUES_H

#include <stdint.h>

/* One entry, as read out. */
typedef struct topv_entry {
    uint64_t value;
    uint64_t count;         /* times counted, an upper bound */
    uint64_t error;         /* of count: what it inherited on replacement */
} topv_entry;

/* A table of k entries: n of them used; values[k], counts[k], errors[k]
 * follow the header (topv_bytes(k) bytes in all, zeroed = empty). */
typedef struct topv {
    uint32_t n;
    uint32_t last;          /* entry of the last value counted: a field
                             * holding the same value again costs one compare */
    uint64_t w[];
} topv;

static inline uint64_t topv_bytes(uint32_t k)
{
    return sizeof(topv) + 3 * (uint64_t)k * sizeof(uint64_t);
}

/* Counts value (k: the table's entries, at least 1). */
void topv_add_slow(topv *t, uint32_t k, uint64_t value);
static inline void topv_add(topv *t, uint32_t k, uint64_t value)
{
    if (t->n && t->w[t->last] == value) {
        t->w[k + t->last]++;
        return;
    }
    topv_add_slow(t, k, value);
}

/* Entry i (below t->n). */
static inline topv_entry topv_get(const topv *t, uint32_t k, uint32_t i)
{
    return (topv_entry){ t->w[i], t->w[k + i], t->w[2 * k + i] };
}

/* Sorts the used entries by count, highest first (ties: smaller value
 * first), for reports; counting may go on afterwards. */
void topv_sort(topv *t, uint32_t k);

#endif /* MEMREC_VALUES_TOPVALUES_H */
