/* groupname.c: how groups and call sites are named, see groupname.h. */
#include "objects/groupname.h"

#include <inttypes.h>
#include <stdio.h>

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

static void where(const mr_reader *r, uint64_t ip, char *buf, size_t n)
{
    const mr_symbol *sym = obj_site_symbol(r, ip);
    if (sym && sym->function && sym->line)
        snprintf(buf, n, "%s:%" PRIu32, sym->function, sym->line);
    else if (sym && sym->function)
        snprintf(buf, n, "%s", sym->function);
    else
        snprintf(buf, n, "0x%" PRIx64, ip);
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
        where(r, g->ips[i], w, sizeof w);
        int k = snprintf(buf + used, n - used, "%s%s", i ? " <- " : "", w);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}
