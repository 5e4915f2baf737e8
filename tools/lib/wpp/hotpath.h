/*
 * hotpath.h: Larus's hot subpaths, found on a Sequitur grammar without
 * expanding it ("Whole Program Paths", PLDI 1999, section 4).
 *
 * A subpath is a run of 1 to max_len consecutive symbols of the grammar's
 * expansion; its executions are how often it occurs there (overlapping
 * occurrences count, as in Larus); its cost is length x executions. Every
 * occurrence of a run of two symbols or more belongs to exactly one rule
 * occurrence: the lowest whose expansion holds it and no single body symbol
 * of which does. So each rule is visited once: its body is written with each
 * referenced rule shortened to its first and last max_len-1 terminals, the
 * runs that cross a boundary between body symbols are counted, weighted by
 * how many times the rule occurs in the expansion. The work is
 * O(grammar symbols x max_len^2), whatever the length of the expansion.
 */
#ifndef MEMREC_HOTPATH_H
#define MEMREC_HOTPATH_H

#include <stddef.h>
#include <stdint.h>

#include "algo/sequitur.h"

#define HOT_MAX_LEN 32

/* One subpath and its counts. */
typedef struct hot_path {
    uint32_t length;                /* symbols, 1 .. max_len */
    uint64_t executions;            /* occurrences in the expansion */
    uint64_t cost;                  /* length x executions (saturating) */
    uint64_t symbols[HOT_MAX_LEN];  /* the terminals, in order */
} hot_path;

/* Every subpath of g's rule 0 expansion of length 1 .. max_len (at most
 * HOT_MAX_LEN) whose cost is at least min_cost, most costly first (then
 * longest, then by symbols), at most limit of them. *out is malloc'd (free
 * it); *n its count. 0, or -1 on bad arguments or no memory. */
int hot_paths(const sq_grammar *g, uint32_t max_len, uint64_t min_cost,
              size_t limit, hot_path **out, size_t *n);

#endif /* MEMREC_HOTPATH_H */
