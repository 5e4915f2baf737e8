/*
 * synth.h: synthetic traces with a known memory behaviour.
 *
 * A synthetic trace looks like one recorded from a small C program
 * ("synth.c"): a process, a module, a symbol for every instruction, static
 * arrays, block definitions and block executions whose memory accesses
 * follow one pattern, heap operations with interned call stacks, and, for
 * the threads pattern, several threads. Everything is written through the
 * format library's writer (mr_write_*), so a synthetic trace is a real
 * trace, and everything is a function of the options alone: the same
 * options give the same bytes.
 *
 * The generator also returns the ground truth it generated, so tests of
 * the readers and analyses can compare what they find with what is there.
 *
 * Patterns (synth_pattern_from_name() takes these names):
 *   sequential  one 8-byte load walking a static array of doubles
 *   strided     two loads and a modify walking three 2-D arrays of int64,
 *               one of them by columns (constant strides, row changes)
 *   random      one 8-byte load at a uniformly random 8-aligned address
 *               of a 64 MiB static table
 *   chase       a linked list of nodes allocated by malloc, linked in
 *               shuffled order (stores of next pointers with values), then
 *               walked: a load of the payload and a load of node->next
 *               with its value, per node
 *   mixed       the four above taking turns in phases, with a marker
 *               naming each phase
 *   threads     four worker threads created by the main thread, each
 *               mallocing a buffer and walking it (a load of a shared
 *               input array, a modify of its buffer), scheduled round
 *               robin with thread switches
 */
#ifndef MEMREC_SYNTH_H
#define MEMREC_SYNTH_H

#include <stdint.h>
#include "memrec_trace.h"

/* The random pattern's addresses: uniform over this many bytes, aligned
 * to SYNTH_RANDOM_ALIGN (so each carries log2(bytes / align) random bits). */
#define SYNTH_RANDOM_BYTES (64ull << 20)
#define SYNTH_RANDOM_ALIGN 8u

/* The access patterns a synthetic trace can follow. */
typedef enum synth_pattern {
    SYNTH_SEQUENTIAL = 0,
    SYNTH_STRIDED,
    SYNTH_RANDOM,
    SYNTH_CHASE,
    SYNTH_MIXED,
    SYNTH_THREADS,
    SYNTH_NPATTERNS          /* number of patterns, not a pattern */
} synth_pattern;

/* One dynamic memory access as the generator made it, for callers who
 * want the exact stream (tests, the benchmark's plain records). */
typedef struct synth_access {
    uint64_t addr;
    uint64_t value;          /* valid when has_value */
    uint32_t instr_id;       /* dense over all instructions of the trace */
    uint32_t tid;            /* thread performing the access */
    uint16_t size;           /* bytes */
    uint8_t kind;            /* mr_access_kind */
    uint8_t has_value;       /* the access's def has MR_ACC_VALUE */
} synth_access;

/* Called once per memory access, in trace order. */
typedef void (*synth_access_fn)(void *ctx, const synth_access *a);

/* What to generate. Zero-initialise, then set pattern and accesses. */
typedef struct synth_options {
    synth_pattern pattern;
    uint64_t accesses;       /* exact number of memory accesses (addresses)
                              * in the trace; modifies count once here */
    uint64_t seed;           /* drives every random choice */
    synth_access_fn on_access;  /* optional: sees every access */
    void *ctx;               /* handed to on_access */
} synth_options;

/* What a synthetic trace holds. Loads, stores and modifies follow
 * mr_totals: a modify is counted only in modifies, so
 * accesses == loads + stores + modifies. (trace-info counts a modify in
 * loads and stores too; see synth_truth_json.) */
typedef struct synth_truth {
    uint64_t instructions;   /* guest instructions executed */
    uint64_t blocks;         /* block executions */
    uint64_t accesses;       /* memory accesses (addresses) */
    uint64_t loads, stores, modifies;
    uint64_t values;         /* accesses that carry a recorded value */
    uint64_t calls, returns; /* exits with jump kind call / return */
    uint64_t allocs, frees;  /* heap events (only malloc and free here) */
    uint64_t marks;          /* mr_write_mark events */
    uint32_t threads;        /* distinct thread ids */
} synth_truth;

/* Name <-> pattern. synth_pattern_from_name() returns -1 for an unknown
 * name; synth_pattern_name() returns NULL for an unknown pattern. */
int synth_pattern_from_name(const char *name);
const char *synth_pattern_name(int pattern);

/* The accepted names, "sequential, strided, ..." for messages. */
const char *synth_pattern_list(void);

/* Writes a whole synthetic program's events (process, definitions,
 * executions, heap, threads) to w, but not the end record: the caller
 * closes w with mr_writer_close() (synth_end() gives a fitting end).
 * w may be NULL to run the generator only (for on_access and truth).
 * truth may be NULL; it is filled only on success. Returns 0, or -1 when
 * o is invalid (unknown pattern), the writer failed (mr_writer_error()
 * says why; the generator stops at the first failure) or memory ran out
 * (mr_writer_error() is then NULL). */
int synth_write(mr_writer *w, const synth_options *o, synth_truth *truth);

/* The end record of a synthetic program: a normal exit with status 0. */
mr_end synth_end(void);

/* One call for tests: opens path ("-" is stdout) with wopts (may be NULL),
 * writes the synthetic trace and closes it with synth_end(). Returns 0,
 * or -1 with *err set (free it with mr_free_error). */
int synth_write_file(const char *path, const synth_options *o,
                     const mr_writer_options *wopts, synth_truth *truth,
                     char **err);

/* The truth as one JSON object with the keys and conventions of
 * `trace-info --json` (instructions, blocks, loads, stores, modifies,
 * calls, returns, allocs, frees, threads, marks, accesses, values), where a
 * modify also counts in loads and in stores. Writes at most n bytes
 * (including the NUL) into buf and returns buf. */
char *synth_truth_json(const synth_truth *t, char *buf, size_t n);

#endif /* MEMREC_SYNTH_H */
