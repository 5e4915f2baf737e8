/*
 * encoder_elf.c: static data objects (globals, statics) of a module, read
 * from its ELF symbol table with libelf. Valgrind 3.19 gives tools no way
 * to list data symbols, so the encoder reads the file itself.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "encoder.h"

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

static int write_objects(mr_writer *w, const mr_module *m, Elf *elf)
{
    GElf_Shdr shdr;
    Elf_Scn *scn = symbol_section(elf, &shdr);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    if (!data || shdr.sh_entsize == 0)
        return 0;
    size_t n = shdr.sh_size / shdr.sh_entsize;
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
        mr_dataobj d = { .name = name, .addr = sym.st_value + (uint64_t)m->bias,
                         .size = sym.st_size, .module = m->id };
        if (mr_write_dataobj(w, &d) < 0)
            return -1;
    }
    return 0;
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
