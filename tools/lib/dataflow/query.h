/*
 * query.h: profile-limited, demand-driven data-flow queries <T, n>_d
 * (seed 001, section 5.2.2) on a timestamp-annotated dynamic CFG: does
 * fact d hold just before n's executions at the timestamps in T? The
 * vector T is moved backwards a whole series at a time: T - 1 is matched
 * against each predecessor's entries (series intersected, split where
 * only part matches); at a predecessor that generates d the matched
 * timestamps resolve true, at one that kills it false, elsewhere they
 * go on. A timestamp that reaches the function's entry unresolved is
 * counted apart (the fact then depends on the caller: only
 * intraprocedural paths are followed, as in the dissertation).
 */
#ifndef MEMREC_DATAFLOW_QUERY_H
#define MEMREC_DATAFLOW_QUERY_H

#include <stdint.h>

#include "dataflow/series.h"
#include "dataflow/tscfg.h"

/* What one node does to the fact, for all its executions or for some. */
typedef enum df_effect {
    DF_NONE = 0,                /* transparent */
    DF_GEN,                     /* generates d at every execution */
    DF_KILL,                    /* kills d at every execution */
    DF_MIXED                    /* DGEN and DKILL given as timestamp lists */
} df_effect;

/* The fact's dynamic GEN and KILL sets on one CFG: per node an effect,
 * and for DF_MIXED nodes the timestamps (increasing) that generate and
 * that kill (the rest are transparent). */
typedef struct df_fact {
    uint8_t *effect;            /* per node */
    uint32_t **gen, **kill;     /* per DF_MIXED node: sorted timestamps */
    uint32_t *ngen, *nkill;
} df_fact;

/* The answer: timestamps of T for which d holds, does not, or is decided
 * before the call (reached the entry unresolved). */
typedef struct df_answer {
    uint64_t holds, fails, entry;
    uint64_t steps;             /* series moved one step back */
    uint64_t max_vector;        /* the most series pending at once */
} df_answer;

/* Answers <T, n>_d for the series T (subsets of node n's entries; NULL:
 * all of T(n)) given the effect of the part of n before the query point
 * (DF_NONE when the point is n's start; DF_GEN or DF_KILL answer every
 * timestamp at once). A light graph's node_at is made here when the
 * walk first needs it (df_cfg_fill_node_at). 0, or -1 when out of memory. */
int df_query(df_cfg *g, const df_fact *d, uint32_t n, const df_series *t, uint32_t nt,
             df_effect before, df_answer *out);

#endif
