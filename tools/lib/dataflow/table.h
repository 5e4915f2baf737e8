/*
 * table.h: Table 5.1 of seed 001 for one function of a .twpp file: the
 * static flow graph against the cumulative dynamic ones, and the average
 * size of a node's timestamp vector compacted (series entries) and not
 * (timestamps).
 *
 * The static graph is the blocks and block-to-block edges the function
 * ran at least once (the recording has no static CFG: blocks that never
 * ran are not known), found from every unique path's DBB chains and the
 * edges between DBBs, without expanding the traces. The dynamic graphs
 * are one per compacted trace (the nodes are its DBBs), summed.
 */
#ifndef MEMREC_DATAFLOW_TABLE_H
#define MEMREC_DATAFLOW_TABLE_H

#include <stdint.h>

#include "twpp/twpp.h"

/* One function's figures (or a sum of them). */
typedef struct df_table_row {
    uint64_t static_nodes, static_edges;
    uint64_t dynamic_nodes, dynamic_edges;
    uint64_t entries;           /* series entries over all dynamic nodes */
    uint64_t timestamps;        /* timestamps over all dynamic nodes */
} df_table_row;

/* The figures of function fn (its block loaded) of a model with nsymbols
 * symbols. 0, or -1 when out of memory. */
int df_table_function(const twpp_function *fn, uint32_t nsymbols, df_table_row *out);

/* Adds b into a. */
void df_table_add(df_table_row *a, const df_table_row *b);

/* A dictionary's chain of DBB dbb: its blocks in *chain (count *n); a DBB
 * not in the dictionary is its one block (*chain = &dbb's copy in one). */
void df_dict_chain(const twpp_seq *dict, uint32_t dbb, const uint32_t **chain, uint32_t *n,
                   uint32_t *one);

#endif
