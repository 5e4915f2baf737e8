/*
 * access.h: the one access stream. Every analysis that looks at memory
 * accesses takes them from here: for each block execution of a trace, its
 * accesses with the number of their static instruction (stream/insns.h),
 * guarded accesses whose guard was false dropped and the others matched to
 * their definitions, batched runs (mr_reader_batch) handed over whole, and
 * a record of the caller's for every instruction.
 *
 *     access_stream *s = access_stream_new(sizeof(my_insn));
 *     while (cli_next(reader, &ev)) {
 *         access_exec x;
 *         if (access_stream_exec(s, &ev, &x) <= 0)   // -1: out of memory
 *             continue;
 *         for (uint32_t i = 0; i < x.n; i++) {
 *             my_insn *mine = access_stream_user(s, x.insn[i]);
 *             ... x.acc[i].addr, x.acc[i].size, access_time(&x, i) ...
 *         }
 *     }
 */
#ifndef MEMREC_ACCESS_H
#define MEMREC_ACCESS_H

#include <stddef.h>
#include <stdint.h>
#include "memrec_trace.h"
#include "stream/insns.h"

/* The accesses of one MR_EV_EXEC event (or of a batch of executions). */
typedef struct access_exec {
    const mr_event *ev;         /* the event */
    uint32_t n;                 /* accesses performed */
    const mr_access *acc;       /* ev->u.exec.accesses */
    const uint32_t *insn;       /* the instruction number of each */
    uint64_t repeat;            /* executions it stands for: 1 unless the
                                 * reader batches; then execution j's access
                                 * i was at acc[i].addr + j * strides[i] */
    const uint64_t *strides;    /* NULL when repeat is 1 */
    int distinct;               /* no instruction appears twice in insn[] */
} access_exec;

typedef struct access_stream access_stream;

/* user_size: bytes of the caller's per instruction, zeroed at its first
 * sight (0: none). NULL when out of memory. */
access_stream *access_stream_new(size_t user_size);
void access_stream_free(access_stream *s);

/* Takes one event of the trace. For an execution with accesses it fills
 * *x and returns 1; for any other event 0; -1 when out of memory. *x is
 * valid until the next call. */
int access_stream_exec(access_stream *s, const mr_event *ev, access_exec *x);

/* The caller's record of instruction insn (valid until the next
 * access_stream_exec, which may move the records). */
static inline void *access_stream_user(access_stream *s, uint32_t insn);

/* The static instructions seen so far. */
const insn_table *access_stream_insns(const access_stream *s);

/* Trace time of access i of execution j of x: the block's time plus the
 * instructions executed before the access's instruction. */
static inline uint64_t access_time(const access_exec *x, uint32_t i, uint64_t j)
{
    return x->ev->time + j * x->ev->u.exec.period + x->acc[i].instr;
}

/* ---- inline part ---------------------------------------------------------- */
struct access_stream_head {
    char *user;                 /* user_size bytes per instruction */
    size_t user_size;
};
static inline void *access_stream_user(access_stream *s, uint32_t insn)
{
    struct access_stream_head *h = (struct access_stream_head *)s;
    return h->user + (size_t)insn * h->user_size;
}

#endif /* MEMREC_ACCESS_H */
