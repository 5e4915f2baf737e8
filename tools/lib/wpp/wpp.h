/*
 * wpp.h: Larus's whole program path of a trace: per thread, the sequence
 * of executed blocks as one Sequitur grammar.
 *
 * The symbol. The recorder records superblocks (straight-line code with
 * side exits) and, for each execution, the exit taken; an execution of
 * block B leaving by exit e ran exactly B's first exits[e].ninstrs
 * instructions. So the pair (block, exit) names the executed instructions
 * exactly, and the sequence of pairs is the exact path. Pairs are numbered
 * densely in order of first execution (over all threads), so the grammars
 * hold small integers; wpp_symbol() maps a number back to its block's
 * start address and exit. Calls and returns are implied by the exits' jump
 * kinds and need no symbols of their own.
 */
#ifndef MEMREC_WPP_H
#define MEMREC_WPP_H

#include <stdint.h>

#include "algo/sequitur.h"
#include "memrec_trace.h"

typedef struct wpp wpp;

/* What a symbol stands for. */
typedef struct wpp_symbol_info {
    uint64_t addr;              /* the block's first instruction */
    uint32_t block;             /* the block's id in the trace */
    uint32_t exit;              /* the exit taken */
    uint32_t ninstrs;           /* instructions that execution ran */
} wpp_symbol_info;

wpp *wpp_new(void);
void wpp_free(wpp *w);

/* Appends one execution of def leaving by exit to thread tid's path.
 * 0, or -1 when out of memory. */
int wpp_exec(wpp *w, uint32_t tid, const mr_block_def *def, uint32_t exit);

/* Threads with at least one execution, in order of their first. */
uint32_t wpp_thread_count(const wpp *w);
uint32_t wpp_thread_tid(const wpp *w, uint32_t i);
/* Executions recorded for thread i. */
uint64_t wpp_thread_length(const wpp *w, uint32_t i);
/* Thread i's grammar (malloc'd; sq_grammar_free it), NULL: no memory. */
sq_grammar *wpp_thread_grammar(const wpp *w, uint32_t i);

/* Distinct (block, exit) symbols, and what symbol s stands for. */
uint32_t wpp_symbol_count(const wpp *w);
const wpp_symbol_info *wpp_symbol(const wpp *w, uint32_t s);

#endif /* MEMREC_WPP_H */
