/*
 * symtab.h: the .twpp file's symbol table, column by column so that zstd
 * finds the regularities (layout in docs/trace-twpp.md): the distinct
 * "function" parts of the symbols' "function:line" names once, then per
 * column over all symbols: address (delta), block id (delta), exit,
 * instructions, jump kind, name (index of its function part), line.
 */
#ifndef MEMREC_TWPP_SYMTAB_H
#define MEMREC_TWPP_SYMTAB_H

#include <stdint.h>

#include "twpp/bytes.h"
#include "twpp/twpp.h"

/* Appends the n symbols to b (b->err on no memory). */
void twpp_symtab_write(twpp_buf *b, const twpp_symbol *s, uint32_t n);

/* Reads n symbols into s (calloc'd by the caller; names malloc'd). 0, or
 * -1 when the bytes are not such a table (what was read is still freed
 * by freeing the names). */
int twpp_symtab_read(twpp_cur *c, twpp_symbol *s, uint32_t n);

#endif
