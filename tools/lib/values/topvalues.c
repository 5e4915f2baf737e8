/* topvalues.c: Space-Saving's table; see topvalues.h. */
#include "values/topvalues.h"

#include <stdlib.h>

void topv_add_slow(topv *t, uint32_t k, uint64_t value)
{
    uint32_t min = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->e[i].value == value) {
            t->e[i].count++;
            t->last = i;
            return;
        }
        if (t->e[i].count < t->e[min].count)
            min = i;
    }
    if (t->n < k) {                     /* a free entry */
        t->e[t->n] = (topv_entry){ value, 1, 0 };
        t->last = t->n++;
        return;
    }
    /* full: the least counted entry goes, its count becomes the error */
    t->e[min].error = t->e[min].count;
    t->e[min].value = value;
    t->e[min].count++;
    t->last = min;
}

static int by_count(const void *a, const void *b)
{
    const topv_entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

void topv_sort(topv *t)
{
    qsort(t->e, t->n, sizeof *t->e, by_count);
    t->last = 0;
}
