/*
 * report.h: TWPP for people: the build summary (counts and the size of
 * every part), one function's paths read from a .twpp file, and the whole
 * expansion in trace-wpp --expand's format.
 */
#ifndef MEMREC_TWPP_REPORT_H
#define MEMREC_TWPP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "twpp/file.h"

/* Bytes per block execution of the uncompressed WPP the sizes are
 * compared with (a 32-bit symbol per execution). */
#define TWPP_WPP_BYTES_PER_BLOCK 4

/* Bytes per memory access of the uncompressed address trace TWPP+ is
 * compared with (Table 4.1's data part; a 64-bit address each). */
#define TWPP_WPP_BYTES_PER_ADDRESS 8

/* The control-flow part of a file (Table 3.3): all but TWPP+'s sections. */
static inline uint64_t twpp_control_bytes(const twpp_sizes *sz)
{
    return sz->total - sz->plus.points - sz->plus.index - sz->plus.grammars;
}

/* Counts of a model, for the summary and the database. */
typedef struct twpp_counts {
    uint64_t calls, paths, traces, dicts;
    uint64_t raw_blocks, unique_blocks, compact_blocks;
} twpp_counts;

void twpp_count(const twpp_model *m, twpp_counts *c);

/* The summary after a build (plus: TWPP+'s counts, or NULL). 0, or -1
 * on a write error. */
int twpp_print_summary(FILE *out, const twpp_model *m, const twpp_plus_counts *plus,
                       const twpp_sizes *sz, uint64_t blocks);

/* The edges of the load points spec names (edges.h's twpp_find_loads),
 * each point's line then one edge per line "[<G0,FC0,BC0>, <G1,FC1,BC1>,
 * SN]  store-point". 0, or -1 with a message in err (no such load point,
 * corrupt file, write error). */
int twpp_print_dependences(FILE *out, twpp_file *f, const char *spec, char *err, size_t errlen);

/* Function name's paths, compacted traces in TWPP form, dictionaries and
 * expansions. 0, or -1 with a message in err (unknown function, corrupt
 * file, write error). */
int twpp_print_function(FILE *out, twpp_file *f, const char *name, char *err, size_t errlen);

/* Every block back, "0xADDR" per line, thread by thread. 0, or -1. */
int twpp_print_expansion(FILE *out, twpp_file *f, char *err, size_t errlen);

#endif
