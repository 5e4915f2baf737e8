/*
 * unionfind.h: disjoint sets over dense ids that grow (union by size with
 * path compression: near-constant amortised time per operation).
 *
 * Ids are 0, 1, 2, ...; uf_add() makes the next one a set of its own. A
 * merge callback lets the caller combine per-set data when two sets join
 * (the RDS profiler merges the profiles of two instances): it is told
 * which root survives and which one is absorbed, so the caller can keep
 * its data in an array indexed by root.
 */
#ifndef MEMREC_UNIONFIND_H
#define MEMREC_UNIONFIND_H

#include <stddef.h>
#include <stdint.h>

/* Called by uf_union() when the sets of roots `into` and `from` join;
 * `into` is the root of the joined set from now on. */
typedef void (*uf_merge_fn)(void *ctx, uint32_t into, uint32_t from);

typedef struct unionfind {
    uint32_t *parent;       /* parent id; a root is its own parent */
    uint32_t *size;         /* members, valid at roots */
    uint32_t n;             /* ids in use */
    size_t cap_parent, cap_size;   /* allocated entries (ARRAY_FIT) */
    uint32_t sets;          /* disjoint sets now */
    uf_merge_fn merge;      /* may be NULL */
    void *ctx;              /* passed to merge */
} unionfind;

/* An empty structure; merge may be NULL. */
void uf_init(unionfind *u, uf_merge_fn merge, void *ctx);
void uf_free(unionfind *u);

/* A new singleton set: its id (the previous count), or UINT32_MAX when
 * out of memory. */
uint32_t uf_add(unionfind *u);

/* Makes sure ids 0 .. n-1 exist (new ones are singletons). 0 or -1. */
int uf_reserve(unionfind *u, uint32_t n);

/* The root of id's set (compresses the path). id must exist. */
uint32_t uf_find(unionfind *u, uint32_t id);

/* Joins the sets of a and b; returns the root of the union. The larger set's
 * root survives (a's on a tie); the callback runs only when two distinct
 * sets join. */
uint32_t uf_union(unionfind *u, uint32_t a, uint32_t b);

/* Makes id a set of its own again, for reuse. Only for the members of a
 * set that is reset whole (none of them is reached again through another
 * id): the RDS profiler recycles the nodes of an instance whose objects
 * are all freed. */
void uf_reset(unionfind *u, uint32_t id);

/* 1 when a and b are in the same set. */
int uf_same(unionfind *u, uint32_t a, uint32_t b);

/* Members of the set holding id. */
uint32_t uf_set_size(unionfind *u, uint32_t id);

#endif /* MEMREC_UNIONFIND_H */
