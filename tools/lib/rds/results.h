/*
 * results.h: the RDS profile as the paper's Table 3 reads it, computed
 * once from the builder for the report and the database: the RDS types
 * (SCCs with a cycle that hold instances), numbered densely in order of
 * their first instance, with their allocation sites and totals, and per
 * instance its type, lifetime and traversal pattern.
 *
 * Lifetime (section 5): from the allocation of its first node to its last
 * traversal; an instance never traversed ends at its last change (edge
 * added or removed). Normalised: divided by the run's extent (first to
 * last event time of the trace).
 */
#ifndef MEMREC_RDS_RESULTS_H
#define MEMREC_RDS_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include "rds/rds.h"

/* Traversal pattern: more depth steps (u->v, v->w) than breadth steps
 * (u->v, u->w) reads as depth-first, the reverse as breadth-first. */
enum rds_pattern { RDS_PATTERN_NONE = 0, RDS_PATTERN_DEPTH, RDS_PATTERN_BREADTH };
const char *rds_pattern_name(int pattern);

/* One instance as reported. */
typedef struct rds_inst_view {
    const rds_instance *in;
    uint32_t type;            /* index into rds_results.types */
    uint64_t end;             /* last traversal, or last change */
    uint64_t lifetime;        /* end - birth */
    double norm_lifetime;     /* lifetime / the run's extent, 0 .. 1 */
    double avg_latency;       /* cycles per traversal, 0 without any */
    int pattern;              /* rds_pattern */
} rds_inst_view;

/* One RDS type: totals over its instances. */
typedef struct rds_type_view {
    uint32_t component;       /* the SCC's representative site */
    uint32_t *sites;          /* its sites (object map group ids) */
    size_t nsites;
    uint64_t instances, nodes, edges, forward_edges, backward_edges;
    uint64_t traversals, latency;
    double sum_norm_lifetime; /* for the average */
} rds_type_view;

typedef struct rds_results {
    rds_inst_view *inst;      /* instances not absorbed, by id */
    size_t ninst;
    rds_type_view *types;
    size_t ntypes;
    uint64_t run_start, run_end;
} rds_results;

/* Fills *r from a finished profile. 0, or -1 when out of memory. */
int rds_results_build(rds_results *r, rds *p, uint64_t run_start,
                      uint64_t run_end);
void rds_results_free(rds_results *r);

#endif
