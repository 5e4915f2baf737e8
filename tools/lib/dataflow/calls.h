/*
 * calls.h: facts followed through calls (seed 001, section 5.2.2: "if
 * node n contains a call to function f, then the traces for calls made by
 * the n's instances corresponding to T(n) are examined"). A callee's
 * effect on the fact is the last generating or killing access of its
 * whole execution, callees of its own included; it differs from call to
 * call, so the function's calls are grouped by their path and the effects
 * of their callees in order, and each group is one query, with the nodes
 * that hold calls generating or killing at some of their timestamps.
 *
 * The effects come from replaying the whole program's calls (twpp_walk:
 * each thread's DCG in preorder, a callee entered at its caller's call
 * exit, each call with its path). The same walk counts the answer the
 * plain way, call by call, for --check.
 */
#ifndef MEMREC_DATAFLOW_CALLS_H
#define MEMREC_DATAFLOW_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "dataflow/answer.h"
#include "dataflow/fact.h"
#include "twpp/file.h"

/* Calls of the function with one path and the same callee effects. */
typedef struct df_group {
    uint32_t path;
    uint64_t calls;
    uint8_t *effects;           /* per call exit of the path, in order: its callee's df_effect */
    uint32_t neffects;
    uint64_t hash;
} df_group;

/* The groups of the function's calls. */
typedef struct df_calls {
    df_group *groups;
    uint32_t n;
    size_t cap;
    df_answer walked;           /* the answer counted call by call while expanding */
} df_calls;

/* Expands f and groups the calls of function d->fn, counting the answer
 * at the symbols in targets (n) on the way. 0, or -1 with a message. */
int df_calls_collect(twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                     df_calls *out, char *err, size_t errlen);
void df_calls_free(df_calls *c);

/* The query over the groups (answer.h's result; its check is the walk's). */
int df_answer_calls(const twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                    const df_calls *c, df_result *out);

#endif
