/*
 * unionfind.c: union by size, path compression (see unionfind.h).
 */
#include <stdlib.h>
#include <string.h>

#include "algo/unionfind.h"
#include "base/array.h"

void uf_init(unionfind *u, uf_merge_fn merge, void *ctx)
{
    memset(u, 0, sizeof *u);
    u->merge = merge;
    u->ctx = ctx;
}

void uf_free(unionfind *u)
{
    free(u->parent);
    free(u->size);
    uf_init(u, u->merge, u->ctx);
}

int uf_reserve(unionfind *u, uint32_t n)
{
    if (n <= u->n)
        return 0;
    if (ARRAY_FIT(u->parent, u->cap_parent, n) < 0 ||
        ARRAY_FIT(u->size, u->cap_size, n) < 0)
        return -1;
    for (uint32_t i = u->n; i < n; i++) {
        u->parent[i] = i;
        u->size[i] = 1;
    }
    u->sets += n - u->n;
    u->n = n;
    return 0;
}

uint32_t uf_add(unionfind *u)
{
    if (u->n == UINT32_MAX || uf_reserve(u, u->n + 1) < 0)
        return UINT32_MAX;
    return u->n - 1;
}

uint32_t uf_find(unionfind *u, uint32_t id)
{
    uint32_t root = id;
    while (u->parent[root] != root)
        root = u->parent[root];
    /* Second pass: point every node of the path straight at the root. */
    while (u->parent[id] != root) {
        uint32_t next = u->parent[id];
        u->parent[id] = root;
        id = next;
    }
    return root;
}

uint32_t uf_union(unionfind *u, uint32_t a, uint32_t b)
{
    uint32_t ra = uf_find(u, a), rb = uf_find(u, b);
    if (ra == rb)
        return ra;
    if (u->size[ra] < u->size[rb]) {   /* the smaller tree goes under */
        uint32_t t = ra;
        ra = rb;
        rb = t;
    }
    u->parent[rb] = ra;
    u->size[ra] += u->size[rb];
    u->sets--;
    if (u->merge)
        u->merge(u->ctx, ra, rb);
    return ra;
}

void uf_reset(unionfind *u, uint32_t id)
{
    if (u->parent[id] != id) {
        u->parent[id] = id;
        u->sets++;
    }
    u->size[id] = 1;
}

int uf_same(unionfind *u, uint32_t a, uint32_t b)
{
    return uf_find(u, a) == uf_find(u, b);
}

uint32_t uf_set_size(unionfind *u, uint32_t id)
{
    return u->size[uf_find(u, id)];
}
