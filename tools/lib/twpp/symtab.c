/* symtab.c: the symbol table's columns (see symtab.h). */
#include "twpp/symtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/u64map.h"

/* A name split as "PREFIX:LINE" when it ends so (LINE decimal, as %u
 * prints it); else the whole name is the prefix and line is 0. The line
 * is stored plus one. */
static size_t split_name(const char *name, uint32_t *line)
{
    size_t n = strlen(name);
    const char *colon = strrchr(name, ':');
    char back[16];
    *line = 0;
    if (!colon || !colon[1] || strlen(colon + 1) > 9)
        return n;
    unsigned long v = strtoul(colon + 1, NULL, 10);
    snprintf(back, sizeof back, "%lu", v);
    if (strcmp(back, colon + 1))
        return n;
    *line = (uint32_t)v + 1;
    return (size_t)(colon - name);
}

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
    return h;
}

void twpp_symtab_write(twpp_buf *b, const twpp_symbol *s, uint32_t n)
{
    u64map seen = {0};          /* hash of a prefix -> symbol whose prefix it is, + 1 */
    uint32_t *prefix = calloc((size_t)n + 1, sizeof *prefix), *line = calloc((size_t)n + 1, sizeof *line);
    size_t *len = calloc((size_t)n + 1, sizeof *len);
    twpp_buf strings = {0};
    uint32_t nprefixes = 0;
    if (!prefix || !line || !len)
        b->err = 1;
    for (uint32_t i = 0; i < n && !b->err; i++) {
        const char *name = s[i].where ? s[i].where : "";
        len[i] = split_name(name, &line[i]);
        for (uint64_t key = hash_bytes(name, len[i]);; key++) {
            int added;
            void **slot = u64map_slot_of(&seen, key, &added);
            if (!slot) {
                b->err = 1;
                break;
            }
            if (added) {
                *slot = (void *)(uintptr_t)(i + 1);
                prefix[i] = nprefixes++;
                buf_uv(&strings, len[i]);
                buf_bytes(&strings, name, len[i]);
                break;
            }
            uint32_t j = (uint32_t)(uintptr_t)*slot - 1;
            if (len[j] == len[i] && !memcmp(s[j].where ? s[j].where : "", name, len[i])) {
                prefix[i] = prefix[j];
                break;
            }
        }
    }
    buf_uv(b, nprefixes);
    buf_bytes(b, strings.p, strings.n);
    b->err |= strings.err;
    for (uint32_t i = 0; i < n; i++)
        buf_sv(b, (int64_t)(s[i].addr - (i ? s[i - 1].addr : 0)));
    for (uint32_t i = 0; i < n; i++)
        buf_sv(b, (int64_t)s[i].block - (i ? (int64_t)s[i - 1].block : 0));
    for (uint32_t i = 0; i < n; i++)
        buf_uv(b, s[i].exit);
    for (uint32_t i = 0; i < n; i++)
        buf_uv(b, s[i].ninstrs);
    for (uint32_t i = 0; i < n; i++)
        buf_uv(b, s[i].jump);
    for (uint32_t i = 0; i < n && prefix; i++)
        buf_uv(b, prefix[i]);
    for (uint32_t i = 0; i < n && line; i++)
        buf_uv(b, line[i]);
    u64map_free(&seen);
    free(strings.p);
    free(prefix);
    free(line);
    free(len);
}

int twpp_symtab_read(twpp_cur *c, twpp_symbol *s, uint32_t n)
{
    uint64_t nprefixes = cur_uv(c, (uint64_t)(c->end - c->p));
    const uint8_t **at = calloc(nprefixes + 1, sizeof *at);
    uint64_t *len = calloc(nprefixes + 1, sizeof *len), *prefix = calloc((size_t)n + 1, sizeof *prefix);
    if (!at || !len || !prefix)
        c->bad = 1;
    for (uint64_t k = 0; k < nprefixes && !c->bad; k++) {
        len[k] = cur_uv(c, (uint64_t)(c->end - c->p));
        at[k] = c->p;
        c->p += len[k];
    }
    uint64_t addr = 0;
    int64_t block = 0;
    for (uint32_t i = 0; i < n && !c->bad; i++)
        s[i].addr = addr += (uint64_t)cur_sv(c);
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        block += cur_sv(c);
        if (block < 0 || block > UINT32_MAX)
            c->bad = 1;
        s[i].block = (uint32_t)block;
    }
    for (uint32_t i = 0; i < n && !c->bad; i++)
        s[i].exit = (uint32_t)cur_uv(c, UINT32_MAX);
    for (uint32_t i = 0; i < n && !c->bad; i++)
        s[i].ninstrs = (uint32_t)cur_uv(c, UINT32_MAX);
    for (uint32_t i = 0; i < n && !c->bad; i++)
        s[i].jump = (uint32_t)cur_uv(c, MR_JUMP_OTHER);
    for (uint32_t i = 0; i < n && !c->bad; i++)
        prefix[i] = cur_uv(c, nprefixes ? nprefixes - 1 : 0);
    if (n && !nprefixes)
        c->bad = 1;
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint64_t k = prefix[i], line = cur_uv(c, (uint64_t)UINT32_MAX + 1);
        if (c->bad || !(s[i].where = malloc(len[k] + 24))) {
            c->bad = 1;
            break;
        }
        memcpy(s[i].where, at[k], len[k]);
        if (line)               /* the line back as split_name found it */
            snprintf(s[i].where + len[k], 24, ":%lu", (unsigned long)(line - 1));
        else
            s[i].where[len[k]] = 0;
    }
    free(at);
    free(len);
    free(prefix);
    return c->bad ? -1 : 0;
}
