/* groupname.c: how groups and call sites are named, see groupname.h. */
#include "objects/groupname.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/symbolize.h"

const char *obj_kind_name(int kind)
{
    static const char *const names[] = { "heap", "static", "stack", "unknown" };
    return kind >= 0 && kind <= OBJ_UNKNOWN ? names[kind] : "?";
}

/* The symbol of a call site: frames are return addresses (or just below
 * them), so look one byte lower to land inside the call instruction. */
const mr_symbol *obj_site_symbol(const mr_reader *r, uint64_t ip)
{
    return ip ? mr_reader_symbol(r, ip - 1) : NULL;
}

/* Copies what follows the word `operator` at p (its symbol: "()", "<<",
 * "[]", "==", ...) to out; returns the characters taken. */
static size_t operator_symbol(const char *p, char *out, size_t room)
{
    size_t k = strncmp(p, "()", 2) == 0 ? 2 : strspn(p, "<>=!+-*/%^&|~[],");
    if (k >= room)
        k = room ? room - 1 : 0;
    memcpy(out, p, k);
    return k;
}

const char *obj_short_function(const char *full, char *buf, size_t n)
{
    size_t o = 0;
    int angle = 0, paren = 0;
    if (!n)
        return buf;
    for (const char *p = full; *p && o + 1 < n; p++) {
        if (!angle && !paren && strncmp(p, "operator", 8) == 0 &&
            !isalnum((unsigned char)p[8]) && p[8] != '_') {
            size_t k = n - 1 - o < 8 ? n - 1 - o : 8;
            memcpy(buf + o, p, k);
            o += k;
            size_t sym = operator_symbol(p + 8, buf + o, n - o);
            o += sym;
            p += 7 + sym;
        } else if (*p == '<' && !paren) {
            if (!angle++)               /* template arguments: "<...>" */
                for (const char *e = "<...>"; *e && o + 1 < n; e++)
                    buf[o++] = *e;
        } else if (*p == '>' && angle && !paren) {
            angle--;
        } else if (*p == '(' && !angle && !paren &&
                   strncmp(p, "(anonymous namespace)", 21) == 0) {
            size_t k = n - 1 - o < 21 ? n - 1 - o : 21;
            memcpy(buf + o, p, k);
            o += k;
            p += 20;
        } else if (*p == '(' && !angle) {
            paren++;                    /* the parameter list goes */
        } else if (*p == ')' && paren && !angle) {
            /* after the outermost list only qualifiers (" const") follow,
             * unless a local name does ("f(int)::{lambda()#1}") */
            if (!--paren && !strstr(p, "::"))
                break;
        } else if (!angle && !paren) {
            if (strncmp(p, " [clone ", 8) == 0)
                break;                  /* GCC's .constprop/.isra copies */
            buf[o++] = *p;
        }
    }
    buf[o] = 0;
    return buf;
}

/* "function@file:line" of a call site: the shortened function name, the
 * file the line is in (an inlined header's, when the debug information
 * says so), the line. */
static void where(const mr_reader *r, const obj_group *g, uint64_t ip,
                  char *buf, size_t n)
{
    const mr_symbol *sym = r ? obj_site_symbol(r, ip) : NULL;
    const char *mod;
    uint64_t off;
    char fn[SYM_BUF];
    int k;                  /* used: a cut name is fine here, the full one
                             * is in alloc_sites */
    if (sym && sym->function)
        obj_short_function(sym->function, fn, sizeof fn);
    if (sym && sym->function && sym->file && sym->line)
        k = snprintf(buf, n, "%.320s@%.160s:%" PRIu32, fn, sym_basename(sym->file), sym->line);
    else if (sym && sym->function && sym->line)
        k = snprintf(buf, n, "%.480s:%" PRIu32, fn, sym->line);
    else if (sym && sym->function && g->map && (mod = objmap_module_at(g->map, ip - 1, &off)))
        /* no line (no debug information): which call in the function, as
         * the module's file address, "Perl_Slab_Alloc@perl+0x1e2c3" */
        k = snprintf(buf, n, "%.300s@%.160s+0x%" PRIx64, fn, mod, off + 1);
    else if (sym && sym->function)
        k = snprintf(buf, n, "%s", fn);
    else if (g->map && (mod = objmap_module_at(g->map, ip - 1, &off)))
        /* stripped code: the module and the return address's place in its
         * file, for addr2line -e MODULE or objdump */
        k = snprintf(buf, n, "%.400s+0x%" PRIx64, mod, off + 1);
    else
        k = snprintf(buf, n, "0x%" PRIx64, ip);
    (void)k;
}

const char *obj_group_name(const mr_reader *r, const obj_group *g,
                           char *buf, size_t n)
{
    if (g->kind != OBJ_HEAP) {
        snprintf(buf, n, "%s", g->name ? g->name : obj_kind_name(g->kind));
        return buf;
    }
    if (!g->depth) {
        snprintf(buf, n, "(no stack)");
        return buf;
    }
    /* All the frames that define the group, so that groups made with
     * --group-depth=N > 1 get different names: "grid:13 <- main:40". */
    obj_group_stack(r, g, buf, n);
    return buf;
}

void obj_group_stack(const mr_reader *r, const obj_group *g, char *buf,
                     size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < g->depth && used + 4 < n; i++) {
        char w[SYM_BUF];
        where(r, g, g->ips[i], w, sizeof w);
        int k = snprintf(buf + used, n - used, "%s%s", i ? " <- " : "", w);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}
