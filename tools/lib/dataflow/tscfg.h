/*
 * tscfg.h: the timestamp-annotated dynamic CFG of one compacted path
 * trace (seed 001, section 5.2.1): a node per DBB of the trace, an edge
 * per pair of DBBs that follow each other in it, and on each node the
 * timestamps at which it ran as arithmetic-series entries, exactly as
 * TWPP stores them (twpp/timestamps.h). A point of the trace is (t, n);
 * its predecessor is (t - 1, m) for the one predecessor m of n whose
 * entries hold t - 1.
 */
#ifndef MEMREC_DATAFLOW_TSCFG_H
#define MEMREC_DATAFLOW_TSCFG_H

#include <stdint.h>

#include "dataflow/series.h"
#include "twpp/twpp.h"

/* One DBB of the trace. */
typedef struct df_node {
    uint32_t dbb;               /* its id: the symbol of its first block */
    df_series *ts;              /* T(n): its timestamps as entries, increasing */
    uint32_t nts;
    uint64_t count;             /* timestamps in T(n) (the vector uncompacted) */
    uint32_t *preds;            /* nodes that ran just before it */
    uint32_t npreds;
} df_node;

/* The annotated CFG; nodes in increasing DBB id. */
typedef struct df_cfg {
    df_node *nodes;
    uint32_t n;
    uint64_t nedges;
    uint32_t length;            /* timestamps: the trace's length */
    uint32_t *node_at;          /* timestamp t -> the node that ran at t (t from 1;
                                 * the trace itself, by node): a singleton's
                                 * predecessor without a search (NULL in a
                                 * light graph until a query needs it) */
    df_series *all_ts;          /* storage of every node's entries */
    uint32_t *all_preds;        /* storage of every node's predecessors */
    int light;                  /* made from series with few nodes: no predecessor
                                 * lists, every node is a candidate */
} df_cfg;

/* Builds the annotated CFG of a compacted trace (DBB ids below nsymbols).
 * 0, or -1 when out of memory. */
int df_cfg_build(const twpp_seq *trace, uint32_t nsymbols, df_cfg *g);
void df_cfg_free(df_cfg *g);

/* df_cfg_build with a caller's scratch of nsymbols zeros, given back
 * zeroed: many traces of one function without a scan of every symbol. */
int df_cfg_build_with(const twpp_seq *trace, uint32_t *index, df_cfg *g);

/* Graphs of at most this many nodes are made light from series. */
#define DF_LIGHT_NODES 64

/* The annotated CFG of a trace read as series (twpp_ts_series): nodes
 * and their entries straight from the file; nothing sorted or
 * re-encoded. A trace of few DBBs (DF_LIGHT_NODES) gives a light graph
 * without predecessor lists: a query tries every node as a predecessor
 * (one that is not holds no t - 1 of the node's T, so the answer is the
 * same), and its node_at is made only when a query needs it. A larger
 * trace gets node_at and its predecessors at once. 0, or -1 when out of
 * memory. */
int df_cfg_from_series(const twpp_seq *series, df_cfg *g);

/* Makes node_at from the nodes' entries if not made yet (a store per
 * timestamp). 0, or -1 when out of memory. */
int df_cfg_fill_node_at(df_cfg *g);

/* The node of DBB dbb, or -1 when the trace has none. */
int64_t df_cfg_node(const df_cfg *g, uint32_t dbb);

#endif
