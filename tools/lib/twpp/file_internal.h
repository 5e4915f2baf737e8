/*
 * file_internal.h: the open .twpp file as read.c and edges.c share it
 * (not for commands: they use file.h and edges.h).
 */
#ifndef MEMREC_TWPP_FILE_INTERNAL_H
#define MEMREC_TWPP_FILE_INTERNAL_H

#include <stdint.h>

#include "twpp/file.h"
#include "twpp/plus.h"

/* A load point's entry of the load index. */
typedef struct twpp_load_entry {
    uint32_t point;
    uint64_t off, len;          /* the packed chunk holding its six grammars */
    uint64_t at, n;             /* and where they are in the chunk unpacked */
} twpp_load_entry;

struct twpp_file {
    int fd;
    uint64_t size;
    twpp_model m;
    uint64_t *fn_off, *fn_len;  /* function i's packed chunk */
    uint64_t *fn_at, *fn_raw;   /* its block within the chunk unpacked */
    uint8_t *loaded;            /* function i's block: 0 unread, 1 read whole, 2 corrupt,
                                 * 3 lazily, 4 as series (read.c) */
    uint64_t dcg_off, dcg_len, dcg_raw;
    uint64_t symbols_off, symbols_len;
    int symbols_loaded;         /* 0 unread, 1 read, 2 corrupt */
    uint32_t codec;
    int dcg_loaded;             /* 0 unread, 1 read, 2 corrupt */
    /* TWPP+ (edges.c) */
    uint32_t npoints, nloads;
    uint64_t points_off, points_len, index_off, index_len, grammars_off, grammars_len;
    int plus_loaded;            /* 0 unread, 1 read, 2 corrupt */
    twpp_point *points;
    twpp_load_entry *loads;
    uint32_t *load_of;          /* point -> its load index entry, or UINT32_MAX */
};

/* n bytes at off, malloc'd; NULL when they are not in the file. */
uint8_t *twpp_read_at(const twpp_file *f, uint64_t off, uint64_t n);

/* A packed section's bytes (see pack() in file.c), malloc'd in *out with
 * *outn bytes; 0, or -1 when corrupt. */
int twpp_unpack(const uint8_t *p, uint64_t n, uint8_t **out, uint64_t *outn);

/* Appends raw to out packed: codec byte, raw length, bytes (zstd when
 * smaller). */
void twpp_pack(twpp_buf *out, const twpp_buf *raw);

/* Frees what edges.c read. */
void twpp_close_plus(twpp_file *f);

#endif
