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

/* Counts of a model, for the summary and the database. */
typedef struct twpp_counts {
    uint64_t calls, paths, traces, dicts;
    uint64_t raw_blocks, unique_blocks, compact_blocks;
} twpp_counts;

void twpp_count(const twpp_model *m, twpp_counts *c);

/* The summary after a build. 0, or -1 on a write error. */
int twpp_print_summary(FILE *out, const twpp_model *m, const twpp_sizes *sz, uint64_t blocks);

/* Function name's paths, compacted traces in TWPP form, dictionaries and
 * expansions. 0, or -1 with a message in err (unknown function, corrupt
 * file, write error). */
int twpp_print_function(FILE *out, twpp_file *f, const char *name, char *err, size_t errlen);

/* Every block back, "0xADDR" per line, thread by thread. 0, or -1. */
int twpp_print_expansion(FILE *out, twpp_file *f, char *err, size_t errlen);

#endif
