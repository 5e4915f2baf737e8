/*
 * dump_out.h: fast buffered text output for commands that print a lot
 * (trace-dump prints one line per access: 100M lines must not cost 100M
 * printf calls). Lines are built in a large buffer with hand-written
 * number formatters and handed to a stdio stream one buffer at a time.
 *
 * A sink that goes away (stdout piped into `head`) is not an error storm:
 * the first failed write marks the output failed, later output is dropped,
 * and the caller checks out_failed() once per event to stop reading.
 */
#ifndef MEMREC_DUMP_OUT_H
#define MEMREC_DUMP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A buffer in front of a stdio stream. */
typedef struct dump_out {
    char *buf;
    size_t len;                 /* bytes waiting in buf */
    size_t cap;                 /* size of buf */
    FILE *sink;                 /* where full buffers go */
    int error;                  /* errno of the first failed write, or 0 */
} dump_out;

/* Sets o up to write to sink through a buffer of cap bytes (0: 1 MiB). */
void out_init(dump_out *o, FILE *sink, size_t cap);

/* Hands everything buffered to the sink and flushes it. 0 or -1. */
int out_flush(dump_out *o);

/* Flushes and frees the buffer (the sink stays open). 0 or -1. */
int out_close(dump_out *o);

/* Nonzero once a write failed; out_error() is its errno (EPIPE when the
 * reader of a pipe went away). */
static inline int out_failed(const dump_out *o) { return o->error != 0; }
static inline int out_error(const dump_out *o) { return o->error; }

/* Makes room for n more bytes (flushing if needed); the slow path of the
 * appenders below. n must not exceed the capacity. */
void out_make_room(dump_out *o, size_t n);

static inline void out_reserve(dump_out *o, size_t n)
{
    if (o->cap - o->len < n)
        out_make_room(o, n);
}

static inline void out_char(dump_out *o, char c)
{
    out_reserve(o, 1);
    o->buf[o->len++] = c;
}

/* Appends n bytes. */
void out_mem(dump_out *o, const char *s, size_t n);

/* Appends a NUL-terminated string. */
void out_str(dump_out *o, const char *s);

/* Appends v in lower-case hexadecimal, zero-padded to at least width
 * digits, without a prefix ("%0*lx"). */
void out_hex(dump_out *o, uint64_t v, int width);

/* Appends "0x" and v in hexadecimal ("%#lx", but "0x0" for zero). */
void out_addr(dump_out *o, uint64_t v);

/* Appends v in decimal. */
void out_u64(dump_out *o, uint64_t v);
void out_i64(dump_out *o, int64_t v);

/* printf into the buffer, for the rare lines where speed does not matter. */
void out_fmt(dump_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends s as a JSON string literal: quotes, backslash escapes for
 * quote, backslash and control bytes (\n, \t, ..., \u00XX). Other bytes,
 * including UTF-8 sequences, pass through unchanged. NULL prints null. */
void out_quoted(dump_out *o, const char *s);

#endif /* MEMREC_DUMP_OUT_H */
