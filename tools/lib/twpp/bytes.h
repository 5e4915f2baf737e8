/*
 * bytes.h: the .twpp file's integers: LEB128 varints, signed ones
 * zigzag-coded, written into a growing buffer and read back through a
 * bounds-checked cursor that only sets a flag on bad bytes.
 */
#ifndef MEMREC_TWPP_BYTES_H
#define MEMREC_TWPP_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer; err is set when memory ran out. */
typedef struct twpp_buf {
    uint8_t *p;
    size_t n, cap;
    int err;
} twpp_buf;

/* Reading: [p, end); bad is set at the first fault and stays. */
typedef struct twpp_cur {
    const uint8_t *p, *end;
    int bad;
} twpp_cur;

void buf_bytes(twpp_buf *b, const void *v, size_t n);
void buf_uv(twpp_buf *b, uint64_t v);
void buf_sv(twpp_buf *b, int64_t v);
void buf_u32(twpp_buf *b, uint32_t v);      /* little-endian, fixed */
void buf_u64(twpp_buf *b, uint64_t v);

/* A varint at most max (bad, and 0, when not). */
uint64_t cur_uv_slow(twpp_cur *c, uint64_t max);

/* The one-byte varints (most of a file's) inline: reading the series of
 * a function took trace-dataflow's query a third of its time in calls. */
static inline uint64_t cur_uv(twpp_cur *c, uint64_t max)
{
    if (!c->bad && c->p < c->end && *c->p < 0x80 && *c->p <= max)
        return *c->p++;
    return cur_uv_slow(c, max);
}

static inline int64_t cur_sv(twpp_cur *c)
{
    uint64_t z = cur_uv(c, UINT64_MAX);
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

uint32_t cur_u32(twpp_cur *c);
uint64_t cur_u64(twpp_cur *c);

#endif
