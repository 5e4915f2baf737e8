/* symbolize.c: code addresses as "function:line" and friends. */
#include "base/symbolize.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *sym_basename(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* "module+0xOFF" of a code address in a module, else "0xADDR". */
static const char *module_offset(const mr_reader *r, uint64_t addr, char *buf, size_t n)
{
    const mr_module *m = mr_reader_module(r, addr);
    if (m && m->path)
        /* stripped code: for addr2line -e MODULE or objdump */
        snprintf(buf, n, "%s+0x%" PRIx64, sym_basename(m->path), addr - (uint64_t)m->bias);
    else
        snprintf(buf, n, "0x%" PRIx64, addr);
    return buf;
}

const char *sym_function(const mr_reader *r, uint64_t entry, char *buf, size_t n)
{
    const mr_symbol *s = mr_reader_symbol(r, entry);
    if (s && s->function) {
        snprintf(buf, n, "%s", s->function);
        return buf;
    }
    return module_offset(r, entry, buf, n);
}

const char *sym_where(const mr_reader *r, uint64_t addr, char *buf, size_t n)
{
    const mr_symbol *s = mr_reader_symbol(r, addr);
    if (s && s->function && s->line)
        snprintf(buf, n, "%s:%" PRIu32, s->function, s->line);
    else if (s && s->function)
        snprintf(buf, n, "%s", s->function);
    else if (s && s->file && s->line)
        snprintf(buf, n, "%s:%" PRIu32, sym_basename(s->file), s->line);
    else
        module_offset(r, addr, buf, n);
    return buf;
}

