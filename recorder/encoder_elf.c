/*
 * encoder_elf.c: static data objects of a module, read from its ELF file
 * with libelf. Valgrind 3.19 gives tools no way to list data symbols, so
 * the encoder reads the file itself.
 *
 * Two kinds of objects:
 *   - symbols: every sized STT_OBJECT symbol (globals, statics), named by
 *     the symbol, from the module's .symtab, else from the .symtab of its
 *     separate debug file (found by build id, as gdb and Valgrind find it:
 *     libc6-dbg names libc's and ld.so's unexported data), else from its
 *     .dynsym;
 *   - section gaps: the bytes of the module's allocated, non-executable
 *     sections (.data, .bss, .got, .got.plt, .data.rel.ro, .rodata,
 *     .dynsym, .dynstr, .rela.dyn, ...) and of its ELF and program headers
 *     that no such symbol covers. Without them, a stripped library's
 *     unexported data, and all of ld.so's work on the modules' tables,
 *     would be `unknown`.
 *
 * Why gaps and not one object per section: objmap finds an object by the
 * nearest start at or below the address and looks only a few objects
 * further down, so an address of .bss behind many symbols would miss an
 * enclosing section object; and a section object's size and offsets would
 * mix the named symbols' bytes in. Gaps never overlap a symbol (the symbol
 * wins) and each access has exactly one object. A gap is named
 * "module:section" (the module's file name) when it starts at the start of
 * its section, else "module:section+0xOFF" with OFF its offset in the
 * section, so OFF plus the offset in the object is the offset in the
 * section.
 *
 * A symbol name longer than WIRE_MAX_STRING bytes is cut as the tool cuts
 * its strings (wire.h): the trace format takes no string over 1 MiB, and
 * a crafted file's longer name would otherwise fail the writer and end
 * the trace. Cut, not skipped: the object's bytes stay named and an
 * access to them stays out of `unknown`.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encoder.h"
#include "wire.h"

/* A range of link-time addresses [start, end). */
typedef struct range {
    uint64_t start, end;
} range;

/* A growable array of ranges. */
typedef struct ranges {
    range *v;
    size_t n, cap;
} ranges;

/* A region that gaps are cut from: a section, or the headers. */
typedef struct region {
    uint64_t start, end;        /* link-time addresses */
    const char *name;           /* section name, or HEADERS_NAME */
} region;

#define HEADERS_NAME "(ELF headers)"    /* the ELF header and program headers */

static int ranges_add(ranges *r, uint64_t start, uint64_t end)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        range *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (range){ start, end };
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int region_by_start(const void *a, const void *b)
{
    const region *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The section holding the symbols: .symtab, or .dynsym in a stripped file. */
static Elf_Scn *symbol_section(Elf *elf, GElf_Shdr *shdr)
{
    Elf_Scn *dyn = NULL, *scn = NULL;
    GElf_Shdr dyn_hdr;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr h;
        if (!gelf_getshdr(scn, &h))
            continue;
        if (h.sh_type == SHT_SYMTAB) {
            *shdr = h;
            return scn;
        }
        if (h.sh_type == SHT_DYNSYM) {
            dyn = scn;
            dyn_hdr = h;
        }
    }
    if (dyn)
        *shdr = dyn_hdr;
    return dyn;
}

/* Does elf have a full symbol table (.symtab)? */
static int has_symtab(Elf *elf)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr h;
        if (gelf_getshdr(scn, &h) && h.sh_type == SHT_SYMTAB)
            return 1;
    }
    return 0;
}

/* The GNU build id of elf: *n bytes at *id. 0 if it has none. */
static int build_id(Elf *elf, const unsigned char **id, size_t *n)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr h;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &h) || h.sh_type != SHT_NOTE ||
            !(data = elf_getdata(scn, NULL)))
            continue;
        GElf_Nhdr nh;
        size_t off = 0, name_at, desc_at;
        while ((off = gelf_getnote(data, off, &nh, &name_at, &desc_at)) > 0) {
            const char *base = data->d_buf;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp(base + name_at, "GNU", 4) == 0 && nh.n_descsz >= 2) {
                *id = (const unsigned char *)base + desc_at;
                *n = nh.n_descsz;
                return 1;
            }
        }
    }
    return 0;
}

#define BUILD_ID_DIR "/usr/lib/debug/.build-id/"
#define BUILD_ID_MAX 64             /* bytes; GNU ld writes 20 (SHA-1) */

/* The separate debug file of a stripped module (Debian's -dbg and -dbgsym
 * packages), where gdb and Valgrind look for it: BUILD_ID_DIR, the build
 * id's first byte in hex, "/", the rest in hex, ".debug". It has the
 * module's full .symtab (local symbols too) at the same link-time
 * addresses. Returns an open descriptor, or -1. */
static int open_debug_file(Elf *elf)
{
    const unsigned char *id;
    size_t n;
    if (!build_id(elf, &id, &n) || n > BUILD_ID_MAX)
        return -1;
    char path[sizeof BUILD_ID_DIR + 2 * BUILD_ID_MAX + sizeof "/.debug"];
    char *p = path + sprintf(path, BUILD_ID_DIR "%02x/", id[0]);
    for (size_t i = 1; i < n; i++)
        p += sprintf(p, "%02x", id[i]);
    strcpy(p, ".debug");
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* name as written: itself, or when longer than WIRE_MAX_STRING bytes its
 * start followed by "...", WIRE_MAX_STRING bytes in all, in cut (which
 * holds WIRE_MAX_STRING + 1 bytes), cut as the tool cuts its strings. */
static const char *cut_name(const char *name, char *cut)
{
    size_t n = strnlen(name, WIRE_MAX_STRING + 1);
    if (n <= WIRE_MAX_STRING)
        return name;
    n = wire_cut_length(name);
    memcpy(cut, name, n);
    memcpy(cut + n, "...", 4);
    return cut;
}

/* Writes the symbols' objects; their link-time ranges go into syms (when
 * memory runs out, syms stays short: *oom is set and gaps are skipped). */
static int write_symbols(mr_writer *w, const mr_module *m, Elf *elf,
                         ranges *syms, int *oom)
{
    GElf_Shdr shdr;
    Elf_Scn *scn = symbol_section(elf, &shdr);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    if (!data || shdr.sh_entsize == 0)
        return 0;
    size_t n = shdr.sh_size / shdr.sh_entsize;
    static char cut[WIRE_MAX_STRING + 1];   /* a cut name (one at a time) */
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
            sym.st_shndx == SHN_UNDEF)
            continue;
        const char *name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        if (!name || !*name)
            continue;
        mr_dataobj d = { .name = cut_name(name, cut), .addr = sym.st_value + (uint64_t)m->bias,
                         .size = sym.st_size, .module = m->id };
        if (mr_write_dataobj(w, &d) < 0)
            return -1;
        if (!*oom && ranges_add(syms, sym.st_value, sym.st_value + sym.st_size) < 0)
            *oom = 1;
    }
    return 0;
}

/* Does section h hold data of the loaded image? Allocated, not code, and
 * taking address space (.tbss does not: its addresses are those of the
 * sections after it; the TLS blocks live elsewhere). */
static int data_section(const GElf_Shdr *h)
{
    return (h->sh_flags & SHF_ALLOC) && !(h->sh_flags & SHF_EXECINSTR) &&
           h->sh_size > 0 && h->sh_type != SHT_NULL &&
           !((h->sh_flags & SHF_TLS) && h->sh_type == SHT_NOBITS);
}

/* The ELF header and the program headers, where the segment at file
 * offset 0 maps them (ld.so reads a module's program headers there). */
static int headers_region(Elf *elf, region *out)
{
    GElf_Ehdr eh;
    size_t phnum;
    if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0)
        return 0;
    uint64_t end = eh.e_phoff + (uint64_t)phnum * eh.e_phentsize;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
            ph.p_offset == 0 && ph.p_filesz >= end) {
            *out = (region){ ph.p_vaddr, ph.p_vaddr + end, HEADERS_NAME };
            return 1;
        }
    }
    return 0;
}

/* The regions gaps are cut from, sorted, none overlapping another (a
 * region starting inside the one before starts at its end). Returns how
 * many, or -1 when out of memory; *out is for the caller to free. */
static long data_regions(Elf *elf, region **out)
{
    size_t nscn, shstr;
    if (elf_getshdrnum(elf, &nscn) != 0 || elf_getshdrstrndx(elf, &shstr) != 0)
        return 0;
    region *v = malloc((nscn + 1) * sizeof *v);
    if (!v)
        return -1;
    size_t n = headers_region(elf, v);
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr h;
        const char *name;
        if (gelf_getshdr(scn, &h) && data_section(&h) &&
            (name = elf_strptr(elf, shstr, h.sh_name)) != NULL && *name)
            v[n++] = (region){ h.sh_addr, h.sh_addr + h.sh_size, name };
    }
    qsort(v, n, sizeof *v, region_by_start);
    uint64_t top = 0;           /* the highest end so far */
    for (size_t i = 0; i < n; i++) {
        if (v[i].start < top)
            v[i].start = top < v[i].end ? top : v[i].end;   /* may become empty */
        if (v[i].end > top)
            top = v[i].end;
    }
    *out = v;
    return (long)n;
}

/* Writes the gap [start, end) of region g as a data object. */
static int write_gap(mr_writer *w, const mr_module *m, const region *g,
                     uint64_t start, uint64_t end)
{
    const char *slash = strrchr(m->path, '/');
    const char *base = slash ? slash + 1 : m->path;
    char name[512];
    if (start == g->start)
        snprintf(name, sizeof name, "%s:%s", base, g->name);
    else
        snprintf(name, sizeof name, "%s:%s+0x%" PRIx64, base, g->name, start - g->start);
    mr_dataobj d = { .name = name, .addr = start + (uint64_t)m->bias,
                     .size = end - start, .module = m->id };
    return mr_write_dataobj(w, &d);
}

/* Writes the gaps of every region that the symbols (sorted) leave. */
static int write_gaps(mr_writer *w, const mr_module *m, const region *regs,
                      size_t nregs, const ranges *syms)
{
    size_t s = 0;               /* first symbol that may end past the cursor */
    for (size_t i = 0; i < nregs; i++) {
        uint64_t at = regs[i].start, end = regs[i].end;
        while (s < syms->n && syms->v[s].end <= at)
            s++;
        /* symbols overlapping the region, in order of start; they may
         * overlap each other (aliases, a symbol inside another) */
        for (size_t k = s; k < syms->n && syms->v[k].start < end && at < end; k++) {
            if (syms->v[k].start > at && write_gap(w, m, &regs[i], at, syms->v[k].start) < 0)
                return -1;
            if (syms->v[k].end > at)
                at = syms->v[k].end;
        }
        if (at < end && write_gap(w, m, &regs[i], at, end) < 0)
            return -1;
    }
    return 0;
}

/* Symbols come from the module's .symtab, else from its separate debug
 * file's, else from its .dynsym; sections always from the module itself
 * (a debug file's allocated sections are empty NOBITS placeholders). */
static int write_objects(mr_writer *w, const mr_module *m, Elf *elf)
{
    ranges syms = { 0 };
    int oom = 0, dfd = -1;
    region *regs = NULL;
    Elf *dbg = NULL;
    if (!has_symtab(elf) && (dfd = open_debug_file(elf)) >= 0 &&
        (dbg = elf_begin(dfd, ELF_C_READ, NULL)) != NULL && !has_symtab(dbg)) {
        elf_end(dbg);
        dbg = NULL;
    }
    int rc = write_symbols(w, m, dbg ? dbg : elf, &syms, &oom);
    if (dbg)
        elf_end(dbg);
    if (dfd >= 0)
        close(dfd);
    long nregs = rc == 0 && !oom ? data_regions(elf, &regs) : 0;
    if (nregs > 0) {
        qsort(syms.v, syms.n, sizeof *syms.v, by_start);
        rc = write_gaps(w, m, regs, (size_t)nregs, &syms);
    }
    free(regs);
    free(syms.v);
    return rc;
}

int encoder_write_dataobjs(mr_writer *w, const mr_module *m)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    int rc = elf ? write_objects(w, m, elf) : 0;
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}
