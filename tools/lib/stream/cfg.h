/*
 * cfg.h: the control-flow view of a trace, shared by the analyses that need
 * loops (trace-layout, TWPP, ...): basic blocks rebuilt from the recorded
 * superblocks, the dynamic control-flow graph per function, its loop
 * nesting forest (irreducible loops included), each loop's file and line
 * range, and every instruction's innermost loop.
 *
 * One pass. A cfg_builder watches the events of a trace (cfg_builder_event
 * on every event, before or after the caller's own work) and keeps only a
 * summary: per superblock the longest prefix executed, and the distinct
 * control transfers (the last instruction executed by a block execution ->
 * the first instruction of the same thread's next block execution, with the
 * exit's jump kind). cfg_build turns that summary into the graph, so the
 * loops are known after the pass; an analysis that needs loops while it
 * reads accesses (loop instances, inclusive figures) reads the trace twice,
 * or keys what it gathers by instruction and maps instructions to loops at
 * the end (the innermost loop is a function of the instruction).
 *
 * Basic blocks. Valgrind superblocks are not basic blocks: one guest
 * instruction appears in several overlapping superblocks, a superblock may
 * run through an unconditional jump (its next instruction is not the next
 * address), and it has side exits. A basic block here is a maximal run of
 * executed instructions, consecutive in memory, with no leader inside. The
 * leaders are: the first instruction of every superblock; every target of
 * a control transfer (a jump into the middle of a known run splits it);
 * the instruction after every transfer's source (the source ends a block);
 * the instruction after a gap in addresses; the first instruction of a
 * function (symbol change). Edges: the transfers seen, plus the fall-through
 * of consecutive instructions of a superblock that crosses a leader. Only
 * executed code is in the graph (a dynamic CFG).
 *
 * Functions. A block belongs to the function its symbol names
 * (mr_reader_symbol at finish); without a symbol, to the nearest call
 * target at or below it, so stripped code is split at call targets. Calls
 * (MR_JUMP_CALL exits) are not edges inside a function: the call
 * instruction gets a fall-through edge to the instruction after it (the
 * return site, when it was executed), and the callee entry becomes an entry
 * of its function. Returns end a path. A transfer between two functions
 * (tail call, longjmp) is no edge; its target is an entry.
 *
 * Loops: Steensgaard's loop nesting forest. The strongly connected
 * components of a function's graph with more than one block, or one block
 * and a self edge, are its outermost loops; a loop's headers are its blocks
 * entered from outside it (or function entries); removing the edges from
 * inside the loop to its headers and taking the components again gives the
 * loops nested in it, and so on. A reducible loop has one header and is
 * exactly a natural loop (several back edges to one header make one loop);
 * an irreducible one (a cycle entered at two places) has several headers
 * and is reported as one loop, flagged, with no loop lost. Each block's
 * innermost loop is the deepest loop holding it.
 *
 * Source range: a loop's file is its header's file; its lines are the
 * minimum and maximum line, in that file, of every instruction in it
 * (nested loops included; inlined code from other files is left out).
 *
 * Accesses in callees (cfg_ctx): the instruction's own innermost loop
 * owns the access (exclusive, as LWPTool attributes by IP range); an
 * instruction in no loop of its function takes the loop of the nearest
 * call on its thread's call stack that is in a loop (inclusive: a memcpy
 * called in a loop counts for that loop).
 */
#ifndef MEMREC_CFG_H
#define MEMREC_CFG_H

#include <stdint.h>
#include "memrec_trace.h"

typedef struct cfg_builder cfg_builder;
typedef struct cfg cfg;

/* A basic block of the rebuilt graph. */
typedef struct cfg_block {
    uint64_t addr;              /* first instruction */
    uint64_t end;               /* one past the last instruction's bytes */
    uint32_t ninstrs;
    uint32_t function;          /* index for cfg_function_name */
    int32_t loop;               /* innermost loop, -1 when in none */
    uint32_t nsucc;             /* successors inside the function */
    const uint32_t *succ;       /* block indexes */
    uint8_t entry;              /* entered from outside the function */
} cfg_block;

/* A loop of the nesting forest. */
typedef struct cfg_loop {
    int32_t parent;             /* enclosing loop, -1 for an outermost one */
    uint32_t depth;             /* 1 for an outermost loop */
    uint32_t function;
    uint64_t header;            /* address of its (lowest) header block */
    uint32_t nheaders;          /* > 1: irreducible */
    uint32_t nblocks;           /* blocks in it, nested loops' included */
    const char *file;           /* header's file, NULL when unknown */
    uint32_t line_min, line_max;/* 0 when unknown */
} cfg_loop;

/* ---- building ---- */
cfg_builder *cfg_builder_new(void);
void cfg_builder_free(cfg_builder *b);
/* Takes every event of the trace in order (others than MR_EV_EXEC are
 * ignored). 0, or -1 when out of memory. Batched executions (repeat > 1)
 * are a block following itself. */
int cfg_builder_event(cfg_builder *b, const mr_event *ev);
/* The graph and its loops; reader (may be NULL) gives symbols. NULL when
 * out of memory. The builder may be freed afterwards. */
cfg *cfg_build(cfg_builder *b, const mr_reader *reader);

/* ---- the result ---- */
void cfg_free(cfg *g);
uint32_t cfg_nblocks(const cfg *g);
const cfg_block *cfg_block_at(const cfg *g, uint32_t i);
/* The block holding the instruction at addr, or -1 (never executed). */
int32_t cfg_block_of(const cfg *g, uint64_t addr);
uint32_t cfg_nloops(const cfg *g);
const cfg_loop *cfg_loop_at(const cfg *g, uint32_t i);
/* Innermost loop of the instruction at addr, -1 when in none. */
int32_t cfg_loop_of(const cfg *g, uint64_t addr);
/* 1 if loop inner is outer or nested in it. */
int cfg_loop_within(const cfg *g, int32_t inner, int32_t outer);
uint32_t cfg_nfunctions(const cfg *g);
const char *cfg_function_name(const cfg *g, uint32_t f);

/* ---- inclusive attribution through calls ---- */
typedef struct cfg_ctx cfg_ctx;
cfg_ctx *cfg_ctx_new(const cfg *g);
void cfg_ctx_free(cfg_ctx *c);
/* The loop an access of instruction addr, executed by thread tid now, is
 * attributed to (see the header comment), -1 for none. */
int32_t cfg_ctx_loop(cfg_ctx *c, uint32_t tid, uint64_t addr);
/* The loop of the nearest call on thread tid's stack that is in a loop
 * (what an access in no loop of its own function is attributed to), -1
 * for none. */
int32_t cfg_ctx_caller_loop(cfg_ctx *c, uint32_t tid);
/* Follows calls and returns: call after the execution's accesses were
 * attributed. 0, or -1 when out of memory. */
int cfg_ctx_event(cfg_ctx *c, const mr_event *ev);

#endif /* MEMREC_CFG_H */
