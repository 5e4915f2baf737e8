/*
 * info_summary.h: what trace-info counts, fed one event at a time.
 *
 * Counting is done from the events themselves, not from the end record,
 * so that a truncated trace (no end record) is summarised too; the end
 * record's totals are kept for a cross-check. Memory accesses are counted
 * per block execution from per-exit counts cached on the block definition,
 * so the cost is per executed block, not per access.
 */
#ifndef MEMREC_INFO_SUMMARY_H
#define MEMREC_INFO_SUMMARY_H

#include <stdint.h>
#include "memrec_trace.h"
#include "base/u64map.h"

/* A slot of the by-id cache of per-definition counts. */
typedef struct info_def_counts {
    const mr_block_def *def;    /* whose counts these are */
    struct exit_counts *counts;
} info_def_counts;

/* One thread of the trace (by its dense id): the instructions it executed
 * and the operating system's thread id behind it (MR_THREAD_OS), the first
 * one when a later thread reused the id. */
typedef struct info_thread {
    uint32_t tid;
    uint64_t instructions;
    uint64_t os_tid;            /* valid when os_tids > 0 */
    uint32_t os_tids;           /* OS threads that had the id: 0 when the
                                 * trace does not say (recorded before
                                 * memrec wrote them), > 1 when reused */
} info_thread;

/* The counts of a trace. Loads, stores and modifies are kept apart here
 * as in mr_totals (a modify is in neither loads nor stores); the reports
 * add modifies to both, as Valgrind's IR does. */
typedef struct info_summary {
    mr_totals counted;          /* the same counts mr_totals has, from events */
    uint64_t values;            /* accesses that carry a recorded value */
    uint64_t alloc_bytes;       /* bytes requested by allocations (calloc: count*size) */
    uint64_t block_defs;        /* block definitions read */
    uint64_t memory_instructions;   /* distinct addresses of executed
                                     * instructions that access memory */
    uint64_t symbols, modules, dataobjs, stacks, marks;
    uint64_t call_events, return_events;   /* MR_EV_CALL/RETURN delivered:
                                            * counted.calls/returns count the
                                            * exits taken, which include a
                                            * thread's last, target-less one */
    uint64_t events;            /* every event read */
    int have_time;              /* an execution was seen: time_first is set */
    uint64_t time_first;        /* global clock at the first block execution */
    uint64_t time_end;          /* global clock after the last event */
    const mr_process *process;  /* NULL if the trace has none (reader-owned) */
    const mr_end *end;          /* NULL if the trace has no end record */
    u64map exits;             /* mr_block_def* -> per-exit counts (owner) */
    info_def_counts *by_id;     /* the same, indexed by block id: a cache */
    size_t by_id_cap;
    u64map threads;           /* set of thread ids */
    info_thread *per_thread;    /* threads that ran code or were named by an
                                 * OS thread id, by tid */
    size_t nper_thread, capper_thread;
    size_t cur_thread;          /* per_thread index of exec_tid */
    u64map mem_instrs;        /* set of instruction addresses */
    int have_exec_tid;          /* exec_tid is set */
    uint32_t exec_tid;          /* thread of the last block execution */
    int out_of_memory;          /* a set could not grow: counts of distinct
                                 * things may be low */
} info_summary;

void info_summary_init(info_summary *s);

/* Adds one event (as mr_next() delivered it) to the counts. */
void info_summary_add(info_summary *s, const mr_event *ev);

/* 1 if the end record's totals equal the counted ones, 0 if they differ,
 * -1 if there is no end record. */
int info_summary_totals_match(const info_summary *s);

/* Frees the caches; process and end stay the reader's. */
void info_summary_free(info_summary *s);

#endif /* MEMREC_INFO_SUMMARY_H */
