/*
 * cfg.c: basic blocks, the dynamic CFG and its loop nesting forest from a
 * trace's superblock executions (see cfg.h for the definitions).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "stream/cfg.h"
#include "base/array.h"
#include "base/u64map.h"

/* ---- the builder's summary ------------------------------------------------ */

/* What the builder keeps of one superblock: its instructions (copied, so
 * the reader's definitions need not outlive the pass) and the longest
 * prefix of them that ran. */
typedef struct sb_rec {
    uint64_t *addr;
    uint32_t *len;
    uint32_t n, ran;
} sb_rec;

/* A control transfer seen: from the last instruction a block execution
 * ran to the first of its thread's next one. */
enum { XFER_JUMP, XFER_CALL, XFER_FALL };
typedef struct xfer {
    uint64_t from, to;
    uint32_t from_len;
    uint8_t kind;
} xfer;

/* Per thread: where its last block execution left, to link the next, and
 * the transfer recorded last (a loop repeats it: no map lookup then). */
typedef struct thread_pos {
    uint64_t from;              /* last instruction run; 0: none */
    uint32_t from_len;
    uint8_t jump;               /* the exit's mr_jump */
    uint8_t started;            /* the thread ran a block already */
    uint64_t seen_from, seen_to;
    uint8_t seen_jump;
} thread_pos;

struct cfg_builder {
    sb_rec *sbs;                /* by block id */
    size_t sbcap;
    xfer *xfers;                /* distinct transfers */
    size_t nxfers, xcap;
    u64map seen;                /* from ^ hash(to) -> 1 + index of a transfer */
    u64map threads;             /* tid -> thread_pos * */
    uint64_t *entries;          /* first block of every thread */
    size_t nentries, ecap;
};

cfg_builder *cfg_builder_new(void)
{
    return calloc(1, sizeof(cfg_builder));
}

void cfg_builder_free(cfg_builder *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->sbcap; i++) {
        free(b->sbs[i].addr);
        free(b->sbs[i].len);
    }
    free(b->sbs);
    free(b->xfers);
    u64map_free(&b->seen);
    for (size_t i = 0; i < b->threads.cap; i++)
        if (b->threads.slots[i].used)
            free(b->threads.slots[i].value);
    u64map_free(&b->threads);
    free(b->entries);
    free(b);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Records a transfer once (a chained list by key would cost more: equal
 * keys are told apart by probing the next key). */
static int add_xfer(cfg_builder *b, uint64_t from, uint32_t len, uint64_t to,
                    int kind)
{
    uint64_t key = from ^ mix(to + kind);
    for (;; key++) {
        int added;
        void **slot = u64map_slot_of(&b->seen, key, &added);
        if (!slot)
            return -1;
        if (!added) {
            xfer *x = &b->xfers[(uintptr_t)*slot - 1];
            if (x->from == from && x->to == to && x->kind == kind)
                return 0;
            continue;           /* another transfer hashed here */
        }
        if (ARRAY_FIT(b->xfers, b->xcap, b->nxfers + 1) < 0)
            return -1;
        b->xfers[b->nxfers++] = (xfer){from, to, len, (uint8_t)kind};
        *slot = (void *)(uintptr_t)b->nxfers;
        return 0;
    }
}

static int record_sb(cfg_builder *b, const mr_block_def *def, uint32_t ran)
{
    if (ARRAY_FIT(b->sbs, b->sbcap, (size_t)def->id + 1) < 0)
        return -1;
    sb_rec *s = &b->sbs[def->id];
    if (!s->addr) {
        s->addr = malloc(def->ninstrs * sizeof *s->addr + 1);
        s->len = malloc(def->ninstrs * sizeof *s->len + 1);
        if (!s->addr || !s->len)
            return -1;
        for (uint32_t i = 0; i < def->ninstrs; i++) {
            s->addr[i] = def->instrs[i].addr;
            s->len[i] = def->instrs[i].len;
        }
        s->n = def->ninstrs;
    }
    if (ran > s->n)
        ran = s->n;
    if (ran > s->ran)
        s->ran = ran;
    return 0;
}

static thread_pos *thread_of(cfg_builder *b, uint32_t tid)
{
    int added;
    void **slot = u64map_slot_of(&b->threads, tid, &added);
    if (!slot)
        return NULL;
    if (added && !(*slot = calloc(1, sizeof(thread_pos))))
        return NULL;
    return *slot;
}

/* The transfer from t's last block to the block at to. A call also gives
 * its function the fall-through to the return site. Returns are no edge. */
static int link(cfg_builder *b, thread_pos *t, uint64_t to)
{
    if (t->seen_from == t->from && t->seen_to == to && t->seen_jump == t->jump)
        return 0;               /* the same transfer as last time */
    int rc = 0;
    if (t->jump == MR_JUMP_CALL)
        rc = add_xfer(b, t->from, t->from_len, to, XFER_CALL) |
             add_xfer(b, t->from, t->from_len, t->from + t->from_len, XFER_FALL);
    else if (t->jump != MR_JUMP_RET)
        rc = add_xfer(b, t->from, t->from_len, to, XFER_JUMP);
    t->seen_from = t->from;
    t->seen_to = to;
    t->seen_jump = t->jump;
    return rc ? -1 : 0;
}

int cfg_builder_event(cfg_builder *b, const mr_event *ev)
{
    if (ev->kind != MR_EV_EXEC)
        return 0;
    const mr_block_def *def = ev->u.exec.def;
    uint32_t ran = ev->u.exec.ninstrs;
    if (record_sb(b, def, ran) < 0)
        return -1;
    thread_pos *t = thread_of(b, ev->tid);
    if (!t)
        return -1;
    if (!t->started) {
        if (ARRAY_FIT(b->entries, b->ecap, b->nentries + 1) < 0)
            return -1;
        b->entries[b->nentries++] = def->addr;
        t->started = 1;
    } else if (t->from && link(b, t, def->addr) < 0) {
        return -1;
    }
    if (ran == 0 || ran > def->ninstrs) {
        t->from = 0;            /* nothing ran: no transfer from here */
        return 0;
    }
    const mr_instr_def *last = &def->instrs[ran - 1];
    if (ev->u.exec.repeat > 1 &&
        add_xfer(b, last->addr, last->len, def->addr, XFER_JUMP) < 0)
        return -1;              /* a batched run: the block followed itself */
    t->from = last->addr;
    t->from_len = last->len;
    t->jump = def->exits[ev->u.exec.exit].jump;
    return 0;
}

/* ---- the graph -------------------------------------------------------------- */

/* An executed instruction, in address order. */
typedef struct insn {
    uint64_t addr;
    uint32_t len;
    uint32_t function;
} insn;

struct cfg {
    insn *ins;
    uint32_t nins;
    uint32_t *ins_block;        /* block of each instruction */
    cfg_block *blocks;
    uint32_t nblocks;
    uint32_t *first_ins;        /* first instruction of each block */
    uint32_t *succ;             /* all successor lists, CSR */
    uint32_t *pred, *pred_start;/* predecessor lists, CSR (nblocks + 1) */
    cfg_loop *loops;
    uint32_t nloops;
    size_t loopcap;
    char **fnames;
    uint32_t nfunctions;
    size_t fcap;
    /* scratch of the loop search */
    uint32_t *mark, *idx, *low, *comp;
    uint8_t *cut, *onstack;
    uint32_t stamp;
};

static int cmp_insn(const void *a, const void *b)
{
    const insn *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of the instruction at addr, -1 when it never ran. */
static int64_t find_insn(const cfg *g, uint64_t addr)
{
    uint32_t lo = 0, hi = g->nins;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->ins[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->nins && g->ins[lo].addr == addr ? (int64_t)lo : -1;
}

/* Interns a function name (names are few: a linear search would do, a
 * map keyed by the name's hash is as short). */
static int64_t intern_function(cfg *g, u64map *names, const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    for (;; h++) {
        int added;
        void **slot = u64map_slot_of(names, h, &added);
        if (!slot)
            return -1;
        if (!added) {
            uint32_t f = (uint32_t)(uintptr_t)*slot - 1;
            if (!strcmp(g->fnames[f], name))
                return f;
            continue;
        }
        if (ARRAY_FIT(g->fnames, g->fcap, g->nfunctions + 1) < 0 ||
            !(g->fnames[g->nfunctions] = strdup(name)))
            return -1;
        *slot = (void *)(uintptr_t)(++g->nfunctions);
        return g->nfunctions - 1;
    }
}

/* Gathers the executed instructions and, as transfers, the jumps inside
 * superblocks (consecutive instructions not consecutive in memory) and
 * their fall-throughs (consecutive in memory). */
static int gather(cfg *g, cfg_builder *b, xfer **pairs, size_t *npairs)
{
    size_t cap = 0, icap = 0, n = 0;
    *pairs = NULL;
    *npairs = 0;
    for (size_t i = 0; i < b->sbcap; i++) {
        const sb_rec *s = &b->sbs[i];
        for (uint32_t k = 0; k < s->ran; k++) {
            if (ARRAY_FIT(g->ins, icap, n + 1) < 0)
                return -1;
            g->ins[n++] = (insn){s->addr[k], s->len[k], 0};
            if (k + 1 == s->ran)
                break;
            if (ARRAY_FIT(*pairs, cap, *npairs + 1) < 0)
                return -1;
            int fall = s->addr[k + 1] == s->addr[k] + s->len[k];
            (*pairs)[(*npairs)++] = (xfer){s->addr[k], s->addr[k + 1], s->len[k],
                                           fall ? XFER_FALL : XFER_JUMP};
        }
    }
    if (n)
        qsort(g->ins, n, sizeof *g->ins, cmp_insn);
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || g->ins[m - 1].addr != g->ins[i].addr)
            g->ins[m++] = g->ins[i];
    g->nins = m;
    return 0;
}

/* Function of every instruction: its symbol's, or the nearest call target
 * at or below it. */
static int assign_functions(cfg *g, cfg_builder *b, const mr_reader *r)
{
    uint64_t *targets = NULL;
    size_t nt = 0, tcap = 0;
    for (size_t i = 0; i < b->nxfers; i++)
        if (b->xfers[i].kind == XFER_CALL) {
            if (ARRAY_FIT(targets, tcap, nt + 1) < 0)
                return -1;
            targets[nt++] = b->xfers[i].to;
        }
    if (nt)
        qsort(targets, nt, sizeof *targets, cmp_u64);
    u64map names = {0};
    int rc = 0;
    for (uint32_t i = 0; i < g->nins && !rc; i++) {
        const mr_symbol *sym = r ? mr_reader_symbol(r, g->ins[i].addr) : NULL;
        char buf[32];
        const char *name = sym && sym->function ? sym->function : NULL;
        if (!name) {
            uint64_t entry = 0;
            size_t lo = 0, hi = nt;   /* last target <= addr */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (targets[mid] <= g->ins[i].addr)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo)
                entry = targets[lo - 1];
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)entry);
            name = buf;
        }
        int64_t f = intern_function(g, &names, name);
        if (f < 0)
            rc = -1;
        else
            g->ins[i].function = (uint32_t)f;
    }
    u64map_free(&names);
    free(targets);
    return rc;
}

/* Marks addr a leader (a non-NULL value, so that u64map_get finds it). */
static int mark_leader(u64map *leaders, uint64_t addr)
{
    int added;
    void **slot = u64map_slot_of(leaders, addr, &added);
    if (!slot)
        return -1;
    *slot = (void *)1;
    return 0;
}

/* Cuts the instructions into basic blocks at the leaders. */
static int make_blocks(cfg *g, cfg_builder *b, const xfer *pairs, size_t npairs)
{
    u64map leaders = {0};
    int rc = 0;
    for (size_t i = 0; i < b->sbcap && !rc; i++)
        if (b->sbs[i].ran)
            rc = mark_leader(&leaders, b->sbs[i].addr[0]);
    for (size_t i = 0; i < b->nentries && !rc; i++)
        rc = mark_leader(&leaders, b->entries[i]);
    for (size_t i = 0; i < b->nxfers && !rc; i++)
        rc = mark_leader(&leaders, b->xfers[i].to) |
             mark_leader(&leaders, b->xfers[i].from + b->xfers[i].from_len);
    for (size_t i = 0; i < npairs && !rc; i++)
        if (pairs[i].kind == XFER_JUMP)
            rc = mark_leader(&leaders, pairs[i].to) |
                 mark_leader(&leaders, pairs[i].from + pairs[i].from_len);
    if (rc || !(g->ins_block = malloc(((size_t)g->nins + 1) * sizeof *g->ins_block)) ||
        !(g->blocks = calloc((size_t)g->nins + 1, sizeof *g->blocks)) ||
        !(g->first_ins = malloc(((size_t)g->nins + 1) * sizeof *g->first_ins))) {
        u64map_free(&leaders);
        return -1;
    }
    for (uint32_t i = 0; i < g->nins; i++) {
        const insn *p = i ? &g->ins[i - 1] : NULL, *c = &g->ins[i];
        int start = !p || u64map_get(&leaders, c->addr) ||
                    p->addr + p->len != c->addr || p->function != c->function;
        if (start) {
            cfg_block *nb = &g->blocks[g->nblocks];
            nb->addr = c->addr;
            nb->function = c->function;
            nb->loop = -1;
            g->first_ins[g->nblocks++] = i;
        }
        cfg_block *cur = &g->blocks[g->nblocks - 1];
        cur->ninstrs++;
        cur->end = c->addr + c->len;
        g->ins_block[i] = g->nblocks - 1;
    }
    u64map_free(&leaders);
    return 0;
}

/* The block edge of transfer x, if it is one: its target starts a block and
 * its source ends one. Across functions the target is an entry and the
 * source gets the fall-through to its next instruction (a call inside a
 * superblock, or a tail call). */
static int edge_of(cfg *g, const xfer *x, uint64_t **edges, size_t *n, size_t *cap)
{
    int64_t fi = find_insn(g, x->from), ti = find_insn(g, x->to);
    if (fi < 0 || ti < 0)
        return 0;
    uint32_t s = g->ins_block[fi], d = g->ins_block[ti];
    if (g->blocks[d].addr != x->to || g->blocks[s].end != x->from + x->from_len)
        return 0;               /* inside one block: no edge */
    if (x->kind == XFER_CALL || g->blocks[s].function != g->blocks[d].function) {
        g->blocks[d].entry = 1;
        if (x->kind == XFER_CALL)
            return 0;
        int64_t ri = find_insn(g, x->from + x->from_len);
        if (ri < 0 || g->blocks[g->ins_block[ri]].function != g->blocks[s].function)
            return 0;
        d = g->ins_block[ri];
    }
    if (ARRAY_FIT(*edges, *cap, *n + 1) < 0)
        return -1;
    (*edges)[(*n)++] = (uint64_t)s << 32 | d;
    return 0;
}

/* The successor and predecessor lists from the transfers. */
static int make_edges(cfg *g, cfg_builder *b, const xfer *pairs, size_t npairs)
{
    uint64_t *edges = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < b->nxfers; i++)
        if (edge_of(g, &b->xfers[i], &edges, &n, &cap) < 0)
            goto fail;
    for (size_t i = 0; i < npairs; i++)
        if (edge_of(g, &pairs[i], &edges, &n, &cap) < 0)
            goto fail;
    if (edges)
        qsort(edges, n, sizeof *edges, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || edges[m - 1] != edges[i])
            edges[m++] = edges[i];
    g->succ = malloc((m + 1) * sizeof *g->succ);
    g->pred = malloc((m + 1) * sizeof *g->pred);
    g->pred_start = calloc((size_t)g->nblocks + 2, sizeof *g->pred_start);
    if (!g->succ || !g->pred || !g->pred_start)
        goto fail;
    for (size_t i = 0; i < m; i++) {
        uint32_t s = (uint32_t)(edges[i] >> 32), d = (uint32_t)edges[i];
        g->succ[i] = d;
        if (!g->blocks[s].nsucc)
            g->blocks[s].succ = &g->succ[i];
        g->blocks[s].nsucc++;
        g->pred_start[d + 2]++;
    }
    for (uint32_t v = 0; v < g->nblocks; v++)
        g->pred_start[v + 2] += g->pred_start[v + 1];
    for (size_t i = 0; i < m; i++)
        g->pred[g->pred_start[(uint32_t)edges[i] + 1]++] = (uint32_t)(edges[i] >> 32);
    for (size_t i = 0; i < b->nentries; i++) {
        int64_t e = find_insn(g, b->entries[i]);
        if (e >= 0)
            g->blocks[g->ins_block[e]].entry = 1;
    }
    for (uint32_t v = 0; v < g->nblocks; v++)
        if (g->pred_start[v] == g->pred_start[v + 1])
            g->blocks[v].entry = 1;     /* no predecessor: entered from outside */
    free(edges);
    return 0;
fail:
    free(edges);
    return -1;
}

/* ---- loops: Steensgaard's nesting forest ------------------------------------ */

#define UNSEEN UINT32_MAX

/* Strongly connected components of the blocks in nodes (marked with the
 * current stamp), ignoring edges into cut blocks: comp[v] gets a component
 * number, and the nodes are reordered so that each component is
 * contiguous; starts[] (ncomp + 1 entries) gives where. Iterative Tarjan. */
static int components(cfg *g, uint32_t *nodes, uint32_t n, uint32_t **starts,
                      uint32_t *ncomp)
{
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    uint32_t *call = malloc(((size_t)n + 1) * sizeof *call);   /* DFS path */
    uint32_t *pos = malloc(((size_t)n + 1) * sizeof *pos);     /* next succ */
    uint32_t *out = malloc(((size_t)n + 1) * sizeof *out);
    uint32_t *st = malloc(((size_t)n + 2) * sizeof *st);
    if (!stack || !call || !pos || !out || !st) {
        free(stack); free(call); free(pos); free(out); free(st);
        return -1;
    }
    uint32_t sp = 0, counter = 0, nout = 0, nc = 0;
    for (uint32_t i = 0; i < n; i++)
        g->idx[nodes[i]] = UNSEEN;
    for (uint32_t r = 0; r < n; r++) {
        if (g->idx[nodes[r]] != UNSEEN)
            continue;
        uint32_t depth = 0;
        call[depth] = nodes[r];
        pos[depth] = 0;
        g->idx[nodes[r]] = g->low[nodes[r]] = counter++;
        stack[sp++] = nodes[r];
        g->onstack[nodes[r]] = 1;
        for (;;) {
            uint32_t v = call[depth];
            const cfg_block *bv = &g->blocks[v];
            if (pos[depth] < bv->nsucc) {
                uint32_t w = bv->succ[pos[depth]++];
                if (g->mark[w] != g->stamp || g->cut[w])
                    continue;
                if (g->idx[w] == UNSEEN) {
                    g->idx[w] = g->low[w] = counter++;
                    stack[sp++] = w;
                    g->onstack[w] = 1;
                    call[++depth] = w;
                    pos[depth] = 0;
                } else if (g->onstack[w] && g->idx[w] < g->low[v]) {
                    g->low[v] = g->idx[w];
                }
                continue;
            }
            if (g->low[v] == g->idx[v]) {       /* v roots a component */
                st[nc] = nout;
                uint32_t w;
                do {
                    w = stack[--sp];
                    g->onstack[w] = 0;
                    g->comp[w] = nc;
                    out[nout++] = w;
                } while (w != v);
                nc++;
            }
            if (!depth)
                break;
            depth--;
            if (g->low[v] < g->low[call[depth]])
                g->low[call[depth]] = g->low[v];
        }
    }
    st[nc] = nout;
    memcpy(nodes, out, (size_t)n * sizeof *nodes);
    free(stack); free(call); free(pos); free(out);
    *starts = st;
    *ncomp = nc;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Is component c (nodes[0..n)) a loop: several blocks, or one with a self
 * edge that is not cut? */
static int is_cycle(const cfg *g, const uint32_t *nodes, uint32_t n)
{
    if (n > 1)
        return 1;
    const cfg_block *b = &g->blocks[nodes[0]];
    for (uint32_t k = 0; k < b->nsucc; k++)
        if (b->succ[k] == nodes[0] && !g->cut[nodes[0]])
            return 1;
    return 0;
}

static int find_loops(cfg *g, uint32_t *nodes, uint32_t n, int32_t parent,
                      uint32_t depth)
{
    g->stamp++;
    for (uint32_t i = 0; i < n; i++)
        g->mark[nodes[i]] = g->stamp;
    uint32_t *starts, ncomp;
    if (components(g, nodes, n, &starts, &ncomp) < 0)
        return -1;
    /* headers first, for every component, while comp[] is this level's */
    uint32_t *hdr = malloc(((size_t)n + 1) * sizeof *hdr);
    if (!hdr) {
        free(starts);
        return -1;
    }
    int rc = 0;
    for (uint32_t c = 0; c < ncomp && !rc; c++) {
        uint32_t *cn = nodes + starts[c], cnn = starts[c + 1] - starts[c];
        if (!is_cycle(g, cn, cnn))
            continue;
        qsort(cn, cnn, sizeof *cn, cmp_u32);   /* address order */
        uint32_t nh = 0;
        for (uint32_t i = 0; i < cnn; i++) {
            uint32_t v = cn[i];
            int outside = g->blocks[v].entry;
            for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1] && !outside; k++) {
                uint32_t p = g->pred[k];
                outside = g->mark[p] != g->stamp || g->comp[p] != c;
            }
            if (outside)
                hdr[nh++] = v;
        }
        if (!nh)
            hdr[nh++] = cn[0];  /* unreachable cycle: its lowest block */
        if (ARRAY_FIT(g->loops, g->loopcap, g->nloops + 1) < 0) {
            rc = -1;
            break;
        }
        int32_t id = (int32_t)g->nloops++;
        cfg_loop *l = &g->loops[id];
        l->parent = parent;
        l->depth = depth;
        l->function = g->blocks[hdr[0]].function;
        l->header = g->blocks[hdr[0]].addr;
        l->nheaders = nh;
        l->nblocks = cnn;
        for (uint32_t i = 0; i < cnn; i++)
            g->blocks[cn[i]].loop = id;
        for (uint32_t i = 0; i < nh; i++)
            g->cut[hdr[i]] = 1;
        /* the nested loops: this component without edges into its headers;
         * the recursion reorders cn and changes stamps, so it goes last */
        uint32_t *copy = malloc((size_t)cnn * sizeof *copy);
        if (!copy) {
            rc = -1;
            break;
        }
        memcpy(copy, cn, (size_t)cnn * sizeof *copy);
        rc = find_loops(g, copy, cnn, id, depth + 1);
        free(copy);
        /* the recursion changed mark/comp: restore this level's */
        g->stamp++;
        for (uint32_t i = 0; i < n; i++)
            g->mark[nodes[i]] = g->stamp;
        for (uint32_t c2 = 0; c2 < ncomp; c2++)
            for (uint32_t i = starts[c2]; i < starts[c2 + 1]; i++)
                g->comp[nodes[i]] = c2;
    }
    free(hdr);
    free(starts);
    return rc;
}

/* File and line range of every loop. */
static int loop_lines(cfg *g, const mr_reader *r)
{
    if (!r)
        return 0;
    for (uint32_t i = 0; i < g->nloops; i++) {
        const mr_symbol *h = mr_reader_symbol(r, g->loops[i].header);
        if (h && h->file && !(g->loops[i].file = strdup(h->file)))
            return -1;
    }
    for (uint32_t v = 0; v < g->nblocks; v++) {
        for (int32_t l = g->blocks[v].loop; l >= 0; l = g->loops[l].parent) {
            cfg_loop *lp = &g->loops[l];
            if (!lp->file)
                continue;
            for (uint32_t k = 0; k < g->blocks[v].ninstrs; k++) {
                const mr_symbol *s = mr_reader_symbol(r, g->ins[g->first_ins[v] + k].addr);
                if (!s || !s->file || !s->line || strcmp(s->file, lp->file))
                    continue;
                if (!lp->line_min || s->line < lp->line_min)
                    lp->line_min = s->line;
                if (s->line > lp->line_max)
                    lp->line_max = s->line;
            }
        }
    }
    return 0;
}

cfg *cfg_build(cfg_builder *b, const mr_reader *reader)
{
    cfg *g = calloc(1, sizeof *g);
    xfer *pairs = NULL;
    size_t npairs = 0;
    if (!g || gather(g, b, &pairs, &npairs) < 0 ||
        assign_functions(g, b, reader) < 0 ||
        make_blocks(g, b, pairs, npairs) < 0 ||
        make_edges(g, b, pairs, npairs) < 0)
        goto fail;
    size_t nb = (size_t)g->nblocks + 1;
    uint32_t *all = malloc(nb * sizeof *all);
    g->mark = calloc(nb, sizeof *g->mark);
    g->idx = malloc(nb * sizeof *g->idx);
    g->low = malloc(nb * sizeof *g->low);
    g->comp = malloc(nb * sizeof *g->comp);
    g->cut = calloc(nb, 1);
    g->onstack = calloc(nb, 1);
    if (!all || !g->mark || !g->idx || !g->low || !g->comp || !g->cut || !g->onstack) {
        free(all);
        goto fail;
    }
    for (uint32_t v = 0; v < g->nblocks; v++)
        all[v] = v;
    int rc = find_loops(g, all, g->nblocks, -1, 1);
    free(all);
    if (rc < 0 || loop_lines(g, reader) < 0)
        goto fail;
    free(pairs);
    return g;
fail:
    free(pairs);
    cfg_free(g);
    return NULL;
}

void cfg_free(cfg *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->nloops; i++)
        free((char *)g->loops[i].file);
    for (uint32_t i = 0; i < g->nfunctions; i++)
        free(g->fnames[i]);
    free(g->fnames);
    free(g->loops);
    free(g->ins);
    free(g->ins_block);
    free(g->blocks);
    free(g->first_ins);
    free(g->succ);
    free(g->pred);
    free(g->pred_start);
    free(g->mark);
    free(g->idx);
    free(g->low);
    free(g->comp);
    free(g->cut);
    free(g->onstack);
    free(g);
}

uint32_t cfg_nblocks(const cfg *g) { return g->nblocks; }
const cfg_block *cfg_block_at(const cfg *g, uint32_t i) { return &g->blocks[i]; }
uint32_t cfg_nloops(const cfg *g) { return g->nloops; }
const cfg_loop *cfg_loop_at(const cfg *g, uint32_t i) { return &g->loops[i]; }
uint32_t cfg_nfunctions(const cfg *g) { return g->nfunctions; }
const char *cfg_function_name(const cfg *g, uint32_t f) { return g->fnames[f]; }

int32_t cfg_block_of(const cfg *g, uint64_t addr)
{
    int64_t i = find_insn(g, addr);
    return i < 0 ? -1 : (int32_t)g->ins_block[i];
}

int32_t cfg_loop_of(const cfg *g, uint64_t addr)
{
    int32_t b = cfg_block_of(g, addr);
    return b < 0 ? -1 : g->blocks[b].loop;
}

int cfg_loop_within(const cfg *g, int32_t inner, int32_t outer)
{
    for (int32_t l = inner; l >= 0; l = g->loops[l].parent)
        if (l == outer)
            return 1;
    return 0;
}

/* ---- inclusive attribution ----------------------------------------------------- */

/* A thread's call stack: for every active call, the loop it was made in
 * (inherited from further up when the call site is in no loop). */
typedef struct ctx_stack {
    int32_t *loop;
    size_t n, cap;
} ctx_stack;

struct cfg_ctx {
    const cfg *g;
    u64map threads;             /* tid -> ctx_stack * */
};

cfg_ctx *cfg_ctx_new(const cfg *g)
{
    cfg_ctx *c = calloc(1, sizeof *c);
    if (c)
        c->g = g;
    return c;
}

void cfg_ctx_free(cfg_ctx *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->threads.cap; i++)
        if (c->threads.slots[i].used) {
            ctx_stack *s = c->threads.slots[i].value;
            free(s->loop);
            free(s);
        }
    u64map_free(&c->threads);
    free(c);
}

static ctx_stack *ctx_of(cfg_ctx *c, uint32_t tid)
{
    int added;
    void **slot = u64map_slot_of(&c->threads, tid, &added);
    if (!slot)
        return NULL;
    if (added && !(*slot = calloc(1, sizeof(ctx_stack))))
        return NULL;
    return *slot;
}

int32_t cfg_ctx_caller_loop(cfg_ctx *c, uint32_t tid)
{
    ctx_stack *s = ctx_of(c, tid);
    return s && s->n ? s->loop[s->n - 1] : -1;
}

int32_t cfg_ctx_loop(cfg_ctx *c, uint32_t tid, uint64_t addr)
{
    int32_t own = cfg_loop_of(c->g, addr);
    return own >= 0 ? own : cfg_ctx_caller_loop(c, tid);
}

int cfg_ctx_event(cfg_ctx *c, const mr_event *ev)
{
    if (ev->kind != MR_EV_EXEC || !ev->u.exec.ninstrs)
        return 0;
    uint8_t jump = ev->u.exec.def->exits[ev->u.exec.exit].jump;
    if (jump != MR_JUMP_CALL && jump != MR_JUMP_RET)
        return 0;
    ctx_stack *s = ctx_of(c, ev->tid);
    if (!s)
        return -1;
    if (jump == MR_JUMP_RET) {
        if (s->n)
            s->n--;             /* more returns than calls (longjmp): ignored */
        return 0;
    }
    uint64_t site = ev->u.exec.def->instrs[ev->u.exec.ninstrs - 1].addr;
    int32_t l = cfg_ctx_loop(c, ev->tid, site);
    if (ARRAY_FIT(s->loop, s->cap, s->n + 1) < 0)
        return -1;
    s->loop[s->n++] = l;
    return 0;
}
