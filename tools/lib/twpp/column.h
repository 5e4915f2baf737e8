/*
 * column.h: one dependence column of a load point (edgecode.h) read back
 * from its Sequitur grammar a batch at a time, for twpp/edges.c.
 *
 * Reading a column symbol by symbol (sq_iter_next, then the repeat
 * decoder per value) cost trace-redundancy three quarters of its time.
 * Here the grammar is expanded into a buffer of terminals by a walk that
 * copies small rules whole: the first time a rule of at most
 * TWPP_SMALL_RULE terminals is met its expansion is kept, and every later
 * use is one memcpy. Larger rules are walked, their bodies only. The
 * repeat copies (edgecode.h) are then undone a run at a time into an
 * array of values. Memory stays bounded (a batch of terminals, the small
 * rules' expansions), so a point with millions of edges is read in
 * constant space.
 *
 *     twpp_column c;
 *     twpp_column_init(&c, g);                     // g stays the caller's
 *     while (...) n = twpp_column_values(&c, v, want);   // -1: corrupt
 *     twpp_column_spent(&c)                        // all read, nothing left over?
 *     twpp_column_free(&c);
 */
#ifndef MEMREC_TWPP_COLUMN_H
#define MEMREC_TWPP_COLUMN_H

#include <stddef.h>
#include <stdint.h>

#include "algo/sequitur.h"
#include "twpp/edgecode.h"

#define TWPP_SMALL_RULE 32      /* rules up to this many terminals are copied whole */
#define TWPP_TERM_BATCH 4096    /* terminals expanded per refill */

/* A rule being walked: its body, the next symbol, and where its
 * expansion starts in the terminal buffer when it is a small rule to keep
 * (UINT32_MAX otherwise). */
typedef struct twpp_col_frame {
    const uint64_t *body;
    uint32_t pos, len;
    uint32_t keep_from;
    uint32_t rule;
} twpp_col_frame;

/* One column's reader. */
typedef struct twpp_column {
    const sq_grammar *g;
    twpp_col_frame *stack;      /* the walk (rule 0 at the bottom) */
    size_t depth, cap;
    uint32_t keeping;           /* small rules open to be kept: no batch ends inside one */
    uint32_t *kept;             /* per rule: 1 + offset of its expansion in pool, 0 not yet */
    uint64_t *pool;             /* the small rules' expansions */
    size_t npool, pool_cap;
    uint64_t *term;             /* the current batch of terminals */
    size_t nterm, at;
    uint64_t consumed, total;   /* terminals read, and rule 0's length */
    twpp_rep rep;               /* the repeat decoder's state */
} twpp_column;

/* Starts reading grammar g's rule 0. 0, or -1 when out of memory. */
int twpp_column_init(twpp_column *c, const sq_grammar *g);

/* The next want values into v: want, or -1 when the terminals run out
 * or are not a repeat-coded stream (corrupt), or out of memory. */
int64_t twpp_column_values(twpp_column *c, uint64_t *v, size_t want);

/* Whether every terminal was read and no copy is pending. */
int twpp_column_spent(const twpp_column *c);

void twpp_column_free(twpp_column *c);

#endif
