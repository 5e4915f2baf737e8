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
uint64_t cur_uv(twpp_cur *c, uint64_t max);
int64_t cur_sv(twpp_cur *c);
uint32_t cur_u32(twpp_cur *c);
uint64_t cur_u64(twpp_cur *c);

#endif
