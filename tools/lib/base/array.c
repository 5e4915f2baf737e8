/* array.c: growing arrays by doubling, see array.h. */
#include "base/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int array_grow(void *items, size_t *cap, size_t need, size_t elem,
               size_t min_cap)
{
    void **p = items;
    size_t n = *cap ? *cap : (min_cap ? min_cap : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem)
            return -1;
        n *= 2;
    }
    if (n <= *cap)
        return 0;
    char *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    memset(q + *cap * elem, 0, (n - *cap) * elem);
    *p = q;
    *cap = n;
    return 0;
}
