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
    char *user;                 /* the records (access_user) */
    unsigned user_shift;        /* log2 of a record's size */
} access_exec;

/* The caller's record of access i's instruction: the same as
 * access_stream_user(s, x->insn[i]), without going through s. */
static inline void *access_user(const access_exec *x, uint32_t i)
{
    return x->user + ((size_t)x->insn[i] << x->user_shift);
}

typedef struct access_stream access_stream;

/* user_size: bytes of the caller's per instruction, zeroed at its first
 * sight (0: none; rounded up to a power of two, so that finding a record
 * is a shift). NULL when out of memory. */
access_stream *access_stream_new(size_t user_size);
void access_stream_free(access_stream *s);

/* Takes one event of the trace. For an execution with accesses it fills
 * *x and returns 1; for any other event 0; -1 when out of memory. *x is
 * valid until the next call. Inline: it runs once per block execution. */
static inline int access_stream_exec(access_stream *s, const mr_event *ev,
                                     access_exec *x);

/* access_stream_exec for a block seen for the first time, or an execution
 * whose guarded accesses did not all happen. */
int access_stream_exec_slow(access_stream *s, const mr_event *ev, access_exec *x);

/* The caller's record of instruction insn (valid until the next
 * access_stream_exec, which may move the records). */
static inline void *access_stream_user(access_stream *s, uint32_t insn);

/* The static instructions seen so far, and how many. */
const insn_table *access_stream_insns(const access_stream *s);
static inline uint32_t access_stream_ninsns(const access_stream *s);

/* Trace time of access i of execution j of x: the block's time plus the
 * instructions executed before the access's instruction. */
static inline uint64_t access_time(const access_exec *x, uint32_t i, uint64_t j)
{
    return x->ev->time + j * x->ev->u.exec.period + x->acc[i].instr;
}

/* ---- inline part ---------------------------------------------------------- */
struct access_stream_head {
    insn_table *insns;
    char *user;                 /* 1 << user_shift bytes per instruction */
    unsigned user_shift;
    uint32_t ninsns;            /* instructions numbered so far */
};

static inline uint32_t access_stream_ninsns(const access_stream *s)
{
    return ((const struct access_stream_head *)s)->ninsns;
}

static inline int access_stream_exec(access_stream *s, const mr_event *ev,
                                     access_exec *x)
{
    if (ev->kind != MR_EV_EXEC || !ev->u.exec.naccesses)
        return 0;
    const struct access_stream_head *h = (const struct access_stream_head *)s;
    const mr_block_def *def = ev->u.exec.def;
    const struct insn_table_head *t = (const struct insn_table_head *)h->insns;
    const block_insns *b;
    /* The common case: a block seen before, every access of its exit done. */
    if (def->id >= t->nblocks || !(b = t->blocks[def->id]) || b->def != def ||
        ev->u.exec.naccesses != def->exits[ev->u.exec.exit].naccesses)
        return access_stream_exec_slow(s, ev, x);
    x->ev = ev;
    x->n = ev->u.exec.naccesses;
    x->acc = ev->u.exec.accesses;
    x->insn = b->insn;
    x->repeat = ev->u.exec.repeat ? ev->u.exec.repeat : 1;
    x->strides = x->repeat > 1 ? ev->u.exec.strides : NULL;
    x->distinct = b->distinct;
    x->user = h->user;
    x->user_shift = h->user_shift;
    return 1;
}
static inline void *access_stream_user(access_stream *s, uint32_t insn)
{
    struct access_stream_head *h = (struct access_stream_head *)s;
    return h->user + ((size_t)insn << h->user_shift);
}

#endif /* MEMREC_ACCESS_H */
