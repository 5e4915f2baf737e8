/*
 * fact.h: the data-flow facts trace-dataflow asks about, as dynamic GEN
 * and KILL sets on a function's timestamp-annotated CFGs (seed 001,
 * section 5.2.2). A fact is about one location X (8-byte granules, as
 * TWPP+'s edges), and the accesses that generate or kill it are TWPP+
 * access points whose address is known statically (the dictionary keeps
 * the address of a single-address point; a multi-address point's
 * addresses are not in the file, so it neither generates nor kills):
 *
 *   written-by  "X was last written by store S": S's stores to X
 *               generate it, every other store to X kills it;
 *   redundant   "load L would be redundant here": X is L's address; a
 *               load of X generates it (the value is in a register), a
 *               store to X kills it.
 *
 * By default only the function's own accesses are looked at: calls are
 * transparent, and the fact says how many points on X lie in other
 * functions. With calls followed (calls.h) every function's accesses
 * count, through the calls that run them.
 */
#ifndef MEMREC_DATAFLOW_FACT_H
#define MEMREC_DATAFLOW_FACT_H

#include <stddef.h>
#include <stdint.h>

#include "base/u64map.h"
#include "dataflow/query.h"
#include "twpp/file.h"

/* A fact on the points of one function. */
typedef struct df_spec {
    uint32_t fn;                /* the function queried (file index) */
    uint64_t addr;              /* X */
    uint32_t size;              /* bytes of X */
    uint32_t gens, kills;       /* points of fn that generate / kill */
    uint32_t gens_all;          /* generating points in any function */
    uint32_t elsewhere;         /* points on X in other functions */
    u64map effect_of;           /* fn's symbol -> its last effect (df_effect), when not none */
    u64map effect_all;          /* any function's (fn << 32 | symbol) -> the same */
    char text[256];             /* the fact in words */
} df_spec;

/* Parses spec ("written-by:S@X", "redundant:L"; S, L: an access point
 * AN or an instruction 0xADDR; X: 0xADDR or a single-address point AN)
 * for function fn of f (TWPP+ points loaded). 0, or -1 with a message. */
int df_spec_parse(df_spec *d, const twpp_file *f, uint32_t fn, const char *spec,
                  char *err, size_t errlen);
void df_spec_free(df_spec *d);

/* The effect of one symbol of the function (DF_NONE, DF_GEN, DF_KILL). */
df_effect df_spec_symbol(const df_spec *d, uint32_t symbol);

/* The effect of a symbol of any function fn (for calls followed). */
df_effect df_spec_effect(const df_spec *d, uint32_t fn, uint32_t symbol);

#endif
