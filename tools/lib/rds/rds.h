/*
 * rds.h: the profile builder of Raman and August's recursive data
 * structure profiler (MSP'05, sections 3 and 4), fed with the three events
 * of its OID manager: edge_add (here rds_store, which also removes the
 * edge a field held before), edge_traverse and node_delete.
 *
 * Nodes are heap objects (OIDs: the allocation site as static id, a dense
 * node number as dynamic id), made by the caller when an object first
 * takes part in a pointer. Every edge src -> dst adds the edge site(src)
 * -> site(dst) to the static shape graph (SSG), whose strongly connected
 * components are kept online (algo/scc.h). An SCC with a cycle (two sites
 * or more, or one with an edge to itself) is an RDS type. When both sites
 * of an edge lie in one RDS type the two nodes join one union-find set
 * (algo/unionfind.h): an RDS instance, whose profile is merged on union.
 * Otherwise the edge waits in the queue of its SSG edge and is revisited
 * whenever the SCCs change (Figure 3: edges 0->1 and 0->4 wait there
 * forever, the array's site never joining the tree's SCC).
 *
 * A field (source node, offset) holds one edge: storing into it removes
 * the edge it held (an alteration of the instance for the RSF), a free
 * removes the node's edges both ways and the node leaves its instance's
 * live nodes. Union-find cannot split: an instance whose edges go away
 * stays one instance (as in the paper).
 *
 * Memory: a record per node (heap objects that took part in an edge), per
 * live edge, per SSG edge, per instance (with its RSF intervals and
 * instructions). A freed node that is in no instance is reused at once;
 * the freed nodes of an instance are reused when its last node is freed
 * (union-find cannot take one member out of a set).
 */
#ifndef MEMREC_RDS_H
#define MEMREC_RDS_H

#include <stddef.h>
#include <stdint.h>
#include "base/u64map.h"

#define RDS_NONE UINT32_MAX       /* no node, no instance, no instruction */
#define RDS_DEFAULT_THRESHOLD 0.99 /* the paper's t for the RSF */

/* Which event an instruction of an instance took part in. */
enum rds_role { RDS_CREATE = 0, RDS_TRAVERSE = 1, RDS_DELETE = 2 };

/* An instruction (store, load) or free call site of an instance, with how
 * often it acted on it. `where` is an instruction number for create and
 * traverse, a call-site address for delete. */
typedef struct rds_insn {
    uint64_t where;
    uint64_t count;
    uint8_t role;             /* rds_role */
} rds_insn;

/* The profile of one instance: an RDS union-find set. */
typedef struct rds_instance {
    uint32_t id;              /* dense, in order of creation (first union) */
    uint32_t merged_into;     /* RDS_NONE, or the instance that absorbed it */
    uint32_t site;            /* a member's site, for the type */
    uint32_t dead_head, dead_tail; /* its freed nodes, recycled when the
                                    * last one goes */
    uint64_t nodes;           /* objects that ever joined */
    uint64_t live_nodes;      /* of those, not freed */
    uint64_t edges;           /* edges ever added within it */
    uint64_t forward_edges;   /* source allocated before the destination */
    uint64_t backward_edges;  /* source allocated after it */
    uint64_t live_edges;      /* edges within it now */
    uint64_t traversals;      /* pointer-chasing loads along its edges */
    uint64_t latency;         /* cycles of those loads (the cache model) */
    uint64_t depth_steps;     /* successive traversals u->v, v->w */
    uint64_t breadth_steps;   /* successive traversals u->v, u->w */
    uint64_t birth;           /* allocation time of its first node */
    uint64_t last_traversal;  /* time of its last traversal (0: none) */
    uint64_t last_change;     /* time of its last edge added or removed */
    uint64_t death;           /* time its last live node was freed (0: alive) */
    uint32_t last_src, last_dst;   /* the previous traversal */
    uint64_t current;         /* traversals since the last alteration */
    u64map intervals;         /* closed intervals: traversals in one (> 0)
                              * -> how many intervals had that many (as
                              * uintptr_t): exact, and small however many
                              * alterations there are */
    uint64_t nintervals;      /* closed intervals with traversals */
    rds_insn *insns;          /* instructions acting on it */
    size_t ninsns, cap_insns;
    uint64_t rsf;             /* set by rds_finish (0: never traversed) */
} rds_instance;

typedef struct rds rds;

/* An empty profile; threshold is the RSF's t in (0, 1]. NULL when out of
 * memory. */
rds *rds_new(double threshold);
void rds_free(rds *p);

/* A new node of allocation site `site` allocated at alloc_time: its
 * number, or RDS_NONE when out of memory. */
uint32_t rds_node_new(rds *p, uint32_t site, uint64_t alloc_time);

/* Whether node holds an edge in some field now (a store into it may
 * remove one): the caller's fast test before rds_store with no pointer. */
int rds_node_has_edges(const rds *p, uint32_t node);

/* Whether node is in an instance now (then until it is freed). */
int rds_node_in_instance(rds *p, uint32_t node);

/* A store at time into field `offset` of node src: dst is the node the
 * stored value points into (RDS_NONE: not a pointer to another live heap
 * object). Removes the edge the field held, adds src -> dst (edge_add).
 * insn: the storing instruction. 0, or -1 when out of memory. */
int rds_store(rds *p, uint32_t src, uint64_t offset, uint32_t dst,
              uint32_t insn, uint64_t time);

/* A load at time read a pointer from node src to node dst (edge_traverse)
 * that cost `latency` cycles: counted for their instance when both lie in
 * one. 0, or -1 when out of memory. */
int rds_traverse(rds *p, uint32_t src, uint32_t dst, uint32_t insn,
                 uint32_t latency, uint64_t time);

/* Node freed at time by the call at site_addr (node_delete). 0 or -1. */
int rds_node_delete(rds *p, uint32_t node, uint64_t site_addr, uint64_t time);

/* Ends the profile: closes every instance's RSF. 0 or -1. */
int rds_finish(rds *p);

/* Instances, including those absorbed by others (merged_into set). */
size_t rds_ninstances(const rds *p);
const rds_instance *rds_get_instance(const rds *p, size_t i);

/* The RDS type of a live (not absorbed) instance: the representative site
 * of its SCC. */
uint32_t rds_instance_type(rds *p, const rds_instance *in);

/* The SSG's SCC representative of site, and whether that SCC is an RDS
 * type. */
uint32_t rds_site_component(rds *p, uint32_t site);
int rds_site_cyclic(rds *p, uint32_t site);
/* Sites known to the SSG (0 .. n-1; sites with no edge included). */
uint32_t rds_nsites(const rds *p);

/* Counters for reports and tests. */
typedef struct rds_stats {
    uint64_t nodes;           /* nodes made */
    uint64_t edges_added;     /* edge_add events (a pointer stored anew) */
    uint64_t edges_removed;   /* edges overwritten or freed */
    uint64_t edges_queued;    /* added while their sites were not in one SCC */
    uint64_t edges_dequeued;  /* queued edges that joined an instance later */
    uint64_t traversals;      /* edge_traverse events */
    uint64_t rds_traversals;  /* of those, within an instance */
    uint64_t ssg_edges;       /* edges of the static shape graph */
    uint64_t live_edges;      /* edges now */
} rds_stats;
const rds_stats *rds_get_stats(const rds *p);

/* Intervals of one length, for the RSF. */
typedef struct rds_interval {
    uint64_t length;          /* traversals in each */
    uint64_t count;           /* intervals of that length */
} rds_interval;

/* The RSF of intervals: the fewest of them holding at least t of all
 * traversals (0 for none). Sorts iv (longest first). */
uint64_t rds_rsf_counted(rds_interval *iv, size_t n, double t);

/* The same for plain interval lengths (a[i]: traversals of interval i). 0,
 * or 0 also when out of memory. */
uint64_t rds_rsf(const uint64_t *a, size_t n, double t);

#endif /* MEMREC_RDS_H */
