/*
 * sq_internal.h: the structures behind sequitur.h, shared by the builder
 * (sequitur.c) and the finished grammar (sq_grammar.c). Not for callers.
 */
#ifndef MEMREC_SQ_INTERNAL_H
#define MEMREC_SQ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "algo/sequitur.h"

/* One symbol of a rule body, or a rule's guard. 16 bytes: the value (a
 * tagged terminal, rule reference or guard, see sequitur.c) and the pool
 * indexes of its neighbours in the rule's circular list. */
typedef struct sq_node {
    uint64_t val;
    uint32_t next, prev;
} sq_node;

/* A rule: its guard node and how many references to it the grammar holds.
 * A free rule slot keeps the next free slot in guard and UINT32_MAX in
 * uses. */
typedef struct sq_rule {
    uint32_t guard;
    uint32_t uses;
} sq_rule;

/* A digram table slot: the node starting the digram's recorded occurrence
 * (0 for an empty slot) and the digram's hash, kept so that growing and
 * backward-shift deletion need not read the nodes. */
typedef struct sq_slot {
    uint32_t node;
    uint32_t hash;
} sq_slot;

struct sequitur {
    sq_node *nodes;             /* the pool; node 0 unused */
    size_t node_cap;
    uint32_t node_top;          /* nodes ever handed out, node 0 included */
    uint32_t node_free;         /* head of the free list, linked by next */
    sq_rule *rules;             /* rule 0 is the start rule */
    size_t rule_cap;
    uint32_t rule_top;
    uint32_t rule_free;         /* head of the free rule list, UINT32_MAX */
    uint32_t live_rules;
    uint64_t symbols;           /* live body symbols (guards excluded) */
    uint64_t input_length;
    uint64_t *recorded;         /* bit n set: a table slot names node n
                                   (node_cap bits) */
    sq_slot *table;             /* the digram table, table_mask + 1 slots */
    size_t table_mask;
    size_t table_used;
    size_t table_limit;         /* table_used at which it doubles */
    int failed;                 /* out of memory: the grammar is incomplete */
    int plain;                  /* no shortcut (extend_rule, reuse_at_end,
                                   substitute's quiet case): every step
                                   the original's, for tests comparing */
    uint64_t shortcuts;         /* times a shortcut stood for the original's
                                   steps (tests check that they are taken) */
    uint64_t reuses;            /* of them, reuse_at_end's (a whole rule
                                   reused at a rule's end) */
};

/* Turns the builder's shortcuts off, so that tests can check that they
 * build the grammar the original's steps build. */
void sq_plain_internal(sequitur *b);

#endif /* MEMREC_SQ_INTERNAL_H */
