/* dump_out.c: fast buffered text output, see dump_out.h. */
#include "dump/dump_out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define OUT_DEFAULT_CAP (1u << 20)

void out_init(dump_out *o, FILE *sink, size_t cap)
{
    o->cap = cap ? cap : OUT_DEFAULT_CAP;
    o->buf = malloc(o->cap);
    if (!o->buf) {
        /* Too early to print anything useful: behave like a dead sink. */
        o->cap = 0;
        o->error = ENOMEM;
    } else {
        o->error = 0;
    }
    o->len = 0;
    o->sink = sink;
}

/* Writes the buffer out; on failure remembers errno and drops the data. */
static void out_drain(dump_out *o)
{
    if (o->len && !o->error) {
        errno = 0;
        if (fwrite(o->buf, 1, o->len, o->sink) != o->len)
            o->error = errno ? errno : EIO;
    }
    o->len = 0;
}

int out_flush(dump_out *o)
{
    out_drain(o);
    if (!o->error && fflush(o->sink) != 0)
        o->error = errno ? errno : EIO;
    return o->error ? -1 : 0;
}

int out_close(dump_out *o)
{
    int rc = o->buf ? out_flush(o) : -1;
    free(o->buf);
    o->buf = NULL;
    o->cap = o->len = 0;
    return rc;
}

void out_make_room(dump_out *o, size_t n)
{
    out_drain(o);
    if (o->cap < n) {
        /* Only reachable with a tiny buffer; grow rather than overflow. */
        char *bigger = realloc(o->buf, n);
        if (!bigger) {
            o->error = ENOMEM;
            return;
        }
        o->buf = bigger;
        o->cap = n;
    }
}

void out_mem(dump_out *o, const char *s, size_t n)
{
    while (n) {
        if (o->len == o->cap)
            out_make_room(o, 1);
        if (o->cap == 0)
            return;
        size_t room = o->cap - o->len;
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void out_str(dump_out *o, const char *s)
{
    out_mem(o, s, strlen(s));
}

static const char hexdigits[] = "0123456789abcdef";

void out_hex(dump_out *o, uint64_t v, int width)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[15 - n++] = hexdigits[v & 15];
        v >>= 4;
    } while (v);
    if (width > 16)
        width = 16;
    out_reserve(o, 16);
    if (o->cap == 0)
        return;
    while (n < width)
        tmp[15 - n++] = '0';
    memcpy(o->buf + o->len, tmp + 16 - n, n);
    o->len += n;
}

void out_addr(dump_out *o, uint64_t v)
{
    out_mem(o, "0x", 2);
    out_hex(o, v, 1);
}

void out_u64(dump_out *o, uint64_t v)
{
    char tmp[20];                 /* UINT64_MAX has 20 digits */
    int n = 0;
    do {
        tmp[19 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    out_mem(o, tmp + 20 - n, n);
}

void out_i64(dump_out *o, int64_t v)
{
    if (v < 0) {
        out_char(o, '-');
        out_u64(o, (uint64_t)0 - (uint64_t)v);   /* also right for INT64_MIN */
    } else {
        out_u64(o, (uint64_t)v);
    }
}

void out_fmt(dump_out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        out_mem(o, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->error = ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_mem(o, big, (size_t)n);
    free(big);
}

/* Length of the valid UTF-8 sequence starting at p (its first byte is
 * >= 0x80), or 0 if it is not one: overlong forms, surrogates and code
 * points above U+10FFFF are refused, as JSON parsers refuse them. */
static size_t utf8_length(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned min, cp;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2; min = 0x80; cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3; min = 0x800; cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4; min = 0x10000; cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)   /* also stops at the NUL */
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void out_quoted(dump_out *o, const char *s)
{
    if (!s) {
        out_mem(o, "null", 4);
        return;
    }
    out_char(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        switch (c) {
        case '"':  out_mem(o, "\\\"", 2); break;
        case '\\': out_mem(o, "\\\\", 2); break;
        case '\n': out_mem(o, "\\n", 2); break;
        case '\r': out_mem(o, "\\r", 2); break;
        case '\t': out_mem(o, "\\t", 2); break;
        case '\b': out_mem(o, "\\b", 2); break;
        case '\f': out_mem(o, "\\f", 2); break;
        default:
            if (c >= 0x80) {
                size_t n = utf8_length(p);
                if (n) {
                    out_mem(o, (const char *)p, n);
                    p += n - 1;
                    break;
                }
            }
            if (c < 0x20 || c >= 0x7f) {
                /* JSON needs \u escapes for control bytes; DEL and bytes
                 * that are not UTF-8 (a command line may hold any bytes)
                 * become U+00XX so that the output stays valid JSON. */
                out_mem(o, "\\u00", 4);
                out_hex(o, c, 2);
            } else {
                out_char(o, (char)c);
            }
        }
    }
    out_char(o, '"');
}
