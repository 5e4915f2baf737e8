/*
 * code.h: machine code of a recorded program, read back from its module
 * files. A trace names each module (path, text range, load bias) but holds
 * no instruction bytes; the bytes at a runtime address are at file
 * address addr - bias, which the module's ELF program headers (read with
 * libelf) map to a file offset. A module that is gone or no ELF file (the
 * vdso) gives no bytes.
 */
#ifndef MEMREC_SLICE_CODE_H
#define MEMREC_SLICE_CODE_H

#include <stdint.h>

#include "memrec_trace.h"

typedef struct slice_code slice_code;

slice_code *slice_code_new(void);
void slice_code_free(slice_code *c);

/* Remembers a module (its path is copied). 0, or -1 when out of memory. */
int slice_code_add_module(slice_code *c, const mr_module *m);

/* Copies the n bytes of code at runtime address addr into buf. 0, or -1
 * when no readable module file holds them. */
int slice_code_read(slice_code *c, uint64_t addr, uint8_t *buf, uint32_t n);

/* Is addr in the GOT (.got, .got.plt) of a module whose file was read?
 * What is loaded from there is an address the dynamic loader resolved. */
int slice_code_in_got(const slice_code *c, uint64_t addr);

/* Path of the first module whose file could not be read, or NULL. */
const char *slice_code_unreadable(const slice_code *c);

#endif
