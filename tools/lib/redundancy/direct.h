/*
 * direct.h: the direct pass of redundancy (redundancy.h) over the trace,
 * with a last-access shadow memory: per 8-byte granule, the last store
 * instance that wrote it and how many loads read it since. It is the
 * check of the TWPP+ method and follows the model in redundancy.h
 * exactly; it needs the trace, not a .twpp file.
 *
 *     redund_direct *d = redund_direct_new();
 *     ... per access of the access stream: redund_direct_exec(d, &x) ...
 *     redund_direct_result(d, insns, reader, &result);
 */
#ifndef MEMREC_REDUNDANCY_DIRECT_H
#define MEMREC_REDUNDANCY_DIRECT_H

#include <stdint.h>

#include "memrec_trace.h"
#include "redundancy/redundancy.h"
#include "stream/access.h"
#include "stream/insns.h"

typedef struct redund_direct redund_direct;

/* NULL when out of memory. */
redund_direct *redund_direct_new(void);
void redund_direct_free(redund_direct *d);

/* One load / store of size bytes at addr by instruction insn. 0, or -1
 * when out of memory. */
int redund_direct_load(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size);
int redund_direct_store(redund_direct *d, uint32_t insn, uint64_t addr, uint32_t size);

/* Every access of one block execution (or batch), in order; a modify is
 * a load then a store. 0, or -1 when out of memory. */
int redund_direct_exec(redund_direct *d, const access_exec *x);

/* Instruction insn's counts so far into *out (its identity and name left
 * zero): 1, or 0 when it has made no access. */
int redund_direct_counts(const redund_direct *d, uint32_t insn, redund_insn *out);

/* The counts so far, one entry per instruction of t that accessed memory
 * (named through r, which may be NULL), sorted. 0, or -1 when out of
 * memory. */
int redund_direct_result(const redund_direct *d, const insn_table *t,
                         const mr_reader *r, redund_result *out);

/* Accesses seen (a modify counts twice) and bytes of shadow memory. */
uint64_t redund_direct_accesses(const redund_direct *d);
uint64_t redund_direct_bytes(const redund_direct *d);

#endif
