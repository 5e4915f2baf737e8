/* bytes.c: varints and fixed integers for the .twpp file (see bytes.h). */
#include "twpp/bytes.h"

#include <string.h>

#include "base/array.h"

void buf_bytes(twpp_buf *b, const void *v, size_t n)
{
    if (n == 0)
        return;
    if (b->err || ARRAY_FIT(b->p, b->cap, b->n + n) < 0) {
        b->err = 1;
        return;
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

void buf_uv(twpp_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    buf_bytes(b, tmp, n);
}

void buf_sv(twpp_buf *b, int64_t v)
{
    buf_uv(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void buf_u32(twpp_buf *b, uint32_t v)
{
    uint8_t tmp[4];
    for (int i = 0; i < 4; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    buf_bytes(b, tmp, 4);
}

void buf_u64(twpp_buf *b, uint64_t v)
{
    buf_u32(b, (uint32_t)v);
    buf_u32(b, (uint32_t)(v >> 32));
}

uint64_t cur_uv_slow(twpp_cur *c, uint64_t max)
{
    uint64_t v = 0;
    for (int shift = 0; !c->bad; shift += 7) {
        if (c->p >= c->end || shift > 63) {
            c->bad = 1;
            break;
        }
        uint8_t byte = *c->p++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            if (v > max)
                break;
            return v;
        }
    }
    c->bad = 1;
    return 0;
}

uint32_t cur_u32(twpp_cur *c)
{
    if (c->bad || c->end - c->p < 4) {
        c->bad = 1;
        return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)c->p[i] << (8 * i);
    c->p += 4;
    return v;
}

uint64_t cur_u64(twpp_cur *c)
{
    uint64_t lo = cur_u32(c);
    return lo | (uint64_t)cur_u32(c) << 32;
}
