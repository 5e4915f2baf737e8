/*
 * answer.h: a fact's frequency just before a block of a function, over
 * all its calls: for every unique path (compacted trace under a
 * dictionary) the query <T(n), n>_d at the DBB n holding the block,
 * weighted by the calls that took the path. When the block is not its
 * DBB's first, the blocks before it in the chain act first. With check
 * set, the same counts are also found by walking each path's expanded
 * blocks forward, the plain way, for comparison.
 */
#ifndef MEMREC_DATAFLOW_ANSWER_H
#define MEMREC_DATAFLOW_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "dataflow/fact.h"
#include "dataflow/query.h"
#include "twpp/file.h"

/* The answer over all calls. */
typedef struct df_result {
    uint64_t executions;        /* of the block */
    uint64_t holds, fails, entry;
    uint64_t steps, max_vector; /* the propagation's work (all paths, unweighted) */
    uint32_t paths, queries;    /* paths holding the block; queries run */
    df_answer check;            /* the forward walk's holds, fails, entry */
} df_result;

/* The symbols BLOCK names: a block's address 0xADDR, or FUNCTION:LINE
 * (every symbol whose first instruction is there). A malloc'd array
 * (count in *n), NULL when out of memory. */
uint32_t *df_block_symbols(const twpp_model *m, const char *block, uint32_t *n);

/* Answers fact d just before the executions of the symbols in targets
 * (n of them) in function d->fn of f (its block loaded: as series,
 * twpp_load_function_series, is fastest; check needs it whole,
 * twpp_load_function). 0, or -1 when out of memory. */
int df_answer_at(const twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                 int check, df_result *out);

#endif
