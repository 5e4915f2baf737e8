/*
 * dump_lackey.h: block executions printed exactly as
 * `valgrind --tool=lackey --trace-mem=yes` prints memory traces, so that
 * scripts written for Lackey read memrec traces unchanged. Lackey's
 * formats (lackey/lk_main.c): "I  %08lx,%lu" for each instruction, then
 * " L %08lx,%lu", " S %08lx,%lu", " M %08lx,%lu" for each of its data
 * accesses in order. Guarded accesses whose guard was false are not
 * printed (Lackey's helper is not called for them either).
 */
#ifndef MEMREC_DUMP_LACKEY_H
#define MEMREC_DUMP_LACKEY_H

#include <stdint.h>
#include "dump/dump_out.h"
#include "memrec_trace.h"

/* Prints the instructions of one block execution (ev->kind == MR_EV_EXEC)
 * and their accesses. Only instructions whose time (ev->time + index) is
 * in [from, to) and, when mask is not NULL, whose mask byte is set are
 * printed, each with its own accesses. */
void dump_lackey_exec(dump_out *o, const mr_event *ev, uint64_t from,
                      uint64_t to, const uint8_t *mask);

#endif /* MEMREC_DUMP_LACKEY_H */
