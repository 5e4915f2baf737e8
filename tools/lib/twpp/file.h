/*
 * file.h: the .twpp file (layout to the byte in docs/trace-twpp.md): a
 * fixed header with the offset of every function's block, the symbols,
 * the DCG (zstd or LZW, whichever is smaller), then one block per
 * function, most-called first, then TWPP+: the access-point dictionary,
 * the load index and the dependence grammars (read through edges.h). Reading checks every count, index and
 * length against the file: corrupt or truncated bytes give an error
 * message, never a crash.
 */
#ifndef MEMREC_TWPP_FILE_H
#define MEMREC_TWPP_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "twpp/plus.h"
#include "twpp/twpp.h"

#define TWPP_MAGIC "MRTWPP3\n"
#define TWPP_HEADER_SIZE 144
#define TWPP_CODEC_ZSTD 1
#define TWPP_CODEC_LZW 2
#define TWPP_PACK_RAW 0         /* a section's bytes as they are */
#define TWPP_PACK_ZSTD 1        /* a section's bytes as one zstd frame */
#define TWPP_ZSTD_LEVEL 9
#define TWPP_CHUNK 4096         /* function blocks are packed in chunks of about this many bytes */
#define TWPP_GRAMMAR_CHUNK 16384    /* and dependence grammars in chunks of about this many */

/* Bytes of each part as written (Tables 3.2, 3.3, 3.5). */
typedef struct twpp_sizes {
    uint64_t header;            /* fixed header, function table, names */
    uint64_t symbols;
    uint64_t dcg_raw, dcg_zstd, dcg_lzw, dcg;  /* dcg: the one kept */
    int dcg_codec;
    uint64_t paths;             /* per function: (trace, dict, calls), */
    uint64_t traces;            /* compacted traces in TWPP form, */
    uint64_t dicts;             /* dictionaries: bytes before packing */
    uint64_t blocks;            /* the function blocks as stored (packed in chunks) */
    uint64_t total;
    twpp_plus_sizes plus;       /* TWPP+'s sections (0 without them) */
} twpp_sizes;

/* Writes m to path (functions reordered most-called first; m is not
 * changed), with TWPP+'s sections from plus (finished; NULL: none). 0,
 * or -1 with a message in err. Per-function block sizes (before packing;
 * consecutive small blocks share a zstd chunk) go to fn_bytes[i] for m's
 * function i when fn_bytes is not NULL. */
int twpp_write(const twpp_model *m, const twpp_plus *plus, const char *path, twpp_sizes *sz,
               uint64_t *fn_bytes, char *err, size_t errlen);

/* twpp_write that frees each compacted trace's symbols (v = NULL) as soon
 * as its function is written, keeping the lengths (all a summary counts):
 * they are most of a build's memory (zstd -19 of 2 MB: 629 MB), and the
 * write's buffers and the DCG's zstd context come on top of them. */
int twpp_write_releasing(twpp_model *m, const twpp_plus *plus, const char *path,
                         twpp_sizes *sz, uint64_t *fn_bytes, char *err, size_t errlen);

typedef struct twpp_file twpp_file;

/* Reads the header and function names of path (symbols, blocks and the
 * DCG are read when asked). NULL with a message in err. */
twpp_file *twpp_open(const char *path, char *err, size_t errlen);
void twpp_close(twpp_file *f);

/* The model as far as read: symbols once loaded, functions (names, entries, calls;
 * their paths, traces and dictionaries once loaded), threads once the
 * DCG is loaded. Function i is the i-th most called. */
const twpp_model *twpp_file_model(const twpp_file *f);

/* The function named name, or -1. */
int64_t twpp_find_function(const twpp_file *f, const char *name);

/* Reads the symbols (once; queries that print or expand need them). 0,
 * or -1 with a message in err. */
int twpp_load_symbols(twpp_file *f, char *err, size_t errlen);

/* Reads function i's block (once). 0, or -1 with a message in err. */
int twpp_load_function(twpp_file *f, uint32_t i, char *err, size_t errlen);

/* Frees what loading function i's block gave (its traces, dictionaries,
 * paths), for a reader that visits the functions one at a time; a later
 * load reads it again. */
void twpp_unload_function(twpp_file *f, uint32_t i);

/* Function i's block as extracting its traces needs it (Table 3.4):
 * paths and dictionaries read, each trace left in TWPP form (its length
 * in traces[t].n, v NULL; counts[t] per DBB its timestamps, twpp_ts_skim)
 * rather than expanded. A later twpp_load_function reads it whole. 0, or
 * -1 with a message in err. */
int twpp_load_function_lazy(twpp_file *f, uint32_t i, char *err, size_t errlen);

/* Function i's block with each trace kept as its timestamp series
 * (series[t]: twpp_ts_series), not expanded (traces[t]: its length in n,
 * v NULL): for queries that move whole series (trace-dataflow). A later
 * twpp_load_function reads it whole. 0, or -1 with a message in err. */
int twpp_load_function_series(twpp_file *f, uint32_t i, char *err, size_t errlen);

/* Blocks of path p of a function read lazily: the sum over its trace's
 * DBBs of their timestamps times the length of their chain in the path's
 * dictionary. */
uint64_t twpp_path_blocks(const twpp_function *fn, uint32_t p);

/* Reads the DCG. 0, or -1 with a message in err. */
int twpp_load_dcg(twpp_file *f, char *err, size_t errlen);

/* What twpp_walk tells as it replays the run: a thread's walk starts
 * (threads in file order, from 0), a call of function fn opens (taking
 * its path number path, the DCG node's), a block runs in the innermost
 * open call, the innermost call returns. Any may be NULL; a non-zero
 * value stops the walk. */
typedef struct twpp_walker {
    int (*enter)(void *ctx, uint32_t fn, uint32_t path);
    int (*block)(void *ctx, uint32_t symbol);
    int (*leave)(void *ctx);
    void *ctx;
    const uint8_t *only;        /* NULL: every block; else only the blocks of
                                 * symbols s with only[s] set are told (the
                                 * walk is faster the fewer) */
    int (*thread)(void *ctx, uint32_t t);
} twpp_walker;

/* Reads every block and replays each thread's DCG in preorder, thread by
 * thread: the i-th call-exit block of a call is followed by its i-th
 * child. Every call is left before its thread ends. 0, a callback's
 * non-zero value, or -1 with a message in err (a DCG that does not fit
 * its traces). */
int twpp_walk(twpp_file *f, const twpp_walker *w, char *err, size_t errlen);

/* twpp_walk's blocks alone: every symbol of each thread in execution order
 * (as trace-wpp --expand). */
int twpp_expand(twpp_file *f, twpp_emit_fn fn, void *ctx, char *err, size_t errlen);

#endif
