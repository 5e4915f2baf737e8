/*
 * varint.c: growable byte buffers, LEB128 varints and the bounded cursor
 * used to parse definitions and rare records (SPEC.md "Encodings").
 */
#include <stdlib.h>
#include "trace_internal.h"

int mr_buf_grow(mr_buf *b, size_t extra)
{
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < extra)
        cap *= 2;
    /* MR_PAD spare bytes so inline varint readers may look ahead safely. */
    uint8_t *p = realloc(b->p, cap + MR_PAD);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

void mr_buf_free(mr_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

int mr_buf_varint(mr_buf *b, uint64_t v)
{
    if (mr_buf_reserve(b, 10))
        return -1;
    b->len = mr_put_varint(b->p + b->len, v) - b->p;
    return 0;
}

int mr_buf_bytes(mr_buf *b, const void *p, size_t n)
{
    if (mr_buf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

uint64_t mr_get_varint_slow(const uint8_t **pp, int *bad)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t byte = *p++;
        v |= (uint64_t)(byte & 0x7f) << (shift < 64 ? shift : 0);
        if (!(byte & 0x80)) {
            /* The tenth byte may only hold the top bit of a 64-bit value. */
            if (shift == 63 && byte > 1)
                break;
            *pp = p;
            return v;
        }
    }
    *bad = 1;
    *pp = p;
    return 0;
}

uint64_t mr_cur_varint(mr_cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        uint8_t byte = *c->p++;
        v |= (uint64_t)(byte & 0x7f) << (shift < 64 ? shift : 0);
        if (!(byte & 0x80)) {
            if (shift == 63 && byte > 1)
                break;
            return v;
        }
    }
    c->bad = 1;
    return 0;
}

int64_t mr_cur_svarint(mr_cursor *c)
{
    return mr_unzigzag(mr_cur_varint(c));
}

uint32_t mr_cur_u32(mr_cursor *c, uint32_t max)
{
    uint64_t v = mr_cur_varint(c);
    if (v > max) {
        c->bad = 1;
        return 0;
    }
    return (uint32_t)v;
}

uint8_t mr_cur_byte(mr_cursor *c)
{
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}
