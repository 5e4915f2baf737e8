/*
 * plus.h: the memory dependences of a load instance read from the .twpp
 * file's TWPP+ (twpp/edges.h), as Figure 5.7 follows them (lines 20-22,
 * 29-34). A dynamic load is <G0, FC0, BC0>: its access point (function,
 * symbol, instruction, kind in the dictionary), its call's number among
 * its function's calls and its symbol's execution number in that call.
 * Its edge names the store <G1, FC1, BC1>, which maps back to a step the
 * same way. A load with no edge whose point has a single address had its
 * edge dropped as recoverable from control flow (both ends single-address):
 * its store is the latest earlier instance, in the thread, of a
 * single-address store point with that address (section 5.1.2's
 * recovery). Otherwise it read memory no store wrote.
 *
 * TWPP+'s edges are 8-byte granular (twpp/deps.h): a load depends on the
 * latest store to any 8-byte granule it touches, which the trace's
 * byte-exact last writers (run.h) refine.
 */
#ifndef MEMREC_SLICE_PLUS_H
#define MEMREC_SLICE_PLUS_H

#include <stddef.h>
#include <stdint.h>

#include "slice/run.h"

/* Reads the access-point dictionary (after slice_run_pass). NULL with err. */
struct slice_plus *slice_plus_open(slice_run *r, char *err, size_t errlen);
void slice_plus_free(struct slice_plus *p);

/* The store instances (SLICE_KEY) load access a read from: 0 or 1 of
 * them into *key; -1 on corrupt grammars or out of memory. */
int slice_plus_store(const slice_run *r, uint64_t a, uint64_t *key);

/* The first error slice_plus_store met, or NULL. */
const char *slice_plus_error(const slice_run *r);

#endif
