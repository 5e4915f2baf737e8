/* encoder.h: what the parts of memrec-encoder share. */
#ifndef MEMREC_ENCODER_H
#define MEMREC_ENCODER_H

#include "memrec_trace.h"

/* Writes a data object for every sized STT_OBJECT symbol of module m's file
 * (its .symtab, else its .dynsym), at the module's load bias. A file that
 * cannot be read adds nothing (returns 0); a writer failure returns -1. */
int encoder_write_dataobjs(mr_writer *w, const mr_module *m);

#endif
