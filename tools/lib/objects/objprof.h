/*
 * objprof.h: the object profile of a trace, aggregated while it streams
 * through objmap: per object, per group and offset, per (instruction,
 * group), per thread, plus a thinned sample of each group's accesses.
 * Nothing of the access stream is kept.
 *
 * Use: objprof_new(), objprof_event() for every event of the trace,
 * objprof_finish() at the end. Objects are handed to on_object as they
 * die (freed, or live at the end), with their statistics; the rest is read
 * after objprof_finish() through the accessors below.
 *
 * Counting: a modify counts as one load and one store and moves its bytes
 * once. The time of an access is the trace time of its block execution
 * plus the index of its instruction in the block (instructions executed
 * before it), so it is unique per thread and ordered like the trace.
 * Distinct offsets are start offsets of accesses, counted with a distinct set (base/distinct.h)
 * per object and per (instruction, group); distinct objects per
 * (instruction, group) with a distinct set over the group's serials: exact
 * below 2^20 (offsets under 1 MiB, the first million objects of a group)
 * while the process-wide bitmap budget lasts (sets over 32768 members draw
 * on it, DISTINCT_BUDGET; sets of up to 256 members far into a block are
 * kept sparse, exact and outside the budget), estimated within a few percent (HyperLogLog,
 * 1.6% standard error, tested within 5%) beyond: so thousands of
 * instructions over one large block cost 8 KiB each, not 128 KiB. Stack and unknown accesses get no
 * distinct counts and no offset heat (their offsets are not fields).
 */
#ifndef MEMREC_OBJPROF_H
#define MEMREC_OBJPROF_H

#include <stdint.h>
#include "memrec_trace.h"
#include "base/distinct.h"
#include "objects/objmap.h"
#include "stream/insns.h"

/* Statistics of one object (the caller-owned part of its record). */
typedef struct obj_stats {
    uint64_t accesses;      /* a modify counts once */
    uint64_t loads, stores, bytes;
    uint64_t first, last;   /* times of first and last access; valid if any */
    uint64_t inline_bits;   /* offsets seen below 64 */
    distinct *offsets;      /* offsets seen, others; NULL until one is */
} obj_stats;

/* Distinct offsets at which the object was accessed. */
uint64_t obj_stats_offsets(const obj_stats *s);

/* Heat of one offset bucket of a group (see object_offsets in sql/schema/10-objects.sql:
 * exact below 65536, then 4 KiB spans: fine enough to show which part of
 * a large array is hot, small enough to stay in cache). */
typedef struct obj_heat {
    uint64_t loads, stores;
} obj_heat;

#define OBJ_EXACT_OFFSETS 65536u
#define OBJ_LINE 4096u

/* One sampled access. */
typedef struct obj_sample {
    uint64_t n;             /* access number within the group, from 1 */
    uint64_t time;
    uint64_t serial;        /* object within the group */
    uint64_t offset;
    uint32_t insn;          /* insns slot */
    uint32_t tid;
    uint8_t kind;           /* mr_access_kind */
} obj_sample;

/* What objprof keeps per group (obj_group.user). */
typedef struct obj_gstats {
    /* what every access reads, first: one cache line (aligned to it) */
    uint64_t accesses;              /* counted as they come */
    uint64_t mask;          /* stride - 1, or 0: tested on every access */
    obj_heat *heat;         /* by bucket */
    size_t nheat;
    obj_sample *samples;    /* evenly thinned over the run */
    uint32_t nsamples, capsamples;
    uint64_t stride;        /* kept: accesses whose hash is a multiple of
                             * it (0 until the first sample: 1) */
    uint64_t loads, stores, bytes;  /* made by objprof_finish() */
} __attribute__((aligned(64))) obj_gstats;

/* What an instruction did to one group. Laid out for the access path,
 * which reads the first cache line only for stack and unknown memory (a
 * third of the accesses of python3 and perl) and the first two for heap
 * and static (the record is aligned to them; the sets' fast-path fields
 * end the second): the group's statistics and kind are here, so that an
 * access does not read the group itself. */
typedef struct obj_igstats {
    obj_group *group;
    obj_gstats *gs;         /* the group's statistics (its user) */
    uint64_t accesses;
    uint64_t last;          /* time of the last access */
    uint8_t kind;           /* the group's obj_kind */
    distinct objects;       /* serials touched */
    distinct offsets;       /* offsets touched */
    uint64_t first;         /* time of the first access */
    uint64_t bytes;         /* accesses times the instruction's size: made
                             * by objprof_finish() */
    struct obj_igstats *next;
} __attribute__((aligned(64))) obj_igstats;

/* Traffic of one thread. Read it through objprof_thread(): while a single
 * thread makes accesses its loads, stores, bytes and by_kind are made
 * there, from the (instruction, group) counts. */
typedef struct obj_tstats {
    int seen;               /* the thread made an access or was created */
    uint32_t parent;        /* 0: unknown or main */
    uint64_t loads, stores, bytes;
    uint64_t by_kind[4];    /* accesses by obj_kind of the group */
    uint64_t allocs;
    uint64_t instructions;  /* guest instructions it executed */
    uint64_t first, last;
    uint64_t os_tid;        /* the OS thread id (MR_THREAD_OS), the first
                             * one if the id was reused; valid if has_os_tid */
    int has_os_tid;
} obj_tstats;

typedef void (*objprof_object_fn)(void *ctx, const obj_object *o,
                                  const obj_stats *s);

typedef struct objprof_options {
    uint32_t group_depth;   /* frames defining a heap group (0: 1) */
    uint32_t samples;       /* most samples per group (0: none) */
    const mr_reader *reader;/* symbols, to skip allocator frames (objmap.h) */
    objprof_object_fn on_object;  /* each object as it dies; may be NULL */
    void *ctx;
} objprof_options;

typedef struct objprof objprof;

objprof *objprof_new(const objprof_options *opts);

/* Feeds one event. Returns 0, or -1 when out of memory. */
int objprof_event(objprof *p, const mr_event *ev);

/* Ends the profile: live objects go to on_object. */
void objprof_finish(objprof *p);

void objprof_free(objprof *p);

objmap *objprof_map(objprof *p);
const insn_table *objprof_insns(const objprof *p);

/* What instruction insn did to each group (a list), NULL if nothing. */
const obj_igstats *objprof_insn_groups(const objprof *p, uint32_t insn);

/* The statistics of a group (never NULL for a group of the map). */
obj_gstats *objprof_group_stats(const objprof *p, const obj_group *g);

/* Threads: ids 0 .. objprof_max_tid(). */
uint32_t objprof_max_tid(const objprof *p);
const obj_tstats *objprof_thread(const objprof *p, uint32_t tid);

/* Instructions executed, as far as the events went (the end record's
 * total when the trace has one). */
uint64_t objprof_instructions(const objprof *p);

/* Totals: accesses (a modify counts once), loads and stores. */
void objprof_totals(const objprof *p, uint64_t *accesses, uint64_t *loads,
                    uint64_t *stores);

#endif /* MEMREC_OBJPROF_H */
