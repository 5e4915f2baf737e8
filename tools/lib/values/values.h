/*
 * values.h: type-based value profiling (Zhang's dissertation, chapter 6)
 * over the object-relative access stream: for every field of every group
 * (heap allocation sites and static objects; a field is an offset in the
 * objects of a group) and for every memory instruction, the accesses, how
 * many moved a small value, a pointer sharing its prefix with its address,
 * or an incompressible value (values/vclass.h), the value range and the
 * most frequent values; per run, the bits each value needs without its
 * redundant prefix (Figures 6.4 and 6.5); per field, its instances (the
 * objects that held a value in it) and those that ever held an
 * incompressible one, for the selection rule (values/select.h).
 *
 * Accesses to the stacks and to unknown memory are counted, not profiled:
 * the stack's offsets move with its window, so it has no fields.
 *
 *     values *p = values_new(&opts);
 *     while (cli_next(reader, &ev))
 *         if (values_event(p, &ev)) ... out of memory ...
 *     values_finish(p);
 *     ... values_summary(p), values_nfields(p), values_field_at(p, i) ...
 */
#ifndef MEMREC_VALUES_VALUES_H
#define MEMREC_VALUES_VALUES_H

#include <stddef.h>
#include <stdint.h>
#include "memrec_trace.h"
#include "base/distinct.h"
#include "objects/objrel.h"
#include "values/topvalues.h"
#include "values/vclass.h"

#define VALUES_DEFAULT_TOP 5            /* most frequent values reported */
#define VALUES_DEFAULT_EXACT 1024u      /* offsets that are fields of their own */
#define VALUES_SPAN 4096u               /* beyond them, one field per span */
#define VALUES_MAX_WIDTH 64u            /* Figure 6.4's widths: 0..64 bits */

/* What the recorder was asked to capture (its --values option). */
typedef enum values_mode {
    VALUES_MODE_NONE = 0,
    VALUES_MODE_POINTERS = 1,           /* the recorder's default */
    VALUES_MODE_ALL = 2,
    VALUES_MODE_UNKNOWN = 3             /* a trace with no process record */
} values_mode;

typedef struct values_options {
    unsigned payload;       /* bits a compressed value keeps (1..63; 15) */
    uint32_t top;           /* most frequent values kept per field and
                             * instruction (the table holds top + 3) */
    uint32_t exact_offsets; /* offsets below: one field each (0: default) */
    uint32_t group_depth;   /* frames defining a heap group (0: 1) */
    const mr_reader *reader;/* the trace's symbols, for the object map */
} values_options;

/* The counts of one field, one instruction, or the run. */
typedef struct values_counts {
    uint64_t accesses;      /* accesses (a batched execution: each one) */
    uint64_t valued;        /* of them, with a recorded value */
    uint64_t cls[VC_NCLASSES];  /* valued ones by class */
    int64_t min, max;       /* range of the values, signed in their width;
                             * valid when valued */
    uint32_t size;          /* largest access size, bytes */
    uint32_t valued_size;   /* largest access size with a value, bytes */
} values_counts;

/* One field: an offset (span 1) or a span of offsets beyond the exact ones
 * (span VALUES_SPAN, offset its start) of the objects of a group. */
typedef struct values_field {
    values_counts c;
    uint32_t group;         /* obj_group id */
    uint32_t span;
    uint64_t offset;
    distinct instances;     /* serials of the objects that held a value here */
    distinct spoiled;       /* of those, the ones that held an incompressible
                             * value at least once */
    /* its topv table follows (values_field_top) */
} values_field;

/* One memory instruction, kept in the access stream's record of it. */
typedef struct values_insn {
    values_counts c;
    uint32_t last_group;    /* the field of its last access, a cache: its */
    uint32_t last_field;    /* group id + 1 (0: none) and field index */
    uint64_t last_offset;   /* the field's first offset */
    /* its topv table follows (values_insn_top) */
} values_insn;

/* A group's totals. */
typedef struct values_group {
    uint64_t bytes;         /* heap bytes of its objects (final sizes) */
    uint64_t objects;       /* objects ended so far */
} values_group;

/* Run totals. */
typedef struct values_summary {
    values_mode mode;       /* from the process record's tool options */
    values_counts in;       /* accesses to heap and static objects */
    uint64_t outside;       /* accesses to stacks and unknown memory */
    uint64_t unvalued_wide; /* accesses in objects wider than 8 bytes: no
                             * value is ever recorded for those */
    /* valued accesses in objects by word (8, 16, 32, 64 bits: 0..3) and by
     * vc_need (0..64) */
    uint64_t need[4][VALUES_MAX_WIDTH + 1];
} values_summary;

typedef struct values values;

values *values_new(const values_options *o);
void values_free(values *p);

/* Feeds one event. 0, or -1 when out of memory. */
int values_event(values *p, const mr_event *ev);

/* Ends the object map (live objects count in their groups). 0, or -1
 * when memory ran out. */
int values_finish(values *p);

const values_options *values_get_options(const values *p);
const values_summary *values_get_summary(const values *p);

/* Fields, in order of first access. */
uint32_t values_nfields(const values *p);
values_field *values_field_at(const values *p, uint32_t i);
topv *values_field_top(const values *p, uint32_t i);

/* Instructions (stream/insns.h numbers), their records and tables. */
uint32_t values_ninsns(const values *p);
const insn_table *values_insns(const values *p);
values_insn *values_insn_at(values *p, uint32_t insn);
topv *values_insn_top(values *p, uint32_t insn);

/* Groups by id (objmap's), with this profile's totals. */
uint32_t values_ngroups(const values *p);
const obj_group *values_group_at(const values *p, uint32_t id);
const values_group *values_group_totals(const values *p, uint32_t id);

/* The table size for top: top + 3 (the three beyond the reported ones
 * keep new values from pushing out the frequent ones at once). */
uint32_t values_table_size(const values_options *o);

/* What the profile could not see, one line into buf (n bytes): the
 * accesses without a value and why; NULL when every access had one. */
const char *values_unseen_note(const values *p, char *buf, size_t n);

/* The recorder's --values mode from its options text (NULL: unknown). */
values_mode values_mode_of(const char *tool_options);
const char *values_mode_name(values_mode m);

#endif /* MEMREC_VALUES_VALUES_H */
