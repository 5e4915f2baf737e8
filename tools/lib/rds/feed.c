/* feed.c: trace events into the RDS profile builder (see feed.h). */
#include <stdlib.h>
#include <string.h>
#include "objects/groupname.h"
#include "objects/objrel.h"
#include "rds/feed.h"

struct rds_feed {
    objrel *rel;
    cache_sim *cache;
    rds *prof;
    const mr_reader *reader;
    uint64_t now;             /* time of the heap event being fed */
    uint64_t free_site;       /* its call site, for node_delete */
    int failed;               /* out of memory inside the on_end callback */
    int started;
    uint64_t heap_lo, heap_span;  /* every heap block so far lies in
                                   * [heap_lo, heap_lo + heap_span): a value
                                   * outside is no heap pointer, found
                                   * without a lookup */
    rds_feed_stats stats;
};

/* Each heap object's record (objmap user bytes): its node number + 1,
 * 0 while it has taken part in no pointer. */
typedef struct obj_rds {
    uint32_t node1;
    uint32_t joined;          /* 1 once its node is in an instance (it
                               * stays in one while the object lives) */
} obj_rds;

/* Each instruction's record (objrel user bytes): the lookup cache of the
 * objects its values point into, apart from the one of its addresses. */
typedef struct insn_rds {
    obj_cache value_cache;
} insn_rds;

/* Allocator frames leading a free's stack: the free's site is the first
 * frame after them. The innermost frame is a code address (with the
 * program's own allocator, the entry of free itself), the others are
 * return addresses. */
static int allocator_frame(const mr_reader *r, uint64_t ip, int innermost)
{
    static const char *const names[] = {
        "free", "cfree", "__libc_free", "__GI___libc_free", "realloc",
        "__libc_realloc", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", NULL
    };
    const mr_symbol *s = innermost ? mr_reader_symbol(r, ip) : obj_site_symbol(r, ip);
    if (!s || !s->function)
        return 0;
    if (!strncmp(s->function, "operator delete", 15))
        return 1;
    if (s->file && strstr(s->file, "vg_replace_malloc"))
        return 1;
    for (int i = 0; names[i]; i++)
        if (!strcmp(s->function, names[i]))
            return 1;
    return 0;
}

static uint64_t free_site(const rds_feed *f, const mr_stack *st)
{
    if (!st || !st->depth)
        return 0;
    for (uint32_t i = 0; i < st->depth; i++)
        if (!f->reader || !allocator_frame(f->reader, st->ips[i], i == 0))
            return st->ips[i];
    return st->ips[st->depth - 1];
}

/* objmap's on_end: a freed object (or one allocated over) is a
 * node_delete; objects live at the end stay as they are. */
static void on_end(void *ctx, obj_object *o)
{
    rds_feed *f = ctx;
    obj_rds *u = obj_user(o);
    if (!u->node1 || o->group->kind != OBJ_HEAP)
        return;
    if (!o->freed && f->now == UINT64_MAX)
        return;
    if (rds_node_delete(f->prof, u->node1 - 1, f->free_site, f->now))
        f->failed = 1;
}

rds_feed *rds_feed_new(const cache_config *cache, double threshold,
                       const mr_reader *reader)
{
    rds_feed *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    objmap_options mo = { .group_depth = 1, .user_size = sizeof(obj_rds),
                          .reader = reader, .on_end = on_end, .ctx = f };
    f->reader = reader;
    if (!(f->rel = objrel_new(&mo, sizeof(insn_rds))) ||
        !(f->cache = cache_new(cache)) || !(f->prof = rds_new(threshold))) {
        rds_feed_free(f);
        return NULL;
    }
    return f;
}

void rds_feed_free(rds_feed *f)
{
    if (!f)
        return;
    objrel_free(f->rel);
    cache_free(f->cache);
    rds_free(f->prof);
    free(f);
}

/* The node of heap object o, made at its first pointer. */
static uint32_t node_of(rds_feed *f, obj_object *o)
{
    obj_rds *u = obj_user(o);
    if (!u->node1) {
        uint32_t n = rds_node_new(f->prof, o->group->id, o->alloc_time);
        if (n == RDS_NONE)
            return RDS_NONE;
        u->node1 = n + 1;
    }
    return u->node1 - 1;
}

/* An 8-byte load or store with a value: the pointer events. */
static int word_access(rds_feed *f, const access_exec *x, uint32_t i,
                       uint64_t addr, uint32_t latency, uint64_t time)
{
    const mr_access *a = &x->acc[i];
    int in_heap = a->value - f->heap_lo < f->heap_span;
    if (!in_heap && a->kind != MR_STORE)
        return 0;
    obj_object *o = objrel_find(f->rel, x, i, addr);
    if (o->group->kind != OBJ_HEAP)
        return 0;
    obj_rds *ou = obj_user(o);
    /* A load from an object in no instance is no traversal of one: known
     * before the value is looked up. */
    if (a->kind != MR_STORE && !ou->joined &&
        !(ou->node1 && (ou->joined = rds_node_in_instance(f->prof, ou->node1 - 1))))
        return 0;
    insn_rds *ir = objrel_access_user(x, i);
    obj_object *v = in_heap ? objmap_find(objrel_map(f->rel), &ir->value_cache,
                                          x->ev->tid, a->value) : o;
    int pointer = v->group->kind == OBJ_HEAP && v != o;
    f->stats.heap_pointers += pointer;
    if (a->kind == MR_STORE) {
        /* A store of no pointer only matters to a node holding edges. */
        if (!pointer && (!ou->node1 || !rds_node_has_edges(f->prof, ou->node1 - 1)))
            return 0;
        uint32_t src = node_of(f, o);
        uint32_t dst = pointer ? node_of(f, v) : RDS_NONE;
        if (src == RDS_NONE || (pointer && dst == RDS_NONE))
            return -1;
        return rds_store(f->prof, src, addr - o->addr, dst, x->insn[i], time);
    }
    obj_rds *vu = obj_user(v);
    /* A load along no edge ever made cannot be in an instance. */
    if (!pointer || !ou->node1 || !vu->node1)
        return 0;
    return rds_traverse(f->prof, ou->node1 - 1, vu->node1 - 1, x->insn[i],
                        latency, time);
}

/* Widens the heap's bounds to an allocated block. */
static void heap_bounds(rds_feed *f, const mr_heap *h)
{
    if (h->op == MR_FREE || h->op == MR_DELETE || h->op == MR_DELETE_ARRAY ||
        h->op == MR_MUNMAP || !h->addr)
        return;
    uint64_t size = h->op == MR_CALLOC ? h->size * h->count : h->size;
    uint64_t lo = f->heap_span ? f->heap_lo : h->addr;
    uint64_t hi = f->heap_span ? f->heap_lo + f->heap_span : h->addr;
    if (h->addr < lo)
        lo = h->addr;
    if (h->addr + size > hi)
        hi = h->addr + size;
    f->heap_lo = lo;
    f->heap_span = hi - lo;
}

int rds_feed_event(rds_feed *f, const mr_event *ev)
{
    access_exec x;
    if (!f->started) {
        f->started = 1;
        f->stats.first_time = ev->time;
    }
    f->stats.last_time = ev->time;
    if (ev->kind == MR_EV_HEAP) {
        heap_bounds(f, &ev->u.heap.h);
        f->now = ev->time;
        f->free_site = free_site(f, ev->u.heap.stack);
    }
    int n = objrel_event(f->rel, ev, &x);
    if (n <= 0 || f->failed)
        return n < 0 || f->failed ? -1 : 0;
    /* Counters and bounds in locals: word_access may write through f, so
     * the compiler could not keep them in registers otherwise. */
    uint64_t words = 0, valued = 0, lo = f->heap_lo, span = f->heap_span;
    for (uint64_t j = 0; j < x.repeat; j++)
        for (uint32_t i = 0; i < x.n; i++) {
            const mr_access *a = &x.acc[i];
            uint64_t addr = a->addr + (x.strides ? j * x.strides[i] : 0);
            unsigned level = cache_access(f->cache, addr, a->size ? a->size : 1,
                                          a->kind == MR_STORE ? CACHE_WRITE
                                                              : CACHE_READ);
            if (a->size != 8 || a->kind == MR_MODIFY)
                continue;
            words++;
            if (!a->has_value)
                continue;
            valued++;
            if (addr - lo >= span)
                continue;       /* not in the heap: no node's field */
            uint64_t t = access_time(&x, i, j);
            if (word_access(f, &x, i, addr, cache_latency(f->cache, level), t))
                return -1;
        }
    f->stats.accesses += x.repeat * x.n;
    f->stats.word_accesses += words;
    f->stats.valued += valued;
    uint64_t end = x.ev->time + x.repeat * x.ev->u.exec.period;
    if (end > f->stats.last_time)
        f->stats.last_time = end;
    return 0;
}

int rds_feed_finish(rds_feed *f)
{
    f->now = UINT64_MAX;      /* objects reported live now are not freed */
    objrel_finish(f->rel);
    return f->failed || rds_finish(f->prof) ? -1 : 0;
}

rds *rds_feed_profile(rds_feed *f) { return f->prof; }
const rds_feed_stats *rds_feed_get_stats(const rds_feed *f) { return &f->stats; }

uint32_t rds_feed_ngroups(const rds_feed *f)
{
    return objmap_ngroups(objrel_map(f->rel));
}

const obj_group *rds_feed_group(const rds_feed *f, uint32_t id)
{
    return objmap_group(objrel_map(f->rel), id);
}

const insn_info *rds_feed_insn(const rds_feed *f, uint32_t insn)
{
    return insn_table_get(access_stream_insns(objrel_stream(f->rel)), insn);
}

int rds_values_missing(const mr_process *proc)
{
    const char *opts = proc ? proc->tool_options : NULL, *last = NULL;
    for (const char *s = opts; s && (s = strstr(s, "--values=")); s++)
        last = s;
    return last && !strncmp(last, "--values=none", 13);
}
