/*
 * plus.h: TWPP+ (seed 001, chapter 4) while a trace is read: every
 * memory access made an instance <G, FC, BC> of an access point of the
 * global access-point dictionary, every load's edge to the store instance
 * that last wrote it (deps.h), the edges buffered per load point; at the
 * end the edges control flow can recover dropped and each load point's
 * edges turned into six Sequitur grammars (edgecode.h). The sections this
 * gives go into the .twpp file after the function blocks (file.h; the
 * layout in docs/trace-twpp.md); reading them back is edges.h.
 *
 * Access point. One per (function, symbol, instruction index in the
 * block, access kind): the dissertation's <F, B, S> triple, B being
 * TWPP's symbol, so that BC is the BC-th execution of that symbol in call
 * FC (twpp_where). Numbered from 0 in order of first execution. A modify
 * (read-modify-write) point is both a load and a store point: its load
 * gets its edge before its store writes.
 *
 * One statically known address (section 4.1's rule). The trace records
 * no addressing modes (an instruction is its address and length), so the
 * rule is decided over the run: a machine instruction (address, kind,
 * size: stream/insns.h) that touched one address, always with the same
 * size, in the whole run. An edge is dropped when its load's and its
 * store's instructions both are such; the dictionary keeps that address,
 * so a load instance with no edge and a single address is recovered as
 * reading the last single-address store to it. Load instances that read
 * memory no store wrote have no edge either; the load index counts both.
 */
#ifndef MEMREC_TWPP_PLUS_H
#define MEMREC_TWPP_PLUS_H

#include <stdint.h>

#include "memrec_trace.h"
#include "twpp/bytes.h"
#include "twpp/twpp.h"

/* An entry of the access-point dictionary, with its run's counts. */
typedef struct twpp_point {
    uint32_t fn;                /* function (its index in the file once read) */
    uint32_t symbol;            /* the block (TWPP symbol) */
    uint32_t instr;             /* instruction index within the block */
    uint32_t kind;              /* MR_LOAD, MR_STORE or MR_MODIFY */
    uint32_t size;              /* bytes accessed */
    uint32_t line;              /* source line of the instruction, 0: unknown */
    uint64_t insn_addr;         /* the machine instruction */
    int single;                 /* one statically known address (above) */
    uint64_t addr;              /* that address when single */
    uint64_t loads;             /* executions as a load */
    uint64_t edges;             /* of which edges kept in the file */
    uint64_t dropped;           /* of which edges dropped (recoverable) */
    uint64_t stores;            /* executions as a store: its highest instance number */
    uint32_t last_fc, last_bc;  /* its last store instance (0 0: none) */
    uint64_t grammar_bytes;     /* its six grammars as stored */
    uint64_t grammar_symbols;   /* their symbols (0 when read from a file) */
} twpp_point;

/* Counts of a run's TWPP+ (the summary and the database). */
typedef struct twpp_plus_counts {
    uint64_t points, load_points, store_points;
    uint64_t accesses, loads, stores;   /* dynamic; a modify counts once in each */
    uint64_t edges, dropped, unwritten;
    uint64_t single_loads, single_stores;   /* static load and store points with one address */
    uint64_t scan_sum, scan_max;    /* accesses from each edge's store to its load (twpp_deps_scan) */
} twpp_plus_counts;

typedef struct twpp_plus twpp_plus;

twpp_plus *twpp_plus_new(void);
void twpp_plus_free(twpp_plus *p);

/* The accesses of execution ev, which ran at w (twpp_exec_where). ev is
 * one execution: the reader must not batch (mr_reader_batch), as
 * twpp_exec_where counts one block instance per event. 0, or -1 when out
 * of memory. */
int twpp_plus_exec(twpp_plus *p, const twpp_where *w, const mr_event *ev);

/* Ends the run: singles decided, lines taken from r (NULL: none), the
 * recoverable edges dropped unless keep_all. 0, or -1 when out of memory. */
int twpp_plus_finish(twpp_plus *p, const mr_reader *r, int keep_all);

void twpp_plus_count(const twpp_plus *p, twpp_plus_counts *c);

/* The dictionary (after finish). */
uint32_t twpp_plus_point_count(const twpp_plus *p);
const twpp_point *twpp_plus_point(const twpp_plus *p, uint32_t g);

/* Bytes of the sections, as twpp_write reports them. */
typedef struct twpp_plus_sizes {
    uint64_t edges_raw;         /* the kept edges, 6 x 4 bytes each */
    uint64_t points;            /* the dictionary as stored (packed) */
    uint64_t index;             /* the load index as stored (packed) */
    uint64_t grammars;          /* the dependence grammars */
    uint64_t grammar_symbols;   /* right-hand-side symbols of all of them */
} twpp_plus_sizes;

/* The sections' raw bytes (file.c packs the first two): the dictionary
 * with function i written as rank[i], the load index, and the grammars.
 * 0, or -1 when out of memory. */
int twpp_plus_write(const twpp_plus *p, const uint32_t *rank, twpp_buf *points,
                    twpp_buf *index, twpp_buf *grammars, twpp_plus_sizes *sz);

#endif
