/* topvalues.c: Space-Saving's table; see topvalues.h. */
#include "values/topvalues.h"

#include <stdlib.h>

void topv_add_slow(topv *t, uint32_t k, uint64_t value)
{
    uint64_t *values = t->w, *counts = t->w + k, *errors = t->w + 2 * k;
    uint32_t min = 0;                   /* the least counted entry (the first) */
    for (uint32_t i = 0; i < t->n; i++) {
        if (values[i] == value) {
            counts[i]++;
            t->last = i;
            return;
        }
        min = counts[i] < counts[min] ? i : min;
    }
    if (t->n < k) {                     /* a free entry */
        values[t->n] = value;
        counts[t->n] = 1;
        errors[t->n] = 0;
        t->last = t->n++;
        return;
    }
    /* full: the least counted entry goes, its count becomes the error */
    errors[min] = counts[min];
    values[min] = value;
    counts[min]++;
    t->last = min;
}

static int by_count(const void *a, const void *b)
{
    const topv_entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

void topv_sort(topv *t, uint32_t k)
{
    topv_entry e[t->n ? t->n : 1];
    for (uint32_t i = 0; i < t->n; i++)
        e[i] = topv_get(t, k, i);
    qsort(e, t->n, sizeof *e, by_count);
    for (uint32_t i = 0; i < t->n; i++) {
        t->w[i] = e[i].value;
        t->w[k + i] = e[i].count;
        t->w[2 * k + i] = e[i].error;
    }
    t->last = 0;
}
