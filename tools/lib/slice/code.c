/*
 * code.c: instruction bytes from module files (see code.h).
 */
#include "slice/code.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"

/* One loadable segment: file bytes [offset, offset + size) at vaddr. */
typedef struct segment {
    uint64_t vaddr, size, offset;
} segment;

/* A module as the trace named it, and its file once opened. */
typedef struct module {
    char *path;
    uint64_t text_addr, text_size;
    int64_t bias;
    int state;                  /* 0 not opened yet, 1 open, 2 unreadable */
    int fd;
    segment *segs;
    size_t nsegs;
    uint64_t got[2][2];         /* runtime [start, end) of .got and .got.plt; empty: 0 0 */
} module;

struct slice_code {
    module *mods;
    size_t nmods, cap;
};

slice_code *slice_code_new(void)
{
    return calloc(1, sizeof(slice_code));
}

void slice_code_free(slice_code *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nmods; i++) {
        free(c->mods[i].path);
        free(c->mods[i].segs);
        if (c->mods[i].state == 1)
            close(c->mods[i].fd);
    }
    free(c->mods);
    free(c);
}

int slice_code_add_module(slice_code *c, const mr_module *m)
{
    if (!m->path || ARRAY_FIT(c->mods, c->cap, c->nmods + 1) < 0)
        return m->path ? -1 : 0;
    module *d = &c->mods[c->nmods];
    if (!(d->path = strdup(m->path)))
        return -1;
    d->text_addr = m->text_addr;
    d->text_size = m->text_size;
    d->bias = m->bias;
    c->nmods++;
    return 0;
}

/* The runtime ranges of d's .got and .got.plt, from its section headers. */
static void find_got(module *d, Elf *e)
{
    size_t strndx;
    Elf_Scn *scn = NULL;
    if (elf_getshdrstrndx(e, &strndx) != 0)
        return;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, strndx, sh.sh_name) : NULL;
        int k = !name ? -1 : !strcmp(name, ".got") ? 0 : !strcmp(name, ".got.plt") ? 1 : -1;
        if (k >= 0 && sh.sh_addr) {
            d->got[k][0] = sh.sh_addr + (uint64_t)d->bias;
            d->got[k][1] = d->got[k][0] + sh.sh_size;
        }
    }
}

/* Reads the PT_LOAD headers of d's file; 0 or -1 (not an ELF file). */
static int open_module(module *d)
{
    size_t n = 0;
    int rc = -1;
    d->fd = open(d->path, O_RDONLY);
    if (d->fd < 0)
        return -1;
    Elf *e = elf_begin(d->fd, ELF_C_READ, NULL);
    if (e && elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0 &&
        (d->segs = calloc(n + 1, sizeof *d->segs))) {
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
                d->segs[d->nsegs++] = (segment){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
        }
        find_got(d, e);
        rc = 0;
    }
    if (e)
        elf_end(e);
    if (rc < 0)
        close(d->fd);
    return rc;
}

int slice_code_read(slice_code *c, uint64_t addr, uint8_t *buf, uint32_t n)
{
    for (size_t i = 0; i < c->nmods; i++) {
        module *d = &c->mods[i];
        if (addr < d->text_addr || addr - d->text_addr >= d->text_size)
            continue;
        if (d->state == 0) {
            elf_version(EV_CURRENT);
            d->state = open_module(d) == 0 ? 1 : 2;
        }
        if (d->state != 1)
            return -1;
        uint64_t v = addr - (uint64_t)d->bias;
        for (size_t s = 0; s < d->nsegs; s++) {
            const segment *g = &d->segs[s];
            if (v < g->vaddr || v - g->vaddr >= g->size || g->size - (v - g->vaddr) < n)
                continue;
            return pread(d->fd, buf, n, (off_t)(g->offset + (v - g->vaddr))) == (ssize_t)n ? 0 : -1;
        }
        return -1;
    }
    return -1;
}

int slice_code_in_got(const slice_code *c, uint64_t addr)
{
    for (size_t i = 0; i < c->nmods; i++)
        for (int k = 0; k < 2; k++)
            if (addr >= c->mods[i].got[k][0] && addr < c->mods[i].got[k][1])
                return 1;
    return 0;
}

const char *slice_code_unreadable(const slice_code *c)
{
    for (size_t i = 0; i < c->nmods; i++)
        if (c->mods[i].state == 2)
            return c->mods[i].path;
    return NULL;
}
