/*
 * objrel.h: the object-relative access stream (Wu et al., section 2): the
 * one access stream (stream/access.h) with the object map (objmap.h)
 * kept up to date, so that every access reads as (instruction, group,
 * object, offset, time). Each static instruction has a lookup cache here,
 * and room for the caller's own record after it.
 *
 *     objrel *r = objrel_new(&map_options, sizeof(my_insn));
 *     while (cli_next(reader, &ev)) {
 *         access_exec x;
 *         int n = objrel_event(r, &ev, &x);      // -1: out of memory
 *         for (uint32_t i = 0; i < x.n && n > 0; i++) {
 *             obj_object *o = objrel_find(r, &x, i, x.acc[i].addr);
 *             ... o->group, o->serial, x.acc[i].addr - o->addr ...
 *         }
 *     }
 */
#ifndef MEMREC_OBJREL_H
#define MEMREC_OBJREL_H

#include <stddef.h>
#include "objects/objmap.h"
#include "stream/access.h"

typedef struct objrel objrel;

/* user_size: bytes of the caller's per static instruction (0: none). */
objrel *objrel_new(const objmap_options *mo, size_t user_size);
void objrel_free(objrel *r);

/* Feeds one event to the map; for an execution with accesses fills *x
 * and returns 1 (then objrel_find each access), else 0; -1 when out of
 * memory. Inline: it runs once per block execution. */
static inline int objrel_event(objrel *r, const mr_event *ev, access_exec *x);

/* The object holding addr, accessed by access i of x (addr is
 * x->acc[i].addr, or a batched execution's address). Never NULL. */
static inline obj_object *objrel_find(objrel *r, const access_exec *x,
                                      uint32_t i, uint64_t addr);

/* The object holding addr, accessed by instruction insn of thread tid
 * (for accesses kept past their event, as a loop body gathered). */
static inline obj_object *objrel_find_insn(objrel *r, uint32_t insn,
                                           uint32_t tid, uint64_t addr);

/* The caller's record of instruction insn (as access_stream_user). */
static inline void *objrel_user(objrel *r, uint32_t insn);

/* The caller's record of access i's instruction (as access_user). */
static inline void *objrel_access_user(const access_exec *x, uint32_t i);

objmap *objrel_map(objrel *r);
access_stream *objrel_stream(objrel *r);

/* Ends the map (objmap_finish: live objects are reported). */
void objrel_finish(objrel *r);

/* ---- inline part ---------------------------------------------------------- */
struct objrel_head {
    objmap *map;
    access_stream *stream;
};
/* Each instruction's record: the lookup cache, then the caller's. */
typedef struct objrel_insn {
    obj_cache cache;
    uint64_t user[];
} objrel_insn;

static inline int objrel_event(objrel *r, const mr_event *ev, access_exec *x)
{
    struct objrel_head *h = (struct objrel_head *)r;
    /* The map first: an execution's call pushes move the stack window. */
    if (ev->kind != MR_EV_EXEC)
        return objmap_event(h->map, ev) < 0 ? -1 : 0;
    if (objmap_exec(h->map, ev) < 0)
        return -1;
    return access_stream_exec(h->stream, ev, x);
}

static inline obj_object *objrel_find(objrel *r, const access_exec *x,
                                      uint32_t i, uint64_t addr)
{
    struct objrel_head *h = (struct objrel_head *)r;
    objrel_insn *in = access_user(x, i);
    return objmap_find(h->map, &in->cache, x->ev->tid, addr);
}

static inline obj_object *objrel_find_insn(objrel *r, uint32_t insn,
                                           uint32_t tid, uint64_t addr)
{
    struct objrel_head *h = (struct objrel_head *)r;
    objrel_insn *in = access_stream_user(h->stream, insn);
    return objmap_find(h->map, &in->cache, tid, addr);
}

static inline void *objrel_access_user(const access_exec *x, uint32_t i)
{
    return ((objrel_insn *)access_user(x, i))->user;
}

static inline void *objrel_user(objrel *r, uint32_t insn)
{
    struct objrel_head *h = (struct objrel_head *)r;
    return ((objrel_insn *)access_stream_user(h->stream, insn))->user;
}

#endif /* MEMREC_OBJREL_H */
