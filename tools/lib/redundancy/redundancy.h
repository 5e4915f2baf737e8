/*
 * redundancy.h: redundant loads and stores (seed 001, section 5.1), the
 * per-instruction result both methods produce: the direct pass over the
 * trace (direct.h) and the one from a TWPP+ file.
 *
 * The model is TWPP+'s (twpp/deps.h), so that the two agree exactly:
 * memory is 8-byte aligned granules; a store writes its instance into
 * every granule it touches; a load reads the most recent store among the
 * granules it touches (its dependence edge), and is the SN-th load of
 * that store instance there (SN counts loads per store instance and
 * granule). Then:
 *   - a load instance is redundant when SN > 1: an earlier load read the
 *     same value from the same location with no store in between;
 *   - a load of memory no store of the trace wrote (initialised data,
 *     the kernel's writes) has no edge: it is counted as unwritten, never
 *     redundant (TWPP+ has nothing to say about it);
 *   - a store instance is one execution of a store instruction (an
 *     instruction storing several times in one execution, as xsave or
 *     rep stos may, makes one instance, as TWPP+'s <G, FC, BC> names
 *     it); it is redundant when no load ever read from it: it was
 *     overwritten unread, or never read up to the end of the run (the
 *     dissertation's trailing instances, found through the highest
 *     instance number of each store).
 * A modify (read-modify-write) is a load, then a store, of one
 * instruction.
 */
#ifndef MEMREC_REDUNDANCY_H
#define MEMREC_REDUNDANCY_H

#include <stdint.h>
#include <stdio.h>

/* One static memory instruction's counts: a machine instruction and
 * access kind (the sizes it accessed together). */
typedef struct redund_insn {
    uint64_t addr;              /* the machine instruction */
    uint32_t size;              /* bytes of its first access */
    uint8_t kind;               /* mr_access_kind */
    char *where;                /* "function:line" (malloc'd), or NULL */
    uint64_t loads;             /* load instances */
    uint64_t redundant_loads;   /* ... with SN > 1 */
    uint64_t unwritten_loads;   /* ... of memory no store wrote */
    uint64_t stores;            /* store instances (executions that stored) */
    uint64_t redundant_stores;  /* ... that no load read */
} redund_insn;

/* Every instruction's counts, one result of either method. */
typedef struct redund_result {
    redund_insn *insns;
    uint32_t n;
} redund_result;

/* Sorts the instructions by address, then kind: the order of the report,
 * the same for both methods. */
void redund_result_sort(redund_result *r);

/* Frees the instructions and their names. */
void redund_result_free(redund_result *r);

/* Percentage of part in whole, 0 when whole is 0. */
double redund_percent(uint64_t part, uint64_t whole);

/* Prints the totals and a line per instruction: with top 0 every one in
 * the result's order (by address), else the top most redundant ones (by
 * redundant loads and stores together) and how many more there are. 0,
 * or -1 on a write or allocation error. */
int redund_report(FILE *out, const redund_result *r, uint32_t top);

#endif
