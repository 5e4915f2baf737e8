/*
 * run.h: one recorded run as trace-slice sees it: the control flow from
 * the .twpp file (every thread's block executions, "steps", in order,
 * each with its call; calls with their function), the instructions of
 * every executed block decoded from the module files (code.h, regs.h)
 * with their source lines, and the memory dependences of every load.
 *
 * Memory dependences are the exact last-writer edges of TWPP+ (seed 001,
 * section 4.1, step 1): for each dynamic load, the store instances that
 * last wrote the bytes it read. They are computed byte by byte in one
 * pass over the trace (the trace's accesses, which the .twpp file does
 * not hold), as is the slicing criterion's point (see slice_criterion).
 *
 * Numbering. Steps are numbered thread by thread (thread t's steps are
 * [thread_first[t], thread_first[t + 1])), in execution order within a
 * thread. An instruction instance is (step, index in the step's block).
 * Accesses are numbered in the order the trace gives them.
 */
#ifndef MEMREC_SLICE_RUN_H
#define MEMREC_SLICE_RUN_H

#include <stdint.h>

#include "base/u64map.h"
#include "slice/code.h"
#include "slice/regs.h"
#include "twpp/file.h"

#define SLICE_NONE UINT32_MAX
#define SLICE_ACC_CONST 0x80    /* acc_kind: a load of a constant the dynamic loader set: from
                                 * a GOT, or glibc's stack or pointer guard */
#define SLICE_NO_LINE UINT32_MAX

/* One static instruction (one address). */
typedef struct slice_insn {
    uint64_t addr;
    slice_regs r;               /* from its bytes; r.len == 0: no bytes */
    uint32_t line;              /* slice_run.lines index, or SLICE_NO_LINE */
    uint32_t fn;                /* function of the first call that ran it */
} slice_insn;

/* A source line: "function:line". */
typedef struct slice_line {
    char *function;             /* malloc'd; "??" when unknown */
    uint32_t line;
    uint64_t instances;         /* times the line was entered */
} slice_line;

/* A recorded block: its instructions as static instruction ids. */
typedef struct slice_block {
    uint32_t *insn;
    uint32_t ninsns;            /* 0: not seen yet */
} slice_block;

/* Where and on what a slice is asked. */
typedef struct slice_criterion {
    const char *function;       /* --at FUNCTION:LINE[#instance] */
    uint32_t line;
    uint64_t insn_addr;         /* --at 0xADDR[#instance] instead (function NULL) */
    uint64_t instance;          /* from 1 */
    const char *var;            /* --var as given */
    /* --var resolved: a register, or bytes [addr, addr + size) */
    int reg;                    /* SLICE_REG_* bit, or -1: memory */
    uint64_t addr, size;
    /* found by the pass */
    int hit;
    uint32_t step, index;       /* the line's first instruction there */
    uint64_t *writers;          /* memory: the stores that last wrote the bytes */
    uint32_t nwriters;
} slice_criterion;

/* The run. */
typedef struct slice_run {
    twpp_file *twpp;
    const twpp_model *m;
    /* steps */
    uint64_t nsteps;
    uint32_t *sym;              /* twpp symbol of each step */
    uint32_t *call;             /* call of each step */
    uint32_t *prev;             /* previous step of the same call, or SLICE_NONE */
    uint64_t *thread_first;     /* nthreads + 1 */
    uint32_t nthreads;
    /* calls */
    uint32_t ncalls;
    uint32_t *call_fn;          /* twpp function index */
    uint32_t *call_first;       /* first step, or SLICE_NONE (an empty call) */
    uint32_t *call_parent;      /* caller, or SLICE_NONE */
    uint32_t *call_last;        /* last step, or SLICE_NONE */
    uint32_t *call_fc;          /* the call's number among its function's (FC, from 1, in
                                 * order of call over all threads, as TWPP+ counts) */
    uint32_t *step_bc;          /* per step: its symbol's execution number in its call (BC) */
    struct slice_plus *plus;    /* memory edges from the .twpp file's TWPP+, or NULL:
                                 * from the trace's last writers (plus.h) */
    uint8_t *outer_calls;       /* 1: the criterion's call or one of its callers */
    uint64_t main_step;         /* first step of main's first call: the steps before it in its
                                 * thread are the startup (deps.h); 0: none cut */
    /* code */
    slice_insn *insns;
    uint32_t ninsns;
    size_t insns_cap;
    u64map insn_at;             /* address -> id + 1 */
    slice_block *blocks;        /* by trace block id */
    size_t nblocks;
    slice_line *lines;
    uint32_t nlines;
    size_t lines_cap;
    u64map line_of;             /* hash of "function:line" -> first id + 1 (chained by compare) */
    uint64_t *sym_defs;         /* per symbol: registers any of its instructions writes */
    uint64_t *chunk_defs;       /* per 256 steps: registers any of them writes (skipped whole) */
    uint64_t *insn_first;       /* per step (and one more): instruction instances before it,
                                 * so that an instance has a dense number (slice sets' bitmaps) */
    uint64_t undecoded;         /* instructions without bytes */
    /* accesses */
    uint64_t naccesses;
    uint64_t *acc_first;        /* per step: its first access */
    uint16_t *acc_count;        /* per step: its accesses */
    uint32_t *acc_step;         /* per access */
    uint16_t *acc_instr;        /* per access: index in the block */
    uint8_t *acc_kind;          /* per access: mr_access_kind, | SLICE_ACC_CONST */
    uint64_t *acc_writer;       /* per load or modify: the last store to what it read + 1, or 0 */
    uint64_t (*extra)[2];       /* (load, store) for loads with several writers, by load */
    uint64_t nextra;
    /* static address summaries for the approximate slices: per
     * instruction, the bytes its loads and its stores touched */
    uint64_t (*load_span)[2], (*store_span)[2];     /* [lo, hi); lo > hi: none */
    uint8_t *load_multi, *store_multi;              /* 1: more than one (address, size) */
} slice_run;

/* The first step of main's first call: the function named main, else the
 * first callee of __libc_start_call_main ("(below main)" to Valgrind: a
 * stripped executable); 0 when
 * neither ran. */
uint64_t slice_main_step(const slice_run *r);

/* Opens FILE.twpp and lays out its steps and calls. 0, or -1 with err. */
int slice_run_open(slice_run *r, const char *twpp_path, char *err, size_t errlen);

/* One pass over the trace (an open reader positioned at its start):
 * decodes blocks, counts line instances, computes every load's writers
 * and finds c's point and, for a memory --var, its last writers there.
 * 0, or -1 with err. next is the command's next-event function. */
typedef int (*slice_next_fn)(void *reader, mr_event *ev);
int slice_run_pass(slice_run *r, void *reader, slice_next_fn next, slice_criterion *c,
                   char *err, size_t errlen);

void slice_run_close(slice_run *r);

/* The instruction ids of step s's block as it ran, and how many. */
const uint32_t *slice_step_insns(const slice_run *r, uint64_t s, uint32_t *n);

/* The previous instruction instance in the same thread: 1 and *s, *i
 * moved, or 0 at the thread's start. */
int slice_prev_point(const slice_run *r, uint64_t *s, uint32_t *i);

/* The step's thread. */
uint32_t slice_step_thread(const slice_run *r, uint64_t s);

/* The writers (store access ids) of load access a: up to max into out;
 * returns how many there are. */
uint32_t slice_writers(const slice_run *r, uint64_t a, uint64_t *out, uint32_t max);

#endif
