/*
 * twpp.h: Zhang and Gupta's timestamped whole program path (TWPP), the
 * control-flow part: a thread's block sequence cut into per-call path
 * traces linked by a dynamic call graph (DCG), duplicate traces removed
 * per function, each unique trace compacted with a dictionary of dynamic
 * basic blocks (DBBs), compacted traces and dictionaries deduplicated
 * again. Decisions in docs/trace-twpp.md.
 *
 * The static block. As in trace-wpp (wpp/wpp.h), a symbol is a (block,
 * exit) pair of the recording: exactly the instructions one execution ran.
 * Symbols are numbered densely from 0 in order of first execution.
 *
 * Calls. An execution leaving by an MR_JUMP_CALL exit makes the thread's
 * next execution the first block of a new call; one leaving by an
 * MR_JUMP_RET exit ends the current call. A call's function is the address
 * of its first block. So a DCG child is tied to its caller's trace without
 * any stored position: the i-th child of a call is made by the i-th
 * execution of a call-exit symbol in the caller's path trace (the DCG is
 * kept in preorder, and expansion takes the next node at every call-exit
 * symbol). A return with no open call (longjmp out of main's frame, a
 * thread's first function returning) ends the root call; the next
 * execution starts a new root. Tail calls and longjmps are plain jumps:
 * their blocks stay in the current call's trace.
 */
#ifndef MEMREC_TWPP_H
#define MEMREC_TWPP_H

#include <stdint.h>

#include "memrec_trace.h"

/* A sequence of 32-bit values (a path trace, a dictionary). */
typedef struct twpp_seq {
    uint32_t *v;
    uint32_t n;
} twpp_seq;

/* What a symbol stands for. */
typedef struct twpp_symbol {
    uint64_t addr;              /* the block's first instruction */
    uint32_t block;             /* the block's id in the trace */
    uint32_t exit;              /* the exit taken */
    uint32_t ninstrs;           /* instructions that execution ran */
    uint32_t jump;              /* mr_jump of that exit */
    char *where;                /* "function:line" (malloc'd), or NULL */
} twpp_symbol;

/* One unique path trace of a function: a compacted trace under a
 * dictionary (indices into the function's traces and dicts). */
typedef struct twpp_path {
    uint32_t trace, dict;
    uint64_t calls;             /* calls that took this path */
} twpp_path;

/* A function (the calls entered at one address) after steps 1-3. A
 * compacted trace holds the DBB ids (the symbol of each DBB's first
 * block) in execution order. A dictionary is [chain count, then per chain
 * its length and its symbols], chains sorted by their head; DBBs of one
 * block are not listed. */
typedef struct twpp_function {
    uint64_t entry;             /* address of the first block */
    char *name;                 /* malloc'd */
    uint64_t calls;
    twpp_path *paths;
    uint32_t npaths;
    twpp_seq *traces;
    uint32_t ntraces;
    twpp_seq *dicts;
    uint32_t ndicts;
    twpp_seq *counts;           /* per trace when read lazily (twpp_ts_skim), else NULL */
    twpp_seq *series;           /* per trace when read as series (twpp_ts_series), else NULL */
    uint64_t raw_unique_blocks; /* blocks of the unique raw traces (step 2) */
    uint64_t raw_blocks;        /* blocks of every call's trace (step 1) */
} twpp_function;

/* A thread's DCG in preorder: node i is a call of function fn[i] that took
 * path path[i] of it. */
typedef struct twpp_thread {
    uint32_t tid;
    uint64_t nnodes;
    uint32_t *fn, *path;
} twpp_thread;

/* The whole control-flow TWPP. */
typedef struct twpp_model {
    twpp_symbol *symbols;
    uint32_t nsymbols;
    twpp_function *functions;
    uint32_t nfunctions;
    twpp_thread *threads;
    uint32_t nthreads;
} twpp_model;

typedef struct twpp_builder twpp_builder;

twpp_builder *twpp_builder_new(void);
void twpp_builder_free(twpp_builder *b);

/* Appends one execution of def leaving by exit to thread tid. 0, or -1
 * when out of memory. */
int twpp_exec(twpp_builder *b, uint32_t tid, const mr_block_def *def, uint32_t exit);

/* Where an execution ran, for TWPP+'s instances <G, FC, BC>: the
 * function of the call it belongs to, that call's number among the
 * function's calls (FC, from 1, in order of call over all threads), the
 * symbol, and its instance within that call (BC, from 1: the BC-th
 * execution of the symbol in that call's own path trace). */
typedef struct twpp_where {
    uint32_t fn, fc;
    uint32_t symbol, bc;
} twpp_where;

/* twpp_exec that also says where the execution ran (a returning block
 * belongs to the call it ends). */
int twpp_exec_where(twpp_builder *b, uint32_t tid, const mr_block_def *def, uint32_t exit,
                    twpp_where *w);

/* Blocks appended so far. */
uint64_t twpp_builder_length(const twpp_builder *b);

/* Closes every open call and runs steps 2-3; names functions and symbols
 * from r (NULL: addresses). The builder is spent. NULL: out of memory. */
twpp_model *twpp_finish(twpp_builder *b, const mr_reader *r);

void twpp_model_free(twpp_model *m);

/* Step 3 on one raw trace: the compacted trace and the dictionary (see
 * twpp_function). nsymbols bounds the symbols. 0, or -1 when out of
 * memory. */
int twpp_compact(const uint32_t *raw, uint32_t n, uint32_t nsymbols,
                 twpp_seq *trace, twpp_seq *dict);

/* Expands a compacted trace under its dictionary, calling fn for every
 * symbol; stops early when fn returns non-zero and returns that value. */
typedef int (*twpp_emit_fn)(void *ctx, uint32_t symbol);
int twpp_expand_path(const twpp_seq *trace, const twpp_seq *dict, twpp_emit_fn fn, void *ctx);

/* The same into an array: the path's symbols s with keep[s] set (keep
 * NULL: every symbol) appended to *out, of *n used and *cap allocated
 * (grown as base/array.h does). 0, or -1 when out of memory. */
int twpp_expand_path_into(const twpp_seq *trace, const twpp_seq *dict, const uint8_t *keep,
                          uint32_t **out, size_t *n, size_t *cap);

#endif /* MEMREC_TWPP_H */
