/* symbolize.h: code addresses as people read them, the same in every command. */
#ifndef MEMREC_SYMBOLIZE_H
#define MEMREC_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "memrec_trace.h"

/* Size that always fits what these functions write. */
#define SYM_BUF 512

/* "function:line", "function", "file:line", "module+0xOFF" (the file
 * address in a module without symbols there) or "0xADDR" when nothing is
 * known, written into buf (SYM_BUF bytes). Returns buf. */
const char *sym_where(const mr_reader *r, uint64_t addr, char *buf, size_t n);

/* A function's name from the address of its entry: its symbol's
 * function, else "module+0xOFF", else "0xADDR". Returns buf. */
const char *sym_function(const mr_reader *r, uint64_t entry, char *buf, size_t n);

/* Base name of a path: "/src/app/list.c" -> "list.c". */
const char *sym_basename(const char *path);

#endif
