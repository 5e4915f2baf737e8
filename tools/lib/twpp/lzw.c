/* lzw.c: LZW over bytes (see lzw.h). */
#include "twpp/lzw.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/u64map.h"

#define LZW_CLEAR 256
#define LZW_FIRST 257           /* first code of a learned string */
#define LZW_MAX   65536         /* table entries: codes up to 16 bits */

/* Bit writer, least significant bit first. */
typedef struct bitw {
    uint8_t *p;
    size_t n, cap;
    uint64_t acc;
    int bits;
} bitw;

static int put_code(bitw *w, uint32_t code, int width)
{
    w->acc |= (uint64_t)code << w->bits;
    w->bits += width;
    while (w->bits >= 8) {
        if (ARRAY_FIT(w->p, w->cap, w->n + 1) < 0)
            return -1;
        w->p[w->n++] = (uint8_t)w->acc;
        w->acc >>= 8;
        w->bits -= 8;
    }
    return 0;
}

/* Code width while next codes are handed out. */
static int width_for(uint32_t next)
{
    int w = 9;
    while (w < 16 && next >= (1u << w))
        w++;
    return w;
}

int lzw_compress(const uint8_t *in, size_t n, uint8_t **out, size_t *outn)
{
    bitw w = {0};
    u64map table = {0};         /* prefix code << 8 | byte -> code + 1 */
    uint32_t next = LZW_FIRST, prefix = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i == 0) {
            prefix = in[0];
            continue;
        }
        int added;
        void **slot = u64map_slot_of(&table, (uint64_t)prefix << 8 | in[i], &added);
        if (!slot) {
            rc = -1;
            break;
        }
        if (!added) {
            prefix = (uint32_t)(uintptr_t)*slot - 1;
            continue;
        }
        rc = put_code(&w, prefix, width_for(next));
        *slot = (void *)(uintptr_t)(next + 1);
        if (++next == LZW_MAX) {        /* full: clear and start again */
            rc = rc ? rc : put_code(&w, LZW_CLEAR, 16);
            u64map_free(&table);
            u64map_init(&table);
            next = LZW_FIRST;
        }
        prefix = in[i];
    }
    if (n && rc == 0)
        rc = put_code(&w, prefix, width_for(next));
    if (rc == 0 && w.bits)
        rc = put_code(&w, 0, 8 - w.bits);
    u64map_free(&table);
    if (rc < 0) {
        free(w.p);
        return -1;
    }
    *out = w.p;
    *outn = w.n;
    return 0;
}

/* One string of the table: its prefix code, its last byte, its length. */
typedef struct lzw_entry {
    uint32_t prefix;
    uint8_t byte;
    uint32_t len;
} lzw_entry;

/* Writes code's string at out[at..]; its length, or 0 when it does not fit. */
static size_t emit(const lzw_entry *t, uint32_t code, uint8_t *out, size_t at, size_t outn)
{
    size_t len = t[code].len;
    if (len > outn - at)
        return 0;
    for (size_t k = len; k-- > 0; code = t[code].prefix)
        out[at + k] = t[code].byte;
    return len;
}

int lzw_expand(const uint8_t *in, size_t n, uint8_t *out, size_t outn)
{
    lzw_entry *t = malloc(LZW_MAX * sizeof *t);
    if (!t)
        return -1;
    for (uint32_t c = 0; c < 256; c++)
        t[c] = (lzw_entry){ 0, (uint8_t)c, 1 };
    size_t at = 0, pos = 0;      /* bytes out, bits in */
    uint32_t next = LZW_FIRST, prev = UINT32_MAX;
    int rc = 0;
    while (at < outn) {
        /* the decoder learns one code behind the encoder: width of next + 1 */
        int width = prev == UINT32_MAX ? 9 : width_for(next + 1);
        if (pos + (size_t)width > n * 8) {
            rc = -1;
            break;
        }
        uint32_t code = 0;
        for (int b = 0; b < width; b++, pos++)
            code |= (uint32_t)(in[pos >> 3] >> (pos & 7) & 1) << b;
        if (code == LZW_CLEAR) {        /* only where the encoder's table filled */
            if (next != LZW_MAX - 1) {
                rc = -1;
                break;
            }
            next = LZW_FIRST;
            prev = UINT32_MAX;
            continue;
        }
        if (code > next || (code == next && prev == UINT32_MAX) ||
            (prev != UINT32_MAX && next >= LZW_MAX - 1)) {
            rc = -1;
            break;
        }
        if (prev != UINT32_MAX) {       /* learn prev + the first byte of code */
            uint32_t c = code == next ? prev : code;
            while (t[c].len > 1)
                c = t[c].prefix;
            t[next] = (lzw_entry){ prev, t[c].byte, t[prev].len + 1 };
            next++;
        }
        size_t len = emit(t, code, out, at, outn);
        if (!len) {
            rc = -1;
            break;
        }
        at += len;
        prev = code;
    }
    free(t);
    return rc;
}
