/*
 * deps.h: the dynamic dependences of one instruction instance, found on
 * demand (seed 001, section 5.3: TWPP+ "builds the dynamic dependence
 * graph incrementally as slicing requests are processed"):
 *   - register data: for each register it reads, the latest earlier
 *     instance in its thread that wrote it (the walk back of Figure 5.7,
 *     lines 24-28, one instruction at a time; steps whose block writes
 *     none of the register are skipped whole);
 *   - memory data: for each load, the store instances of its recorded
 *     edges (Figure 5.7, lines 20-22 and 29-34);
 *   - control: the latest earlier instance, in the same call, of a branch
 *     it is control dependent on (cfg.h); none in the call (code that
 *     runs whenever the function is called) makes it depend on the call
 *     instruction of its caller.
 * Instances of the program's startup (before main's call, in its thread:
 * the dynamic loader, libc's initialisation; run.h main_step) are not
 * dependences: what they computed is the environment the program starts
 * in, as it is to a source-level slice.
 */
#ifndef MEMREC_SLICE_DEPS_H
#define MEMREC_SLICE_DEPS_H

#include <stdint.h>

#include "slice/cfg.h"
#include "slice/run.h"

/* An instruction instance as one number: step << 12 | index. */
#define SLICE_KEY(s, i) ((uint64_t)(s) << 12 | (i))
#define SLICE_KEY_STEP(k) ((uint64_t)(k) >> 12)
#define SLICE_KEY_INDEX(k) ((uint32_t)((k) & 0xfff))
#define SLICE_MAX_INDEX 0xfff

/* Called with every instance an instance depends on; non-zero stops. */
typedef int (*slice_dep_fn)(void *ctx, uint64_t key);

/* Every dependence of instance key (registers, memory, control). 0, fn's
 * non-zero value, or -1 when out of memory or on corrupt TWPP+ edges
 * (slice_plus_error says which). */
int slice_deps(const slice_run *r, slice_cfg *g, uint64_t key, slice_dep_fn fn, void *ctx);

/* The latest instance before (s, i) in its thread that writes register
 * reg: 1 and *key, or 0. */
int slice_find_def(const slice_run *r, uint64_t s, uint32_t i, int reg, uint64_t *key);

/* Is instance key in the program's startup (run.h main_step)? */
int slice_in_startup(const slice_run *r, uint64_t key);

/* The instance of access a. */
uint64_t slice_access_key(const slice_run *r, uint64_t a);

/* The static instruction of an instance. */
uint32_t slice_key_insn(const slice_run *r, uint64_t key);

/* The instance that starts the line instance key belongs to (walking
 * back in its call while the line stays the same). */
uint64_t slice_line_entry(const slice_run *r, uint64_t key);

#endif
