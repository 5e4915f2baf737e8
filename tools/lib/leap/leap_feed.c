/*
 * leap_feed.c: events to LEAP, loops as runs (see leap_feed.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leap/leap_feed.h"
#include "base/array.h"
#include "objects/objrel.h"

/* An access of a gathered loop body, copied (the reader's buffers last
 * until its next event only). */
typedef struct body_access {
    uint64_t time;              /* its block's first execution */
    uint64_t count;             /* its block's executions in the run */
    uint32_t seq;               /* its place in the order gathered */
    uint64_t addr, stride;      /* first iteration's address, per-iteration step */
    uint32_t size, slot;        /* bytes, instruction number */
    uint32_t tid;
    uint8_t kind;
} body_access;

struct leap_feed {
    leap *l;
    objrel *rel;                /* accesses, instruction numbers, objects */
    /* The loop run being gathered: nbody accesses per iteration. */
    body_access *body;
    size_t cap_body;
    uint32_t nbody;
    int gathering;
    uint64_t repeat;            /* most executions of a block of the run */
    uint64_t period;            /* instructions per iteration */
    uint64_t tmin, tmax;        /* first executions of its blocks */
    leap_batch_access *batch;
    size_t cap_batch;
    uint64_t batched;
    uint64_t *anchor;           /* per stack serial: 1 + where its window
                                 * began (0: not seen yet) */
    size_t cap_anchor;
};

leap_feed *leap_feed_new(leap *l, const objmap_options *mo)
{
    leap_feed *f = calloc(1, sizeof *f);
    if (!f || !(f->rel = objrel_new(mo, 0))) {
        free(f);
        return NULL;
    }
    f->l = l;
    return f;
}

objmap *leap_feed_map(leap_feed *f) { return objrel_map(f->rel); }

const insn_table *leap_feed_insns(leap_feed *f)
{
    return access_stream_insns(objrel_stream(f->rel));
}

void leap_feed_free(leap_feed *f)
{
    if (!f)
        return;
    objrel_free(f->rel);
    free(f->body);
    free(f->batch);
    free(f->anchor);
    free(f);
}

uint64_t leap_feed_batched(const leap_feed *f) { return f->batched; }

/* The offset of addr in obj, a stack's from where its window first began
 * (see offset_in), when that is not known yet. -1 when out of memory. */
static int stack_offset_slow(leap_feed *f, const obj_object *obj, uint64_t addr,
                             uint64_t *offset)
{
    if (ARRAY_FIT(f->anchor, f->cap_anchor, obj->serial + 1) < 0)
        return -1;
    if (!f->anchor[obj->serial])
        f->anchor[obj->serial] = obj->addr + 1;
    *offset = addr - (f->anchor[obj->serial] - 1);
    return 0;
}

/* The offset of addr in obj. A thread's stack window moves down as the
 * stack deepens (objects/objmap.h), so offsets from its low end would name
 * one location differently over time, and the dependence solver would match
 * unrelated writes: a stack's offsets are taken from where its window first
 * began, fixed for the run (negative below it). -1 when out of memory.
 * Inline: it runs for every access the reader leaves unbatched. */
static inline int offset_in(leap_feed *f, const obj_object *obj, uint64_t addr,
                            uint64_t *offset)
{
    if (obj->group->kind != OBJ_STACK) {
        *offset = addr - obj->addr;
        return 0;
    }
    if (obj->serial < f->cap_anchor && f->anchor[obj->serial]) {
        *offset = addr - (f->anchor[obj->serial] - 1);
        return 0;
    }
    return stack_offset_slow(f, obj, addr, offset);
}

static int one_access(leap_feed *f, uint32_t slot, uint32_t tid, uint8_t kind,
                      uint32_t size, uint64_t addr)
{
    obj_object *obj = objrel_find_insn(f->rel, slot, tid, addr);
    uint64_t off;
    if (offset_in(f, obj, addr, &off) < 0)
        return -1;
    return leap_access(f->l, slot, kind, size, obj->group->id, obj->serial, off);
}

/* The gathered body as whole runs: 1 done, 0 not possible (a run leaving
 * its object, block counts that are not a full-iteration prefix then one
 * less), -1 out of memory. An instruction twice in the body is leap_batch's
 * to order. */
static int body_as_runs(leap_feed *f)
{
    if (ARRAY_FIT(f->batch, f->cap_batch, f->nbody) < 0)
        return -1;
    for (uint32_t i = 0; i < f->nbody; i++) {
        const body_access *a = &f->body[i];
        if (a->count + 1 < f->repeat || (i && a->count > f->body[i - 1].count))
            return 0;
        uint64_t last = a->addr + (a->count - 1) * a->stride;
        obj_object *obj = objrel_find_insn(f->rel, a->slot, a->tid, a->addr);
        if (obj->group->kind == OBJ_UNKNOWN || last - obj->addr >= obj->size)
            return 0;
        uint64_t off;
        if (offset_in(f, obj, a->addr, &off) < 0)
            return -1;
        f->batch[i] = (leap_batch_access){ a->slot, a->kind, a->size,
                                           obj->group->id, obj->serial,
                                           off, (int64_t)a->stride,
                                           i, a->count };
    }
    if (leap_batch(f->l, f->batch, f->nbody, f->nbody) < 0)
        return -1;
    for (uint32_t i = 0; i < f->nbody; i++)
        f->batched += f->body[i].count;
    return 1;
}

/* Execution order within an iteration: by block time, then as gathered
 * (the reader need not hand the body's blocks over in the order they ran:
 * a run can start in the middle of the body). */
static int by_time(const void *a, const void *b)
{
    const body_access *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Feeds the gathered loop run: as runs, or iteration by iteration. */
static int flush(leap_feed *f)
{
    f->gathering = 0;
    /* Insertion sort: bodies are short and nearly in order (an access
     * already after the one before stays, uncopied). */
    for (uint32_t i = 1; i < f->nbody; i++) {
        if (by_time(&f->body[i - 1], &f->body[i]) <= 0)
            continue;
        body_access x = f->body[i];
        uint32_t j = i;
        for (; j > 0 && by_time(&f->body[j - 1], &x) > 0; j--)
            f->body[j] = f->body[j - 1];
        f->body[j] = x;
    }
    int rc = body_as_runs(f);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    /* Execution j of a block ran at its first time + j periods: iteration
     * by iteration, blocks in time order, each while it has executions. */
    for (uint64_t j = 0; j < f->repeat; j++)
        for (uint32_t i = 0; i < f->nbody; i++) {
            const body_access *a = &f->body[i];
            if (j >= a->count)
                continue;
            if (one_access(f, a->slot, a->tid, a->kind, a->size,
                           a->addr + j * a->stride) < 0)
                return -1;
        }
    return 0;
}

/* Copies a batched event's accesses to the end of the body. */
static int gather(leap_feed *f, const mr_event *ev, const uint32_t *sl)
{
    if (!f->gathering) {
        f->gathering = 1;
        f->nbody = 0;
        f->repeat = 0;
        f->period = ev->u.exec.period;
        f->tmin = f->tmax = ev->time;
    }
    if (ev->u.exec.repeat > f->repeat)
        f->repeat = ev->u.exec.repeat;
    f->tmin = ev->time < f->tmin ? ev->time : f->tmin;
    f->tmax = ev->time > f->tmax ? ev->time : f->tmax;
    uint32_t n = ev->u.exec.naccesses;
    if (ARRAY_FIT(f->body, f->cap_body, (size_t)f->nbody + n) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const mr_access *a = &ev->u.exec.accesses[i];
        f->body[f->nbody] = (body_access){ ev->time, ev->u.exec.repeat, f->nbody, a->addr,
                                           ev->u.exec.strides[i], a->size, sl[i],
                                           ev->tid, a->kind };
        f->nbody++;
    }
    return 0;
}

int leap_feed_event(leap_feed *f, const mr_event *ev)
{
    int batched = ev->kind == MR_EV_EXEC && ev->u.exec.repeat > 1;
    /* A block of the run being gathered: the same period, and all first
     * executions within one period (the blocks need not come in the order
     * they ran; those after the loop's exit ran one time less). */
    int member = batched && f->gathering && ev->u.exec.period == f->period &&
                 (ev->time > f->tmax ? ev->time : f->tmax) -
                         (ev->time < f->tmin ? ev->time : f->tmin) < f->period;
    if (f->gathering && !member && flush(f) < 0)
        return -1;
    access_exec x;
    int rc = objrel_event(f->rel, ev, &x);
    if (rc <= 0)
        return rc;
    if (batched)
        return gather(f, ev, x.insn);
    for (uint32_t i = 0; i < x.n; i++) {
        const mr_access *a = &x.acc[i];
        obj_object *obj = objrel_find(f->rel, &x, i, a->addr);
        uint64_t off;
        if (offset_in(f, obj, a->addr, &off) < 0 ||
            leap_access(f->l, x.insn[i], a->kind, a->size, obj->group->id,
                        obj->serial, off) < 0)
            return -1;
    }
    return 0;
}

int leap_feed_finish(leap_feed *f)
{
    int rc = f->gathering ? flush(f) : 0;
    leap_finish(f->l);
    return rc;
}
