/*
 * rds.c: the RDS profile builder (see rds.h): nodes, the edges they hold,
 * the static shape graph with online SCCs, instances as union-find sets.
 */
#include <stdlib.h>
#include "base/array.h"
#include "base/u64map.h"
#include "algo/scc.h"
#include "algo/unionfind.h"
#include "rds/fieldmap.h"
#include "rds/rds.h"

/* A node: a heap object that took part in an edge. */
typedef struct node {
    uint64_t alloc_time;
    uint32_t site;
    uint32_t out_head, in_head;   /* its edges as source, as destination */
    uint32_t instance;            /* valid at union-find roots: RDS_NONE
                                   * for a node in no instance yet */
    uint32_t next_dead;           /* freed: the next in its instance's dead
                                   * list, or in p->free_node */
    uint8_t live;
    uint8_t nout;                 /* out-edges, while not mapped */
    uint8_t mapped;               /* its fields are in p->fields: it held
                                   * more than NODE_LIST_MAX edges at once */
} node;

/* A node holding at most this many edges finds the edge of a field by its
 * out-list: the list's records are touched anyway, a hash probe would be
 * one more cache miss per pointer store. Above it (an array of pointers),
 * the node's fields go to the field map for good. */
#define NODE_LIST_MAX 8

/* A live edge of the unified shape graph, in three doubly linked lists:
 * its source's out-edges, its destination's in-edges and, while its sites
 * are not in one RDS type, the queue of its SSG edge. Free records are
 * chained through out_next. */
typedef struct edge {
    uint64_t offset;              /* the field of src holding it */
    uint32_t src, dst;
    uint32_t ssg;                 /* its SSG edge */
    uint32_t insn;                /* the store that made it */
    uint32_t out_prev, out_next, in_prev, in_next, q_prev, q_next;
    uint8_t queued;               /* in its SSG edge's queue */
    uint8_t counted;              /* counted in an instance */
} edge;

/* An edge of the static shape graph, with the queue of dynamic edges
 * waiting for its two sites to share an SCC. */
typedef struct ssg_edge {
    uint32_t from, to;
    uint32_t queue;               /* first queued edge, RDS_NONE */
    uint8_t pending;              /* in p->pending */
} ssg_edge;

struct rds {
    double threshold;
    node *nodes;
    size_t cap_nodes;
    uint32_t nnodes;
    uint32_t free_node;           /* freed nodes ready for reuse */
    unionfind uf;
    edge *edges;
    size_t cap_edges;
    uint32_t nedges, free_edge;   /* records used, free list head */
    fieldmap fields;              /* (src << 32 | offset) -> edge, for the
                                   * fields of mapped nodes only */
    u64map ssg_index;             /* (from << 32 | to) -> ssg index + 1 */
    ssg_edge *ssg;
    size_t cap_ssg;
    uint32_t nssg;
    uint32_t *pending;            /* SSG edges with a non-empty queue */
    size_t cap_pending, npending;
    scc *g;
    rds_instance *inst;
    size_t cap_inst, ninst;
    rds_stats stats;
};

rds *rds_new(double threshold)
{
    rds *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threshold = threshold;
    p->free_edge = p->free_node = RDS_NONE;
    uf_init(&p->uf, NULL, NULL);
    fieldmap_init(&p->fields);
    u64map_init(&p->ssg_index);
    if (!(p->g = scc_new(NULL, NULL))) {
        free(p);
        return NULL;
    }
    return p;
}

void rds_free(rds *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ninst; i++) {
        u64map_free(&p->inst[i].intervals);
        free(p->inst[i].insns);
    }
    free(p->inst);
    free(p->nodes);
    free(p->edges);
    free(p->ssg);
    free(p->pending);
    uf_free(&p->uf);
    fieldmap_free(&p->fields);
    u64map_free(&p->ssg_index);
    scc_free(p->g);
    free(p);
}

uint32_t rds_node_new(rds *p, uint32_t site, uint64_t alloc_time)
{
    uint32_t id = p->free_node;
    if (scc_reserve(p->g, site + 1))
        return RDS_NONE;
    if (id != RDS_NONE) {
        p->free_node = p->nodes[id].next_dead;   /* uf_reset already */
    } else {
        id = p->nnodes;
        if (id == RDS_NONE - 1 || ARRAY_FIT(p->nodes, p->cap_nodes, id + 1) ||
            uf_add(&p->uf) != id)
            return RDS_NONE;
        p->nnodes++;
    }
    p->nodes[id] = (node){ .alloc_time = alloc_time, .site = site,
                           .out_head = RDS_NONE, .in_head = RDS_NONE,
                           .instance = RDS_NONE, .next_dead = RDS_NONE,
                           .live = 1 };
    p->stats.nodes++;
    return id;
}

/* Node n (freed, its set reset) can be reused. */
static void recycle(rds *p, uint32_t n)
{
    uf_reset(&p->uf, n);
    p->nodes[n].next_dead = p->free_node;
    p->free_node = n;
}

int rds_node_has_edges(const rds *p, uint32_t node)
{
    return p->nodes[node].out_head != RDS_NONE;
}

/* ---- instances ------------------------------------------------------------ */

/* Adds `count` actions of an instruction to an instance; the last one hit
 * is kept first, since one loop's instruction usually acts many times. */
static int add_insn(rds_instance *in, uint64_t where, uint8_t role,
                    uint64_t count)
{
    for (size_t i = 0; i < in->ninsns; i++)
        if (in->insns[i].where == where && in->insns[i].role == role) {
            rds_insn hit = in->insns[i];
            hit.count += count;
            in->insns[i] = in->insns[0];
            in->insns[0] = hit;
            return 0;
        }
    if (ARRAY_FIT(in->insns, in->cap_insns, in->ninsns + 1))
        return -1;
    in->insns[in->ninsns++] = (rds_insn){ where, count, role };
    return 0;
}

/* An alteration point (section 5): an edge added to or removed from the
 * instance closes the interval of traversals since the previous one. */
static int alteration(rds_instance *in, uint64_t time)
{
    in->last_change = time;
    if (!in->current)
        return 0;
    int added;
    void **slot = u64map_slot_of(&in->intervals, in->current, &added);
    if (!slot)
        return -1;
    *slot = (void *)((uintptr_t)*slot + 1);
    in->nintervals++;
    in->current = 0;
    return 0;
}

static uint32_t new_instance(rds *p, uint32_t first)
{
    if (ARRAY_FIT(p->inst, p->cap_inst, p->ninst + 1))
        return RDS_NONE;
    rds_instance *in = &p->inst[p->ninst];
    in->id = (uint32_t)p->ninst;
    in->merged_into = RDS_NONE;
    in->site = p->nodes[first].site;
    in->dead_head = in->dead_tail = RDS_NONE;
    in->last_src = in->last_dst = RDS_NONE;
    in->birth = UINT64_MAX;
    return (uint32_t)p->ninst++;
}

/* A node joins instance i (it was a set of its own). */
static void add_member(rds *p, rds_instance *in, uint32_t n)
{
    in->nodes++;
    in->live_nodes += p->nodes[n].live;
    if (p->nodes[n].alloc_time < in->birth)
        in->birth = p->nodes[n].alloc_time;
}

/* Instance `from` is absorbed by `into` (their sets joined). */
static int merge_instances(rds *p, rds_instance *into, rds_instance *from,
                           uint64_t time)
{
    if (from->dead_head != RDS_NONE) {      /* its freed nodes come along */
        if (into->dead_tail != RDS_NONE)
            p->nodes[into->dead_tail].next_dead = from->dead_head;
        else
            into->dead_head = from->dead_head;
        into->dead_tail = from->dead_tail;
        from->dead_head = from->dead_tail = RDS_NONE;
    }
    if (alteration(into, time) || alteration(from, time))
        return -1;
    for (size_t i = 0; i < from->intervals.cap; i++) {
        const u64map_slot *fs = &from->intervals.slots[i];
        int added;
        void **slot = fs->used ? u64map_slot_of(&into->intervals, fs->key, &added)
                               : NULL;
        if (fs->used && !slot)
            return -1;
        if (slot)
            *slot = (void *)((uintptr_t)*slot + (uintptr_t)fs->value);
    }
    into->nintervals += from->nintervals;
    for (size_t i = 0; i < from->ninsns; i++)
        if (add_insn(into, from->insns[i].where, from->insns[i].role,
                     from->insns[i].count))
            return -1;
    into->nodes += from->nodes;
    into->live_nodes += from->live_nodes;
    into->edges += from->edges;
    into->forward_edges += from->forward_edges;
    into->backward_edges += from->backward_edges;
    into->live_edges += from->live_edges;
    into->traversals += from->traversals;
    into->latency += from->latency;
    into->depth_steps += from->depth_steps;
    into->breadth_steps += from->breadth_steps;
    if (from->birth < into->birth)
        into->birth = from->birth;
    if (from->last_traversal > into->last_traversal)
        into->last_traversal = from->last_traversal;
    u64map_free(&from->intervals);
    free(from->insns);
    from->insns = NULL;
    from->nintervals = from->ninsns = from->cap_insns = 0;
    from->merged_into = into->id;
    return 0;
}

/* Joins the sets of a and b (an edge between them, both sites in one RDS
 * type): the instance of the union, RDS_NONE when out of memory. */
static uint32_t join(rds *p, uint32_t a, uint32_t b, uint64_t time)
{
    uint32_t ra = uf_find(&p->uf, a), rb = uf_find(&p->uf, b);
    if (ra == rb)
        return p->nodes[ra].instance;
    uint32_t ia = p->nodes[ra].instance, ib = p->nodes[rb].instance, keep;
    if (ia == RDS_NONE && ib == RDS_NONE) {
        if ((keep = new_instance(p, a)) == RDS_NONE)
            return RDS_NONE;
        add_member(p, &p->inst[keep], a);
        add_member(p, &p->inst[keep], b);
    } else if (ia == RDS_NONE || ib == RDS_NONE) {
        keep = ia == RDS_NONE ? ib : ia;
        add_member(p, &p->inst[keep], ia == RDS_NONE ? a : b);
    } else {
        /* The older instance keeps its number. */
        keep = ia < ib ? ia : ib;
        if (merge_instances(p, &p->inst[keep], &p->inst[ia ^ ib ^ keep], time))
            return RDS_NONE;
    }
    p->nodes[uf_union(&p->uf, ra, rb)].instance = keep;
    return keep;
}

/* An edge whose sites lie in one RDS type joins its instance. */
static int count_edge(rds *p, uint32_t e, uint64_t time)
{
    edge *ed = &p->edges[e];
    uint32_t i = join(p, ed->src, ed->dst, time);
    if (i == RDS_NONE)
        return -1;
    rds_instance *in = &p->inst[i];
    const node *s = &p->nodes[ed->src], *d = &p->nodes[ed->dst];
    /* Forward: the source is the older object (allocated first; equal
     * times cannot both be allocations of one thread, but keep an order). */
    int forward = s->alloc_time < d->alloc_time ||
                  (s->alloc_time == d->alloc_time && ed->src < ed->dst);
    in->edges++;
    in->forward_edges += forward;
    in->backward_edges += !forward;
    in->live_edges++;
    ed->counted = 1;
    return alteration(in, time) || add_insn(in, ed->insn, RDS_CREATE, 1);
}

/* ---- the static shape graph and its queues ------------------------------- */

/* The SSG edge from -> to, made (and given to the SCC) when new; *changed
 * is set when SCCs joined. RDS_NONE when out of memory. */
static uint32_t ssg_edge_of(rds *p, uint32_t from, uint32_t to, int *changed)
{
    int added;
    void **slot = u64map_slot_of(&p->ssg_index, (uint64_t)from << 32 | to,
                                 &added);
    if (!slot)
        return RDS_NONE;
    if (!added)
        return (uint32_t)((uintptr_t)*slot - 1);
    if (ARRAY_FIT(p->ssg, p->cap_ssg, p->nssg + 1))
        return RDS_NONE;
    int joined = scc_add_edge(p->g, from, to);
    if (joined < 0)
        return RDS_NONE;
    *changed = joined > 0;
    p->ssg[p->nssg] = (ssg_edge){ from, to, RDS_NONE, 0 };
    *slot = (void *)(uintptr_t)(p->nssg + 1);
    p->stats.ssg_edges++;
    return p->nssg++;
}

static int same_type(rds *p, uint32_t site_a, uint32_t site_b)
{
    return scc_same(p->g, site_a, site_b) && scc_cyclic(p->g, site_a);
}

static int enqueue(rds *p, uint32_t e)
{
    edge *ed = &p->edges[e];
    ssg_edge *s = &p->ssg[ed->ssg];
    if (!s->pending) {
        if (ARRAY_FIT(p->pending, p->cap_pending, p->npending + 1))
            return -1;
        p->pending[p->npending++] = ed->ssg;
        s->pending = 1;
    }
    ed->queued = 1;
    ed->q_prev = RDS_NONE;
    ed->q_next = s->queue;
    if (s->queue != RDS_NONE)
        p->edges[s->queue].q_prev = e;
    s->queue = e;
    p->stats.edges_queued++;
    return 0;
}

static void dequeue(rds *p, uint32_t e)
{
    edge *ed = &p->edges[e];
    if (ed->q_prev != RDS_NONE)
        p->edges[ed->q_prev].q_next = ed->q_next;
    else
        p->ssg[ed->ssg].queue = ed->q_next;
    if (ed->q_next != RDS_NONE)
        p->edges[ed->q_next].q_prev = ed->q_prev;
    ed->queued = 0;
}

/* The SCCs changed: every queued edge whose sites now share an RDS type
 * joins its instance (Figure 3's queue, revisited). */
static int revisit(rds *p, uint64_t time)
{
    for (size_t i = 0; i < p->npending;) {
        ssg_edge *s = &p->ssg[p->pending[i]];
        if (!same_type(p, s->from, s->to)) {
            i++;
            continue;
        }
        while (s->queue != RDS_NONE) {
            uint32_t e = s->queue;
            dequeue(p, e);
            p->stats.edges_dequeued++;
            if (count_edge(p, e, time))
                return -1;
        }
        s->pending = 0;
        p->pending[i] = p->pending[--p->npending];
    }
    return 0;
}

/* ---- edges ---------------------------------------------------------------- */

static uint32_t edge_alloc(rds *p)
{
    if (p->free_edge != RDS_NONE) {
        uint32_t e = p->free_edge;
        p->free_edge = p->edges[e].out_next;
        return e;
    }
    if (p->nedges == RDS_NONE - 1 ||
        ARRAY_FIT(p->edges, p->cap_edges, p->nedges + 1))
        return RDS_NONE;
    return p->nedges++;
}

static uint64_t field_key(uint32_t src, uint64_t offset)
{
    return (uint64_t)src << 32 | (offset & 0xffffffffu);
}

/* Takes live edge e off its destination and out of the shape: its
 * in-list, its queue, its instance's count (an alteration). Its field and
 * out-list are left to the caller. */
static int detach_edge(rds *p, uint32_t e, uint64_t time)
{
    edge *ed = &p->edges[e];
    node *d = &p->nodes[ed->dst];
    if (ed->in_prev != RDS_NONE)
        p->edges[ed->in_prev].in_next = ed->in_next;
    else
        d->in_head = ed->in_next;
    if (ed->in_next != RDS_NONE)
        p->edges[ed->in_next].in_prev = ed->in_prev;
    if (ed->queued)
        dequeue(p, e);
    p->stats.edges_removed++;
    p->stats.live_edges--;
    if (!ed->counted)
        return 0;
    ed->counted = 0;
    rds_instance *in = &p->inst[p->nodes[uf_find(&p->uf, ed->src)].instance];
    in->live_edges--;
    return alteration(in, time);
}

/* Removes live edge e (its field overwritten by no pointer, or an end
 * freed). */
static int remove_edge(rds *p, uint32_t e, uint64_t time)
{
    edge *ed = &p->edges[e];
    node *s = &p->nodes[ed->src];
    int rc = detach_edge(p, e, time);
    if (ed->out_prev != RDS_NONE)
        p->edges[ed->out_prev].out_next = ed->out_next;
    else
        s->out_head = ed->out_next;
    if (ed->out_next != RDS_NONE)
        p->edges[ed->out_next].out_prev = ed->out_prev;
    if (s->mapped)
        fieldmap_del(&p->fields, field_key(ed->src, ed->offset));
    else
        s->nout--;
    ed->out_next = p->free_edge;
    p->free_edge = e;
    return rc;
}

/* The live edge held in field (src, offset), FIELDMAP_NONE if none. */
static uint32_t field_edge(const rds *p, uint32_t src, uint64_t offset)
{
    const node *ns = &p->nodes[src];
    if (ns->mapped)
        return fieldmap_get(&p->fields, field_key(src, offset));
    /* compared as the map's keys do: the low 32 bits of the offset */
    for (uint32_t e = ns->out_head; e != RDS_NONE; e = p->edges[e].out_next)
        if (((p->edges[e].offset ^ offset) & 0xffffffffu) == 0)
            return e;
    return FIELDMAP_NONE;
}

/* Node src goes over NODE_LIST_MAX edges: its fields enter the map. */
static int map_fields(rds *p, uint32_t src)
{
    node *ns = &p->nodes[src];
    for (uint32_t e = ns->out_head; e != RDS_NONE; e = p->edges[e].out_next)
        if (fieldmap_put(&p->fields, field_key(src, p->edges[e].offset), e))
            return -1;
    ns->mapped = 1;
    return 0;
}

/* A new edge record for field (src, offset), in src's out-list (and the
 * field map for a mapped node): RDS_NONE when out of memory. */
static uint32_t new_field_edge(rds *p, uint32_t src, uint64_t offset)
{
    uint32_t e = edge_alloc(p);
    if (e == RDS_NONE)
        return RDS_NONE;
    node *ns = &p->nodes[src];
    p->edges[e] = (edge){ .offset = offset, .src = src, .out_prev = RDS_NONE,
                          .out_next = ns->out_head };
    if (ns->out_head != RDS_NONE)
        p->edges[ns->out_head].out_prev = e;
    ns->out_head = e;
    if (ns->mapped) {
        if (fieldmap_put(&p->fields, field_key(src, offset), e))
            return RDS_NONE;
    } else if (++ns->nout > NODE_LIST_MAX && map_fields(p, src)) {
        return RDS_NONE;
    }
    return e;
}

int rds_store(rds *p, uint32_t src, uint64_t offset, uint32_t dst,
              uint32_t insn, uint64_t time)
{
    uint32_t e = field_edge(p, src, offset);
    if (e != FIELDMAP_NONE) {
        if (p->edges[e].dst == dst)
            return 0;               /* the same pointer again: no change */
        /* A pointer over a pointer reuses the record, its field map slot
         * and its place in src's out-list. */
        if (dst == RDS_NONE || dst == src ? remove_edge(p, e, time)
                                          : detach_edge(p, e, time))
            return -1;
    }
    if (dst == RDS_NONE || dst == src)
        return 0;
    int changed = 0;
    uint32_t s = ssg_edge_of(p, p->nodes[src].site, p->nodes[dst].site, &changed);
    if (s == RDS_NONE ||
        (e == FIELDMAP_NONE && (e = new_field_edge(p, src, offset)) == RDS_NONE))
        return -1;
    edge *ed = &p->edges[e];
    node *nd = &p->nodes[dst];
    ed->dst = dst;
    ed->ssg = s;
    ed->insn = insn;
    ed->queued = ed->counted = 0;
    ed->in_prev = RDS_NONE;
    ed->in_next = nd->in_head;
    if (nd->in_head != RDS_NONE)
        p->edges[nd->in_head].in_prev = e;
    nd->in_head = e;
    p->stats.edges_added++;
    p->stats.live_edges++;
    int rc = same_type(p, p->nodes[src].site, nd->site) ? count_edge(p, e, time)
                                                        : enqueue(p, e);
    return rc || (changed && revisit(p, time)) ? -1 : 0;
}

int rds_node_in_instance(rds *p, uint32_t n)
{
    return p->nodes[uf_find(&p->uf, n)].instance != RDS_NONE;
}

int rds_traverse(rds *p, uint32_t src, uint32_t dst, uint32_t insn,
                 uint32_t latency, uint64_t time)
{
    p->stats.traversals++;
    uint32_t r = uf_find(&p->uf, src);
    if (r != uf_find(&p->uf, dst) || p->nodes[r].instance == RDS_NONE)
        return 0;
    rds_instance *in = &p->inst[p->nodes[r].instance];
    p->stats.rds_traversals++;
    in->traversals++;
    in->latency += latency;
    in->current++;
    in->last_traversal = time;
    /* u->v then v->w goes deeper; u->v then u->w visits siblings. */
    if (in->last_dst == src)
        in->depth_steps++;
    else if (in->last_src == src)
        in->breadth_steps++;
    in->last_src = src;
    in->last_dst = dst;
    return add_insn(in, insn, RDS_TRAVERSE, 1);
}

int rds_node_delete(rds *p, uint32_t n, uint64_t site_addr, uint64_t time)
{
    node *nd = &p->nodes[n];
    while (nd->out_head != RDS_NONE)
        if (remove_edge(p, nd->out_head, time))
            return -1;
    while (nd->in_head != RDS_NONE)
        if (remove_edge(p, nd->in_head, time))
            return -1;
    nd->live = 0;
    uint32_t i = p->nodes[uf_find(&p->uf, n)].instance;
    if (i == RDS_NONE) {
        recycle(p, n);          /* a set of its own: nothing refers to it */
        return 0;
    }
    rds_instance *in = &p->inst[i];
    nd->next_dead = in->dead_head;
    in->dead_head = n;
    if (in->dead_tail == RDS_NONE)
        in->dead_tail = n;
    if (--in->live_nodes == 0) {
        /* The whole set is dead: its nodes can be reused. */
        in->death = time;
        for (uint32_t d = in->dead_head, next; d != RDS_NONE; d = next) {
            next = p->nodes[d].next_dead;
            recycle(p, d);
        }
        in->dead_head = in->dead_tail = RDS_NONE;
    }
    return add_insn(in, site_addr, RDS_DELETE, 1);
}

/* ---- results -------------------------------------------------------------- */

static int by_length_desc(const void *a, const void *b)
{
    uint64_t x = ((const rds_interval *)a)->length,
             y = ((const rds_interval *)b)->length;
    return x < y ? 1 : x > y ? -1 : 0;
}

uint64_t rds_rsf_counted(rds_interval *iv, size_t n, double t)
{
    double total = 0, need, sum = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)iv[i].length * (double)iv[i].count;
    if (total == 0)
        return 0;
    need = t * total;
    qsort(iv, n, sizeof *iv, by_length_desc);
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double all = (double)iv[i].length * (double)iv[i].count;
        if (sum + all >= need) {
            /* Only as many of this length as still needed. */
            uint64_t more = (uint64_t)((need - sum) / (double)iv[i].length);
            while ((double)more * (double)iv[i].length < need - sum)
                more++;
            return k + (more ? more : 1);
        }
        sum += all;
        k += iv[i].count;
    }
    return k;   /* t * total rounded above total: every interval */
}

uint64_t rds_rsf(const uint64_t *a, size_t n, double t)
{
    rds_interval *iv = malloc((n ? n : 1) * sizeof *iv);
    if (!iv)
        return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i])
            iv[m++] = (rds_interval){ a[i], 1 };
    uint64_t k = rds_rsf_counted(iv, m, t);
    free(iv);
    return k;
}

/* The RSF of an instance from its intervals. */
static int instance_rsf(rds_instance *in, double t)
{
    rds_interval *iv = malloc((in->intervals.count ? in->intervals.count : 1) *
                              sizeof *iv);
    if (!iv)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < in->intervals.cap; i++)
        if (in->intervals.slots[i].used)
            iv[m++] = (rds_interval){ in->intervals.slots[i].key,
                                      (uintptr_t)in->intervals.slots[i].value };
    in->rsf = rds_rsf_counted(iv, m, t);
    free(iv);
    return 0;
}

int rds_finish(rds *p)
{
    for (size_t i = 0; i < p->ninst; i++) {
        rds_instance *in = &p->inst[i];
        if (in->merged_into != RDS_NONE)
            continue;
        if (alteration(in, in->last_change) || instance_rsf(in, p->threshold))
            return -1;
    }
    return 0;
}

size_t rds_ninstances(const rds *p) { return p->ninst; }
const rds_instance *rds_get_instance(const rds *p, size_t i) { return &p->inst[i]; }

uint32_t rds_instance_type(rds *p, const rds_instance *in)
{
    return scc_component(p->g, in->site);
}

uint32_t rds_site_component(rds *p, uint32_t site) { return scc_component(p->g, site); }
int rds_site_cyclic(rds *p, uint32_t site) { return scc_cyclic(p->g, site); }
uint32_t rds_nsites(const rds *p) { return scc_nodes(p->g); }
const rds_stats *rds_get_stats(const rds *p) { return &p->stats; }
