/*
 * sequitur.h: Nevill-Manning and Witten's Sequitur over integer symbols.
 *
 * Sequitur reads a sequence one symbol at a time and keeps a context-free
 * grammar that generates exactly that sequence, under two constraints:
 *   digram uniqueness  no pair of adjacent symbols appears twice in the
 *                      grammar (overlapping pairs, as in "aaa", excepted);
 *   rule utility       every rule other than rule 0 is used at least twice.
 * The work per symbol is amortised constant, so a stream of any length can
 * be fed in; memory grows with the grammar, not the input.
 *
 * The grammar is the one the original C++ implementation (Nevill-Manning's
 * sequitur, craignm/sequitur on GitHub, K = 2) builds for the same input:
 * same rules, same right-hand sides, numbered in the order its -p output
 * prints them (rule 0 first, then rules in order of first reference,
 * reading the numbered rules in order). That includes its handling of
 * overlapping digrams ("aaa", "abbbabcbb") and of runs of equal symbols.
 *
 * ---------------------------------------------------------------------------
 * Building (sequitur, the online builder)
 *
 *   sequitur *sq_new(void);
 *       An empty builder, or NULL when out of memory.
 *   int sq_append(sequitur *b, uint64_t symbol);
 *       Feeds one terminal. symbol must be below SQ_TERMINAL_LIMIT (2^63).
 *       0, or -1: symbol too large (errno EINVAL) or out of memory (ENOMEM;
 *       the builder then refuses further symbols but can still be freed).
 *   uint64_t sq_input_length(const sequitur *b);
 *       Terminals appended so far.
 *   void sq_builder_stats(sequitur *b, sq_stats *s);
 *       Rules, right-hand-side symbols and bytes held right now.
 *   int sq_check(sequitur *b, char *why, size_t whylen);
 *       Verifies the invariants (digram uniqueness, rule utility, links,
 *       use counts, the digram table); 0, or -1 with the first violation
 *       described in why. Linear in the grammar: for tests and debugging.
 *   int sq_relabel(sequitur *b, sq_relabel_fn fn, void *ctx);
 *       Renames every terminal t appended so far to fn(ctx, t), as if the
 *       input had been the renamed one: the grammar's shape depends only on
 *       which terminals are equal, so fn must be one-to-one over them, and
 *       must map 0 to 0 (the builder reads a deleted symbol as the terminal
 *       0, as the original does). Linear in the grammar (the digram table
 *       is rebuilt): for a rare change of encoding, e.g. a packing that
 *       must widen. 0, or -1: a new label at or above SQ_TERMINAL_LIMIT,
 *       or 0 not kept (errno EINVAL; nothing renamed) or out of memory (ENOMEM; the
 *       builder then refuses further symbols).
 *   sq_grammar *sq_finish(sequitur *b);
 *       A read-only snapshot of the grammar, numbered as the original
 *       prints it; the builder is unchanged and may go on. NULL: no memory.
 *   sq_grammar *sq_finish_free(sequitur *b);
 *       sq_finish, then sq_free, with the builder's digram table freed
 *       first: a large builder's peak is then its pool and the grammar, not
 *       the table on top. The builder is gone even when NULL comes back.
 *   void sq_free(sequitur *b);
 *
 * Reading (sq_grammar, a finished grammar)
 *
 *   A right-hand-side symbol is a uint64_t code: sq_is_rule(code) tells a
 *   rule reference from a terminal, sq_code_value(code) gives the rule
 *   number or the terminal's value.
 *
 *   uint32_t sq_rule_count(const sq_grammar *g);     rules, rule 0 included
 *   uint64_t sq_symbol_count(const sq_grammar *g);   symbols of all bodies
 *   uint32_t sq_rule_length(const sq_grammar *g, uint32_t r);
 *   const uint64_t *sq_rule_body(const sq_grammar *g, uint32_t r);
 *   uint64_t sq_expanded_length(const sq_grammar *g, uint32_t r);
 *       Terminals rule r stands for (saturates at UINT64_MAX).
 *   const uint32_t *sq_bottom_up(const sq_grammar *g);
 *       The rule numbers (sq_rule_count of them) in an order where every
 *       rule comes after the rules its body refers to: for computing
 *       per-rule facts bottom-up (reverse it for top-down) without recursion.
 *   int sq_expand(const sq_grammar *g, uint32_t r, sq_emit_fn fn, void *ctx);
 *       Calls fn(ctx, terminal) for every terminal of rule r's expansion, in
 *       order, without recursion; stops early when fn returns non-zero and
 *       returns that value; 0 at the end, -1 when out of memory.
 *   sq_iter *sq_iter_new(const sq_grammar *g, uint32_t r);
 *   int sq_iter_next(sq_iter *it, uint64_t *terminal);
 *   void sq_iter_free(sq_iter *it);
 *       Rule r's expansion one terminal at a time, for walking several
 *       grammars in step: 1 and *terminal set, 0 at the end. NULL: no
 *       memory or no such rule.
 *   int64_t sq_expand_array(const sq_grammar *g, uint32_t r, uint64_t *out,
 *                           size_t cap);
 *       Writes the expansion to out; the number of terminals, or -1 when it
 *       does not fit in cap (or out of memory).
 *   void sq_grammar_stats(const sq_grammar *g, sq_stats *s);
 *       Rules, symbols, and the encoded size (bytes of sq_serialize).
 *   int sq_print(const sq_grammar *g, FILE *out);
 *       One line per rule, rule 0 first: "N -> s s s", terminals as
 *       decimal numbers, rule references as R<n>. 0, or -1 on a write error.
 *   void sq_grammar_free(sq_grammar *g);
 *
 * Storing
 *
 *   int sq_serialize(const sq_grammar *g, void **blob, size_t *len);
 *       A malloc'd blob: "SQG1", then one zstd frame over varints (rule
 *       count, then per rule its length and its symbol codes). 0 or -1.
 *   sq_grammar *sq_deserialize(const void *blob, size_t len, char *err,
 *                              size_t errlen);
 *       Reads a blob back, validating everything (magic, zstd frame, varint
 *       bounds, rule references in range, no rule reaching itself, non-empty
 *       rules, trailing bytes): NULL with a one-line reason in err when the
 *       bytes are not a grammar. Never crashes on bad bytes.
 * ---------------------------------------------------------------------------
 */
#ifndef MEMREC_SEQUITUR_H
#define MEMREC_SEQUITUR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Terminals are below 2^63: the builder keeps one bit of every symbol to
 * tell terminals from rule references. */
#define SQ_TERMINAL_LIMIT (UINT64_C(1) << 63)

typedef struct sequitur sequitur;
typedef struct sq_grammar sq_grammar;
typedef struct sq_iter sq_iter;

/* Sizes of a grammar. */
typedef struct sq_stats {
    uint32_t rules;             /* rule 0 included */
    uint64_t symbols;           /* symbols on all right-hand sides */
    uint64_t bytes;             /* builder: bytes in use (nodes handed out, rules,
                                   digram table); grammar: serialised size */
    uint64_t table_bytes;       /* builder: of which the digram table */
} sq_stats;

/* A terminal's new label (sq_relabel). */
typedef uint64_t (*sq_relabel_fn)(void *ctx, uint64_t terminal);

/* Receives one terminal of an expansion; non-zero stops it. */
typedef int (*sq_emit_fn)(void *ctx, uint64_t terminal);

sequitur *sq_new(void);
void sq_free(sequitur *b);
int sq_append(sequitur *b, uint64_t symbol);
uint64_t sq_input_length(const sequitur *b);
void sq_builder_stats(sequitur *b, sq_stats *s);
int sq_check(sequitur *b, char *why, size_t whylen);
int sq_relabel(sequitur *b, sq_relabel_fn fn, void *ctx);
sq_grammar *sq_finish(sequitur *b);
sq_grammar *sq_finish_free(sequitur *b);

/* A body code: terminals are value*2, rule references rule*2+1. */
static inline int sq_is_rule(uint64_t code) { return (int)(code & 1); }
static inline uint64_t sq_code_value(uint64_t code) { return code >> 1; }

uint32_t sq_rule_count(const sq_grammar *g);
uint64_t sq_symbol_count(const sq_grammar *g);
uint32_t sq_rule_length(const sq_grammar *g, uint32_t r);
const uint64_t *sq_rule_body(const sq_grammar *g, uint32_t r);
uint64_t sq_expanded_length(const sq_grammar *g, uint32_t r);
const uint32_t *sq_bottom_up(const sq_grammar *g);
int sq_expand(const sq_grammar *g, uint32_t r, sq_emit_fn fn, void *ctx);
int64_t sq_expand_array(const sq_grammar *g, uint32_t r, uint64_t *out,
                        size_t cap);
sq_iter *sq_iter_new(const sq_grammar *g, uint32_t r);
int sq_iter_next(sq_iter *it, uint64_t *terminal);
void sq_iter_free(sq_iter *it);
void sq_grammar_stats(const sq_grammar *g, sq_stats *s);
int sq_print(const sq_grammar *g, FILE *out);
void sq_grammar_free(sq_grammar *g);

int sq_serialize(const sq_grammar *g, void **blob, size_t *len);
sq_grammar *sq_deserialize(const void *blob, size_t len, char *err,
                           size_t errlen);

#endif /* MEMREC_SEQUITUR_H */
