/*
 * leap.c: the LEAP profile: vertical decomposition by (instruction,
 * group) and one LMAD stream per pair (see leap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leap/leap.h"
#include "base/array.h"
#include "base/u64map.h"

struct leap {
    uint32_t max_lmads;
    uint64_t time;              /* the global access counter */
    leap_insn *insns;
    size_t cap_insns;
    uint32_t ninsns;
    leap_stream *streams;
    size_t cap_streams;
    uint32_t nstreams;
    u64map stream_by;           /* insn << 32 | group -> stream + 1: an
                                 * instruction that touches many groups (a
                                 * refcount update in CPython: 121) finds
                                 * its stream without walking its list */
    uint32_t *stream_at;        /* leap_batch's scratch */
    size_t cap_stream_at;
    uint32_t *occurrences;      /* per instruction: its accesses in the
                                 * batch being added (0 outside leap_batch) */
    size_t cap_occurrences;
    int64_t run_start[LEAP_DIMS], run_step[LEAP_DIMS];  /* one_run's answer */
    uint64_t run_len;
    int failed;
};

leap *leap_new(uint32_t max_lmads)
{
    leap *l = calloc(1, sizeof *l);
    if (l)
        l->max_lmads = max_lmads ? max_lmads : LMAD_DEFAULT_MAX;
    return l;
}

void leap_finish(leap *l)
{
    for (uint32_t i = 0; i < l->nstreams; i++)
        lmad_finish(&l->streams[i].lmads);
}

void leap_free(leap *l)
{
    if (!l)
        return;
    for (uint32_t i = 0; i < l->nstreams; i++)
        lmad_stream_free(&l->streams[i].lmads);
    free(l->streams);
    u64map_free(&l->stream_by);
    free(l->stream_at);
    free(l->occurrences);
    free(l->insns);
    free(l);
}

int leap_failed(const leap *l) { return l->failed; }
uint64_t leap_accesses(const leap *l) { return l->time; }
uint32_t leap_ninsns(const leap *l) { return l->ninsns; }
const leap_insn *leap_insn_get(const leap *l, uint32_t i) { return &l->insns[i]; }
uint32_t leap_nstreams(const leap *l) { return l->nstreams; }
const leap_stream *leap_stream_get(const leap *l, uint32_t i) { return &l->streams[i]; }

/* The instruction's record, made on first sight. */
static leap_insn *insn_of(leap *l, uint32_t insn, uint8_t kind, uint32_t size)
{
    if (insn >= l->ninsns) {
        if (ARRAY_FIT(l->insns, l->cap_insns, (size_t)insn + 1) < 0)
            return NULL;
        for (uint32_t i = l->ninsns; i <= insn; i++)
            l->insns[i].first = l->insns[i].last = LEAP_NONE;
        l->ninsns = insn + 1;
    }
    leap_insn *in = &l->insns[insn];
    if (!in->executions) {
        in->kind = kind;
        in->size = size;
    }
    return in;
}

/* The stream of (insn, group): the last one used, else the map's, else a
 * new one. LEAP_NONE when out of memory. */
static uint32_t stream_of(leap *l, leap_insn *in, uint32_t insn, uint32_t group)
{
    if (in->last != LEAP_NONE && l->streams[in->last].group == group)
        return in->last;
    int added;
    void **slot = u64map_slot_of(&l->stream_by, (uint64_t)insn << 32 | group, &added);
    if (!slot)
        return LEAP_NONE;
    if (*slot)
        return in->last = (uint32_t)((uintptr_t)*slot - 1);
    if (ARRAY_FIT(l->streams, l->cap_streams, (size_t)l->nstreams + 1) < 0)
        return LEAP_NONE;
    uint32_t s = l->nstreams++;
    leap_stream *st = &l->streams[s];
    st->insn = insn;
    st->group = group;
    st->next = in->first;
    lmad_stream_init(&st->lmads, LEAP_DIMS, l->max_lmads);
    in->first = s;
    *slot = (void *)(uintptr_t)(s + 1);
    return in->last = s;
}

/* The point into stream s of instruction in. */
static int add_point(leap *l, leap_insn *in, uint32_t s, uint64_t object,
                     uint64_t offset, uint64_t now)
{
    in->executions++;
    int64_t p[LEAP_DIMS] = { (int64_t)object, (int64_t)offset, (int64_t)now };
    if (lmad_add(&l->streams[s].lmads, p) < 0) {
        l->failed = 1;
        return -1;
    }
    return 0;
}

/* The stream of a known instruction in the group it used last (most
 * accesses), without the lookups' calls; else LEAP_NONE. */
static inline uint32_t known_stream(const leap *l, uint32_t insn, uint32_t group)
{
    const leap_insn *in = insn < l->ninsns ? &l->insns[insn] : NULL;
    if (in && in->executions && in->last != LEAP_NONE &&
        l->streams[in->last].group == group)
        return in->last;
    return LEAP_NONE;
}

/* leap_access of an instruction not seen yet or in another group than
 * the last time: the lookups. */
static __attribute__((noinline)) int access_slow(leap *l, uint32_t insn, uint8_t kind,
                                                 uint32_t size, uint32_t group,
                                                 uint64_t object, uint64_t offset,
                                                 uint64_t now)
{
    leap_insn *in = insn_of(l, insn, kind, size);
    uint32_t s = in ? stream_of(l, in, insn, group) : LEAP_NONE;
    if (s == LEAP_NONE) {
        l->failed = 1;
        return -1;
    }
    return add_point(l, in, s, object, offset, now);
}

int leap_access(leap *l, uint32_t insn, uint8_t kind, uint32_t size,
                uint32_t group, uint64_t object, uint64_t offset)
{
    uint64_t now = l->time++;
    /* Most accesses are of a known instruction in the group it used last:
     * that stream without the lookups (a tenth of trace-leap's
     * instructions on the stencil went to their calls). */
    uint32_t s = known_stream(l, insn, group);
    if (s != LEAP_NONE)
        return add_point(l, &l->insns[insn], s, object, offset, now);
    return access_slow(l, insn, kind, size, group, object, offset, now);
}

/* Whether the points of the instruction's occurrences (from first) are one
 * arithmetic run over all iterations: one stream, offsets and places in
 * arithmetic progression (delta bytes, dt accesses), and a whole iteration
 * continuing it (step = m * delta, per_iteration = m * dt); counts never
 * grow with place, so a partial last iteration only shortens it. Then
 * l->run_start, run_step and run_len are that run. */
static int one_run(leap *l, const leap_batch_access *acc, uint32_t n, uint32_t first,
                   uint32_t per_iteration, const uint32_t *stream)
{
    const leap_batch_access *a0 = &acc[first];
    int64_t delta = 0, dt = 0;
    uint64_t m = 0, len = 0;
    const leap_batch_access *prev = NULL;
    for (uint32_t k = first; k < n; k++) {
        const leap_batch_access *a = &acc[k];
        if (a->insn != a0->insn)
            continue;
        if (stream[k - first] != stream[0] || a->object != a0->object ||
            a->step != a0->step)
            return 0;
        if (prev) {
            int64_t d = (int64_t)(a->offset - prev->offset);
            int64_t e = (int64_t)a->place - (int64_t)prev->place;
            if (m == 1) {
                delta = d;
                dt = e;
            } else if (d != delta || e != dt) {
                return 0;
            }
        }
        prev = a;
        m++;
        len += a->count;
    }
    if (a0->step != (int64_t)m * delta || (int64_t)per_iteration != (int64_t)m * dt)
        return 0;
    l->run_start[LEAP_OBJECT] = (int64_t)a0->object;
    l->run_start[LEAP_OFFSET] = (int64_t)a0->offset;
    l->run_start[LEAP_TIME] = (int64_t)(l->time + a0->place);
    l->run_step[LEAP_OBJECT] = 0;
    l->run_step[LEAP_OFFSET] = delta;
    l->run_step[LEAP_TIME] = dt;
    l->run_len = len;
    return 1;
}

/* The accesses of an instruction that occurs several times in the body
 * (a wide move split into pieces, a string instruction): their points go
 * to the streams one by one in time order, iteration after iteration, the
 * occurrences of an iteration in place order, as leap_access() would add
 * them. first: its first occurrence; the later ones come after it. */
static int repeated_run(leap *l, const leap_batch_access *acc, uint32_t n,
                        uint32_t first, uint32_t per_iteration)
{
    uint64_t most = 0;
    const uint32_t *stream = l->stream_at + first;  /* leap_batch's lookups */
    for (uint32_t k = first; k < n; k++)
        if (acc[k].insn == acc[first].insn && acc[k].count > most)
            most = acc[k].count;
    if (one_run(l, acc, n, first, per_iteration, stream))
        return lmad_add_run(&l->streams[stream[0]].lmads, l->run_start, l->run_step,
                            l->run_len);
    /* Iteration by iteration; within one, the occurrences in place order,
     * those that continue each other in (object, offset, time) as one run
     * (a wide move's pieces: consecutive bytes at consecutive times), so
     * the same points as one by one (lmad_add_run), a run at a time. */
    for (uint64_t j = 0; j < most; j++) {
        int64_t p[LEAP_DIMS], step[LEAP_DIMS] = { 0, 0, 0 };
        uint64_t len = 0;
        uint32_t at = 0;                /* the stream of the run */
        for (uint32_t k = first; k <= n; k++) {
            const leap_batch_access *a = k < n ? &acc[k] : NULL;
            if (a && (a->insn != acc[first].insn || j >= a->count))
                continue;
            int64_t q[LEAP_DIMS];
            if (a) {
                q[LEAP_OBJECT] = (int64_t)a->object;
                q[LEAP_OFFSET] = (int64_t)(a->offset + j * (uint64_t)a->step);
                q[LEAP_TIME] = (int64_t)(l->time + a->place + j * per_iteration);
            }
            if (a && len && stream[k - first] == at) {
                int64_t d[LEAP_DIMS];   /* q's distance from the run's last */
                for (int x = 0; x < LEAP_DIMS; x++)
                    d[x] = q[x] - (p[x] + (int64_t)(len - 1) * step[x]);
                if (len == 1)
                    memcpy(step, d, sizeof step);
                if (!memcmp(d, step, sizeof d)) {
                    len++;
                    continue;
                }
            }
            if (len && lmad_add_run(&l->streams[at].lmads, p, step, len) < 0)
                return -1;
            if (!a)
                break;
            memcpy(p, q, sizeof p);
            memset(step, 0, sizeof step);
            len = 1;
            at = stream[k - first];
        }
    }
    return 0;
}

int leap_batch(leap *l, const leap_batch_access *acc, uint32_t n,
               uint32_t per_iteration)
{
    uint64_t total = 0;
    if (ARRAY_FIT(l->stream_at, l->cap_stream_at, n) < 0) {
        l->failed = 1;
        return -1;
    }
    /* Streams looked up (made) in place order, as the first iteration's
     * leap_access() calls would make them; which instructions repeat. */
    for (uint32_t i = 0; i < n; i++) {
        const leap_batch_access *a = &acc[i];
        /* As leap_access: the known stream first, else the lookups. */
        uint32_t s = a->count ? known_stream(l, a->insn, a->group) : LEAP_NONE;
        leap_insn *in = s != LEAP_NONE ? &l->insns[a->insn]
                                       : insn_of(l, a->insn, a->kind, a->size);
        if (in && a->count && s == LEAP_NONE &&
            (s = stream_of(l, in, a->insn, a->group)) == LEAP_NONE)
            in = NULL;
        if (!in || ARRAY_FIT(l->occurrences, l->cap_occurrences, (size_t)a->insn + 1) < 0) {
            for (uint32_t k = 0; k < i; k++)     /* leave no count behind */
                l->occurrences[acc[k].insn] = 0;
            l->failed = 1;
            return -1;
        }
        l->stream_at[i] = s;
        in->executions += a->count;
        total += a->count;
        l->occurrences[a->insn]++;          /* back to 0 below, each */
    }
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        const leap_batch_access *a = &acc[i];
        uint32_t occ = l->occurrences[a->insn];
        l->occurrences[a->insn] = 0;
        if (rc || !a->count)
            continue;
        if (occ != 1) {     /* 0: done with its first occurrence */
            if (occ && repeated_run(l, acc, n, i, per_iteration) < 0)
                rc = -1;
            continue;
        }
        int64_t p[LEAP_DIMS] = { (int64_t)a->object, (int64_t)a->offset,
                                 (int64_t)(l->time + a->place) };
        int64_t step[LEAP_DIMS] = { 0, a->step, (int64_t)per_iteration };
        if (lmad_add_run(&l->streams[l->stream_at[i]].lmads, p, step, a->count) < 0)
            rc = -1;
    }
    l->time += total;
    if (rc)
        l->failed = 1;
    return rc;
}

/* Bytes of v as a zigzag LEB128 varint. */
static uint64_t varint_bytes(int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63), n = 1;
    while (z >= 0x80) {
        z >>= 7;
        n++;
    }
    return n;
}

uint64_t leap_stream_bytes(const leap_stream *st)
{
    const lmad_stream *ls = &st->lmads;
    uint64_t b = varint_bytes(st->insn) + varint_bytes(st->group) +
                 varint_bytes(ls->n);
    for (uint32_t i = 0; i < ls->n; i++) {
        const lmad *m = &ls->lmads[i];
        for (uint32_t d = 0; d < LEAP_DIMS; d++)
            b += varint_bytes(m->start[d]) + varint_bytes(m->stride[d]);
        b += varint_bytes((int64_t)m->count) + varint_bytes(m->nouter);
        for (uint32_t j = 0; j < m->nouter; j++) {      /* four per outer level */
            for (uint32_t d = 0; d < LEAP_DIMS; d++)
                b += varint_bytes(m->outer[j].stride[d]);
            b += varint_bytes((int64_t)m->outer[j].count);
        }
    }
    if (ls->over.count) {
        const lmad_summary *o = &ls->over;
        for (uint32_t d = 0; d < LEAP_DIMS; d++)
            b += varint_bytes(o->min[d]) + varint_bytes(o->max[d]) +
                 varint_bytes((int64_t)o->gran[d]);
        b += varint_bytes((int64_t)o->count);
    }
    return b;
}

void leap_summarise(const leap *l, leap_summary *s)
{
    memset(s, 0, sizeof *s);
    s->accesses = l->time;
    s->trace_bytes = 16 * l->time;
    s->streams = l->nstreams;
    for (uint32_t i = 0; i < l->ninsns; i++) {
        const leap_insn *in = &l->insns[i];
        if (!in->executions)
            continue;
        s->instructions++;
        int whole = 1;
        for (uint32_t k = in->first; k != LEAP_NONE; k = l->streams[k].next)
            whole &= l->streams[k].lmads.over.count == 0;
        s->insns_captured += whole;
    }
    for (uint32_t i = 0; i < l->nstreams; i++) {
        const lmad_stream *ls = &l->streams[i].lmads;
        s->captured += lmad_captured(ls);
        s->lmads += ls->n;
        s->overflowed += ls->over.count != 0;
        s->profile_bytes += leap_stream_bytes(&l->streams[i]);
    }
}
