/*
 * replay.h: the control flow of a .twpp file replayed in order, for
 * recovering the dependence edges TWPP+ dropped (seed 001, section
 * 5.1.2: "the dynamic call graph, as well as a function's control flow
 * graph, are traversed"). Each thread's DCG is walked in preorder as
 * twpp/expand.c walks it (the i-th call-exit block of a call makes its
 * i-th child), keeping what TWPP+ names instances by: each call's
 * function and its number FC among that function's calls, and each
 * block's instance BC within its call (undone when the call returns, as
 * twpp/build.c counts them). Only the blocks the caller marks are handed
 * over.
 *
 * FC is counted in walk order, thread by thread; the builder counts calls
 * in the order they ran over all threads. The two agree when one thread
 * calls a function (always for a single-threaded program).
 */
#ifndef MEMREC_REDUNDANCY_REPLAY_H
#define MEMREC_REDUNDANCY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "twpp/file.h"

/* Called per execution of a marked symbol: function fn's call fc, its
 * bc-th execution of symbol in that call. Non-zero stops the replay. */
typedef int (*redund_replay_fn)(void *ctx, uint32_t fn, uint32_t fc, uint32_t symbol,
                                uint32_t bc);

/* Replays f (every block, the DCG and the symbols read), calling fn for
 * the symbols s with marked[s] set. 0, fn's non-zero value, or -1 with a
 * message in err. */
int redund_replay(twpp_file *f, const uint8_t *marked, redund_replay_fn fn, void *ctx,
                  char *err, size_t errlen);

#endif
