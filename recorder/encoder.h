/* encoder.h: what the parts of memrec-encoder share. */
#ifndef MEMREC_ENCODER_H
#define MEMREC_ENCODER_H

#include "memrec_trace.h"

/* Writes module m's static data objects, at its load bias: one for every
 * sized STT_OBJECT symbol (of its .symtab, else of its separate debug
 * file's, else of its .dynsym), and one for every stretch of its allocated
 * non-executable sections and ELF headers that no symbol covers, named
 * "file:section" or "file:section+0xOFF" (encoder_elf.c); a name over
 * WIRE_MAX_STRING bytes is cut to that ending in "...". A file that
 * cannot be read adds nothing (returns 0); a writer failure returns -1. */
int encoder_write_dataobjs(mr_writer *w, const mr_module *m);

#endif
