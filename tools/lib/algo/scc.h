/*
 * scc.h: strongly connected components of a directed graph that grows one
 * edge at a time (Pearce and Kelly, "Online algorithms for topological
 * order and strongly connected components", 2003; used by the RDS
 * profiler of Raman and August, MSP'05, on its static shape graph).
 *
 * The condensation (one node per component) is kept in a topological
 * order. An edge x -> y that agrees with the order costs nothing but its
 * storage. One that goes against it (ord(y) < ord(x)) is handled within
 * the affected region only: a forward search from y over components
 * ordered at most ord(x), a backward search from x over components ordered
 * at least ord(y). When the forward search reaches x, the components both
 * reachable from y and reaching x form a cycle with the new edge: they
 * merge into one. The region is then re-ordered in place (the backward
 * set first, then the merged component, then the forward set, each in its
 * old order) using only the positions it already held: O(d log d) for a
 * region of d components and their edges.
 *
 * Components are sets of a union-find (algo/unionfind.h); every join is
 * reported through the merge callback, so a caller can merge its
 * per-component data (RDS merges instance profiles).
 */
#ifndef MEMREC_SCC_H
#define MEMREC_SCC_H

#include <stdint.h>

/* Called once per join of two components: `into` is the representative
 * of the joined component from now on, `from` stops being one. */
typedef void (*scc_merge_fn)(void *ctx, uint32_t into, uint32_t from);

typedef struct scc scc;

/* An empty graph; merge may be NULL. NULL when out of memory. */
scc *scc_new(scc_merge_fn merge, void *ctx);
void scc_free(scc *g);

/* Makes sure nodes 0 .. n-1 exist (new nodes have no edges). 0 or -1. */
int scc_reserve(scc *g, uint32_t n);

/* Nodes so far. */
uint32_t scc_nodes(const scc *g);

/* Adds the edge from -> to (nodes created as needed). Returns the number
 * of components that joined into one because of it (0: none), or -1 when
 * out of memory (the graph is then unusable). */
int scc_add_edge(scc *g, uint32_t from, uint32_t to);

/* The representative node of node's component. */
uint32_t scc_component(scc *g, uint32_t node);

/* 1 when a and b are in the same component. */
int scc_same(scc *g, uint32_t a, uint32_t b);

/* 1 when node's component holds a cycle: more than one node, or a node
 * with an edge to itself (a lone node is no SCC for the RDS profiler). */
int scc_cyclic(scc *g, uint32_t node);

/* Nodes in node's component. */
uint32_t scc_size(scc *g, uint32_t node);

/* The position of node's component in the topological order: for every
 * edge a -> b between different components, order(a) < order(b). */
uint64_t scc_order(scc *g, uint32_t node);

#endif /* MEMREC_SCC_H */
