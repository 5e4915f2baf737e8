/*
 * feed.h: a trace's events into the RDS profile builder (rds.h): the OID
 * manager of the paper's section 4. Heap objects come from the object map
 * (objects/objrel.h: group = allocation site = static id, a node number
 * per object as dynamic id, kept across realloc); every data access goes
 * through the cache model (algo/cache.h) in trace order, so that a
 * pointer-chasing load has the latency the hierarchy gives it.
 *
 * Machine-level pointers: an 8-byte load or store with a recorded value
 * (mr_access.has_value) whose address lies in a live heap object and
 * whose value lies in another live heap object. Such a store is an
 * edge_add, such a load an edge_traverse; a free (or an allocation over a
 * block never freed) a node_delete. Any 8-byte store into a field holding
 * an edge overwrites it. Modifies (read-modify-write of one location)
 * are neither: a pointer is not computed in place.
 */
#ifndef MEMREC_RDS_FEED_H
#define MEMREC_RDS_FEED_H

#include <stdint.h>
#include "memrec_trace.h"
#include "algo/cache.h"
#include "objects/objmap.h"
#include "stream/insns.h"
#include "rds/rds.h"

typedef struct rds_feed rds_feed;

/* What the feed saw, beyond the builder's counters. */
typedef struct rds_feed_stats {
    uint64_t accesses;        /* data accesses (through the cache) */
    uint64_t word_accesses;   /* 8-byte loads and stores */
    uint64_t valued;          /* of those, with a recorded value */
    uint64_t heap_pointers;   /* of those, stores into a heap object of a
                               * pointer into another live one, and such
                               * loads from objects in an instance */
    uint64_t first_time, last_time;   /* trace times of the first and last
                                       * events (the run's extent) */
} rds_feed_stats;

/* cache: a checked configuration; threshold: the RSF's t; reader: the
 * trace's, for symbols (allocator frames). NULL when out of memory. */
rds_feed *rds_feed_new(const cache_config *cache, double threshold,
                       const mr_reader *reader);
void rds_feed_free(rds_feed *f);

/* Feeds one event. 0, or -1 when out of memory. */
int rds_feed_event(rds_feed *f, const mr_event *ev);

/* Ends the trace (live objects stay live). 0 or -1. */
int rds_feed_finish(rds_feed *f);

rds *rds_feed_profile(rds_feed *f);
const rds_feed_stats *rds_feed_get_stats(const rds_feed *f);
/* The object map's groups, for naming sites. */
uint32_t rds_feed_ngroups(const rds_feed *f);
const obj_group *rds_feed_group(const rds_feed *f, uint32_t id);
/* The instruction table (instruction numbers of rds_insn). */
const insn_info *rds_feed_insn(const rds_feed *f, uint32_t insn);

/* 1 when the recorder's options say values were not recorded
 * (--values=none): RDS profiling cannot see pointers then. */
int rds_values_missing(const mr_process *proc);

#endif
