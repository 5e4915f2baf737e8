/*
 * test_format_common.h: a random trace generator for the format tests. It
 * writes a trace through the writer and keeps, independently of the
 * library's code, the events a reader must deliver (with synthesised
 * calls/returns, times, tids and totals), so tests compare field by field.
 */
#ifndef TEST_FORMAT_COMMON_H
#define TEST_FORMAT_COMMON_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "memrec_trace.h"

/* A deterministic PRNG (xorshift64*) so failures reproduce. */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static uint32_t rndn(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

/* One event the reader must deliver. Definitions are kept apart because
 * they may be delivered earlier than written (at their chunk's start). */
typedef struct exp_ev {
    int kind;
    uint32_t tid;
    uint64_t time;
    uint32_t block, exit, naccesses;
    mr_access *accesses;
    uint64_t from, to;
    mr_heap heap;
    uint8_t top;
    uint32_t ttid, parent;
    char *mark;
    int on;
    mr_end end;
    /* definitions: */
    mr_block_def *bdef;
    uint32_t sid;
    uint64_t saddr;
} exp_ev;

typedef struct gen_block {
    mr_block_def def;
    mr_instr_def *instrs;
    mr_access_def *accesses;
    mr_exit_def *exits;
    uint64_t *base, *stride;   /* per access: address pattern */
    int *pattern;              /* 0 strided, 1 random, 2 same */
} gen_block;

typedef struct gen_thread { uint32_t tid; int jump; uint64_t from; } gen_thread;

typedef struct gen {
    mr_writer *w;
    exp_ev *ev;                /* non-definition events */
    size_t nev, evcap;
    exp_ev *defs;              /* definition events */
    size_t ndefs, defcap;
    gen_block **blocks;        /* by id; redefinitions keep the old in old[] */
    gen_block **old;
    size_t nold;
    uint32_t nblocks;
    uint32_t nstacks;
    gen_thread threads[8];
    int nthreads;
    int cur;                   /* index into threads, -1 before any */
    uint32_t cur_tid;
    uint64_t time;
    mr_totals tot;
    int values;                /* generate value accesses */
} gen;

static exp_ev *gen_push(gen *g)
{
    if (g->nev == g->evcap) {
        g->evcap = g->evcap ? g->evcap * 2 : 1024;
        g->ev = realloc(g->ev, g->evcap * sizeof *g->ev);
    }
    exp_ev *e = &g->ev[g->nev++];
    memset(e, 0, sizeof *e);
    e->tid = g->cur_tid;
    e->time = g->time;
    return e;
}

static exp_ev *gen_push_def(gen *g, int kind)
{
    if (g->ndefs == g->defcap) {
        g->defcap = g->defcap ? g->defcap * 2 : 256;
        g->defs = realloc(g->defs, g->defcap * sizeof *g->defs);
    }
    exp_ev *e = &g->defs[g->ndefs++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    return e;
}

static int gen_thread_index(gen *g, uint32_t tid)
{
    for (int i = 0; i < g->nthreads; i++)
        if (g->threads[i].tid == tid)
            return i;
    g->threads[g->nthreads] = (gen_thread){ tid, 0, 0 };
    g->tot.threads++;
    return g->nthreads++;
}

static void gen_free_block(gen_block *b)
{
    if (!b)
        return;
    free(b->instrs);
    free(b->accesses);
    free(b->exits);
    free(b->base);
    free(b->stride);
    free(b->pattern);
    free(b);
}

/* With gen_batched set, executions are not written one by one: their
 * words are gathered as mr_write_execs takes them (GEN_TAG headers, all of
 * a def's address and value words, junk past the exit's) and written in
 * one call before anything else is written; the file must be the same. */
static int gen_batched;
#define GEN_TAG 0x5a
static uint64_t gen_words[1 << 14];
static size_t gen_nwords;

static void gen_flush(gen *g)
{
    size_t used = 0;
    if (gen_nwords && mr_write_execs(g->w, gen_words, gen_nwords, GEN_TAG, &used) == 0)
        assert_int_equal(used, gen_nwords);
    gen_nwords = 0;
}

/* Words past an exit's accesses: anything, but not from rnd(), which
 * must give both ways the same events. */
static uint64_t gen_junk(void)
{
    static uint64_t j = 0x9e3779b97f4a7c15ULL;
    return j = j * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* Gathers one execution's words (gen_batched). */
static void gen_gather(gen *g, const gen_block *b, uint32_t id, uint32_t exit,
                       const uint64_t *addrs, const uint64_t *values, uint32_t nv)
{
    const mr_block_def *d = &b->def;
    if (gen_nwords + 1 + 2 * d->naccesses > sizeof gen_words / sizeof *gen_words)
        gen_flush(g);
    gen_words[gen_nwords++] = GEN_TAG | (uint64_t)exit << 8 | (uint64_t)id << 24;
    for (uint32_t i = 0; i < d->naccesses; i++)
        gen_words[gen_nwords++] = i < d->exits[exit].naccesses ? addrs[i] : gen_junk();
    for (uint32_t i = 0, v = 0; i < d->naccesses; i++)
        if (d->accesses[i].flags & MR_ACC_VALUE) {
            gen_words[gen_nwords++] = v < nv ? values[v] : gen_junk();
            v++;
        }
}

/* A random block def with id; its accesses get random address patterns. */
static void gen_block_def(gen *g, uint32_t id)
{
    gen_block *b = calloc(1, sizeof *b);
    uint32_t ni = 1 + rndn(8), na = rndn(10), ne = 1 + rndn(3);
    if (ni < na && rndn(2))   /* then every access has an instruction of its own */
        ni = na;
    b->instrs = calloc(ni, sizeof *b->instrs);
    b->accesses = calloc(na + 1, sizeof *b->accesses);
    b->exits = calloc(ne, sizeof *b->exits);
    b->base = calloc(na + 1, sizeof *b->base);
    b->stride = calloc(na + 1, sizeof *b->stride);
    b->pattern = calloc(na + 1, sizeof *b->pattern);
    uint64_t addr = 0x400000 + (uint64_t)rndn(1 << 20) * 16;
    for (uint32_t i = 0; i < ni; i++) {
        b->instrs[i].addr = addr;
        b->instrs[i].len = 1 + rndn(10);
        addr += b->instrs[i].len + (rndn(10) == 0 ? rndn(100) : 0);
    }
    for (uint32_t i = 0; i < na; i++) {
        b->accesses[i].instr = (uint16_t)(i * ni / (na ? na : 1));
        b->accesses[i].kind = (uint8_t)(1 + rndn(3));
        b->accesses[i].flags = (uint8_t)((g->values && rndn(3) == 0 ? MR_ACC_VALUE : 0) |
                                         (rndn(5) == 0 ? MR_ACC_GUARDED : 0));
        b->accesses[i].size = 1u << rndn(4);
        b->base[i] = 0x10000000 + rnd() % (1ULL << 32);
        b->stride[i] = (uint64_t)(int64_t)((int)rndn(64) - 16);
        b->pattern[i] = (int)rndn(3);
    }
    for (uint32_t e = 0; e < ne; e++) {
        int last = e == ne - 1;
        b->exits[e].ninstrs = last ? ni : 1 + rndn(ni);
        b->exits[e].naccesses = last ? na : rndn(na + 1);
        b->exits[e].jump = (uint8_t)rndn(5);
    }
    b->def = (mr_block_def){ id, b->instrs[0].addr, ni, b->instrs, na, b->accesses, ne, b->exits };
    if (id < g->nblocks && g->blocks[id]) {
        g->old = realloc(g->old, (g->nold + 1) * sizeof *g->old);
        g->old[g->nold++] = g->blocks[id];
    }
    if (id >= g->nblocks) {
        g->blocks = realloc(g->blocks, (id + 1) * sizeof *g->blocks);
        memset(g->blocks + g->nblocks, 0, (id + 1 - g->nblocks) * sizeof *g->blocks);
        g->nblocks = id + 1;
    }
    g->blocks[id] = b;
    exp_ev *d = gen_push_def(g, MR_EV_BLOCK_DEF);
    d->bdef = &b->def;
    gen_flush(g);
    mr_write_block_def(g->w, &b->def);
}

/* One execution of block id by exit. In a loop (loop != 0) every guard is
 * true, so executions whose addresses all follow their strides become
 * EXEC_HITS runs; with loop 1 every value is the same each time too (a
 * batchable run), with loop 2 values change. */
static void gen_exec_one(gen *g, uint32_t id, uint32_t exit, int loop)
{
    gen_block *b = g->blocks[id];
    const mr_exit_def *ex = &b->exits[exit];
    uint64_t addrs[16], values[16];
    uint32_t nv = 0;
    gen_thread *t = &g->threads[g->cur];
    if (t->jump == MR_JUMP_CALL || t->jump == MR_JUMP_RET) {
        exp_ev *c = gen_push(g);
        c->kind = t->jump == MR_JUMP_CALL ? MR_EV_CALL : MR_EV_RETURN;
        c->from = t->from;
        c->to = b->def.addr;
    }
    exp_ev *e = gen_push(g);
    e->kind = MR_EV_EXEC;
    e->block = id;
    e->exit = exit;
    e->accesses = calloc(ex->naccesses + 1, sizeof *e->accesses);
    for (uint32_t i = 0; i < ex->naccesses; i++) {
        const mr_access_def *a = &b->accesses[i];
        uint64_t addr;
        switch (b->pattern[i]) {
        case 0: addr = b->base[i] += b->stride[i]; break;
        case 1: addr = loop && rndn(8) ? b->base[i] : 0x10000000 + rnd() % (1ULL << 30); break;
        default: addr = b->base[i]; break;
        }
        if ((a->flags & MR_ACC_GUARDED) && !loop && rndn(3) == 0)
            addr = 0;
        addrs[i] = addr;
        uint64_t v = loop == 1 ? 0x1000 * (uint64_t)(id + 1) + i
                   : loop == 2 ? g->time * 8 + i
                   : rndn(2) ? rnd() : addr + rndn(4);
        if (a->flags & MR_ACC_VALUE)
            values[nv++] = v;
        if ((a->flags & MR_ACC_GUARDED) && addr == 0)
            continue;
        mr_access *o = &e->accesses[e->naccesses++];
        o->addr = addr;
        o->size = a->size;
        o->instr = a->instr;
        o->kind = a->kind;
        o->has_value = (a->flags & MR_ACC_VALUE) != 0;
        o->value = o->has_value ? v : 0;
        if (a->kind == MR_LOAD) g->tot.loads++;
        if (a->kind == MR_STORE) g->tot.stores++;
        if (a->kind == MR_MODIFY) g->tot.modifies++;
    }
    if (gen_batched)
        gen_gather(g, b, id, exit, addrs, values, nv);
    else
        mr_write_exec(g->w, id, exit, addrs, nv ? values : NULL);
    t->jump = ex->jump;
    t->from = ex->ninstrs ? b->instrs[ex->ninstrs - 1].addr : b->def.addr;
    g->time += ex->ninstrs;
    g->tot.instructions += ex->ninstrs;
    g->tot.blocks++;
    g->tot.calls += ex->jump == MR_JUMP_CALL;
    g->tot.returns += ex->jump == MR_JUMP_RET;
}

static void gen_exec(gen *g)
{
    uint32_t id = rndn(g->nblocks);
    if (rndn(4))   /* loops: often the same few blocks */
        id = id % 3 < g->nblocks ? id % 3 : id;
    if (!g->blocks[id])
        return;
    if (g->cur < 0)
        g->cur = gen_thread_index(g, g->cur_tid);
    gen_exec_one(g, id, rndn(g->blocks[id]->def.nexits), 0);
}

/* An exit of b for a loop: mostly one that can repeat as one batch (a
 * boring jump, no random address), with boring_only clear any jump. */
static uint32_t gen_loop_exit(const gen_block *b, int boring_only)
{
    uint32_t exit = rndn(b->def.nexits);
    for (uint32_t e = 0; e < b->def.nexits && rndn(4); e++) {
        uint32_t k = 0;
        while (k < b->exits[e].naccesses && b->pattern[k] != 1)
            k++;
        if ((!boring_only || b->exits[e].jump == MR_JUMP_BORING) &&
            k == b->exits[e].naccesses)
            exit = e;
    }
    return exit;
}

/* A loop of up to 300 trips: one block by one exit, or two or three blocks
 * in turn (a loop body cut up), whose exits may be calls or returns. */
static void gen_loop(gen *g)
{
    uint32_t id[3] = { rndn(g->nblocks), rndn(g->nblocks), rndn(g->nblocks) }, exit[3];
    uint32_t len = 1 + rndn(3), trips = 1 + rndn(300);
    for (uint32_t k = 0; k < len; k++) {
        if (!g->blocks[id[k]])
            return;
        exit[k] = gen_loop_exit(g->blocks[id[k]], len == 1 || rndn(2));
    }
    if (g->cur < 0)
        g->cur = gen_thread_index(g, g->cur_tid);
    int loop = rndn(3) ? 1 : 2;
    for (uint32_t i = 0; i < trips; i++)
        for (uint32_t k = 0; k < len; k++)
            gen_exec_one(g, id[k], exit[k], loop);
}

static void gen_heap(gen *g)
{
    exp_ev *e = gen_push(g);
    e->kind = MR_EV_HEAP;
    mr_heap *h = &e->heap;
    h->op = (uint8_t)(1 + rndn(MR_MUNMAP));
    h->addr = 0x5000000 + rndn(1 << 24) * 16;
    h->size = rndn(5000);
    h->count = h->op == MR_CALLOC || h->op == MR_MEMALIGN ? 1 + rndn(64) : 0;
    h->old_addr = h->op == MR_REALLOC ? 0x5000000 + rndn(1 << 24) * 16 : 0;
    h->stack = rndn(g->nstacks + 1);
    if (h->op == MR_REALLOC) g->tot.reallocs++;
    else if (h->op == MR_FREE || h->op == MR_DELETE || h->op == MR_DELETE_ARRAY) g->tot.frees++;
    else if (h->op != MR_MMAP && h->op != MR_MUNMAP) g->tot.allocs++;   /* in no total */
    gen_flush(g);
    mr_write_heap(g->w, h);
}

static void gen_stack(gen *g)
{
    uint64_t ips[6];
    uint32_t depth = rndn(6);
    for (uint32_t i = 0; i < depth; i++)
        ips[i] = 0x400000 + rndn(1 << 20);
    uint32_t id = ++g->nstacks;
    exp_ev *d = gen_push_def(g, MR_EV_STACK);
    d->sid = id;
    d->saddr = depth ? ips[0] : 0;
    d->naccesses = depth;
    gen_flush(g);
    mr_write_stack(g->w, &(mr_stack){ id, depth, ips });
}

static const char *gen_names[] = { "main", "foo", "bar", "baz::qux", "a.c", "b.c", NULL };

static void gen_symbol(gen *g)
{
    mr_symbol s = { 0x400000 + rndn(1 << 20), gen_names[rndn(7)], gen_names[rndn(7)], rndn(500) };
    exp_ev *d = gen_push_def(g, MR_EV_SYMBOL);
    d->saddr = s.addr;
    d->sid = s.line;
    gen_flush(g);
    mr_write_symbol(g->w, &s);
}

static void gen_thread_event(gen *g)
{
    exp_ev *e = gen_push(g);
    e->kind = MR_EV_THREAD;
    uint32_t tid = 1 + rndn(5);
    switch (rndn(3)) {
    case 0:
        e->top = MR_THREAD_SWITCH;
        e->ttid = tid;
        e->tid = tid;
        g->cur_tid = tid;
        g->cur = gen_thread_index(g, tid);
        gen_flush(g);
        mr_write_thread_switch(g->w, tid);
        break;
    case 1:
        e->top = MR_THREAD_CREATE;
        e->parent = g->cur_tid;
        e->ttid = tid;
        gen_thread_index(g, g->cur_tid);
        gen_thread_index(g, tid);
        gen_flush(g);
        mr_write_thread_create(g->w, g->cur_tid, tid);
        break;
    default:
        e->top = MR_THREAD_EXIT;
        e->ttid = tid;
        gen_thread_index(g, tid);
        gen_flush(g);
        mr_write_thread_exit(g->w, tid);
        break;
    }
}

/* Set: gen_trace's writer packs, compresses and writes on its thread. */
static int gen_background;
/* gen_trace's writer's modelling threads (mr_writer_options.workers). */
static int gen_workers;

/* Writes a random trace of about n events to fd (end NULL: MR_END_LOST). */
static void gen_trace(gen *g, int fd, size_t chunk_bytes, int n, int values, int with_end)
{
    memset(g, 0, sizeof *g);
    g->cur = -1;
    g->values = values;
    char *err = NULL;
    mr_writer_options o = { .chunk_bytes = chunk_bytes, .background = gen_background,
                            .workers = gen_workers };
    g->w = mr_writer_open_fd(fd, &o, &err);
    if (!g->w) {
        fprintf(stderr, "open: %s\n", err);
        abort();
    }
    const char *argv[] = { "prog", "-x", "arg with space" };
    mr_process p = { 1234, 1, 1700000000000000ULL, "/bin/prog", 3, argv, "--opt=1" };
    gen_push_def(g, MR_EV_PROCESS);
    mr_write_process(g->w, &p);
    mr_module m = { 0, "/bin/prog", 0x400000, 0x10000, -4096 };
    gen_push_def(g, MR_EV_MODULE)->saddr = m.text_addr;
    mr_write_module(g->w, &m);
    mr_dataobj d = { "global_table", 0x601000, 4096, 0 };
    gen_push_def(g, MR_EV_DATAOBJ)->saddr = d.addr;
    mr_write_dataobj(g->w, &d);
    for (int i = 0; i < 4; i++)
        gen_block_def(g, (uint32_t)i);
    for (int i = 0; i < n; i++) {
        uint32_t r = rndn(100);
        if (r < 75) gen_exec(g);
        else if (r < 82) gen_heap(g);
        else if (r < 85) gen_thread_event(g);
        else if (r < 87) gen_block_def(g, rndn(4) ? g->nblocks : rndn(g->nblocks));
        else if (r < 89) gen_stack(g);
        else if (r < 92) gen_symbol(g);
        else if (r < 94) {
            exp_ev *e = gen_push(g);
            e->kind = MR_EV_MARK;
            e->mark = malloc(32);
            snprintf(e->mark, 32, "mark %d", i);
            gen_flush(g);
            mr_write_mark(g->w, e->mark);
        } else if (r < 96) {
            exp_ev *e = gen_push(g);
            e->kind = MR_EV_COLLECT;
            e->on = (int)rndn(2);
            gen_flush(g);
            mr_write_collect(g->w, e->on);
        } else {
            gen_loop(g);
        }
    }
    mr_end end = { MR_END_EXIT, 3, 0, { 0 } };
    exp_ev *e = gen_push(g);
    e->kind = MR_EV_END;
    e->end = with_end ? end : (mr_end){ .reason = MR_END_LOST };
    e->end.totals = g->tot;
    gen_flush(g);
    if (mr_writer_close(g->w, with_end ? &end : NULL, &err)) {
        fprintf(stderr, "close: %s\n", err);
        abort();
    }
}

static void gen_free(gen *g)
{
    for (size_t i = 0; i < g->nev; i++) {
        free(g->ev[i].accesses);
        free(g->ev[i].mark);
    }
    free(g->ev);
    free(g->defs);
    for (uint32_t i = 0; i < g->nblocks; i++)
        gen_free_block(g->blocks[i]);
    for (size_t i = 0; i < g->nold; i++)
        gen_free_block(g->old[i]);
    free(g->blocks);
    free(g->old);
}

/* 0 if the delivered event matches the expected one, else a reason. */
static __attribute__((unused)) const char *ev_diff(const exp_ev *e, const mr_event *ev)
{
    if ((int)ev->kind != e->kind) return "kind";
    if (ev->tid != e->tid) return "tid";
    if (ev->time != e->time) return "time";
    switch (e->kind) {
    case MR_EV_EXEC:
        if (ev->u.exec.def->id != e->block) return "block";
        if (ev->u.exec.exit != e->exit) return "exit";
        if (ev->u.exec.ninstrs != ev->u.exec.def->exits[e->exit].ninstrs) return "ninstrs";
        if (ev->u.exec.naccesses != e->naccesses) return "naccesses";
        if (ev->u.exec.repeat != 1 || ev->u.exec.strides) return "repeat";
        for (uint32_t i = 0; i < e->naccesses; i++) {
            const mr_access *a = &ev->u.exec.accesses[i], *b = &e->accesses[i];
            if (a->addr != b->addr) return "access addr";
            if (a->size != b->size || a->instr != b->instr || a->kind != b->kind) return "access def";
            if (a->has_value != b->has_value) return "has_value";
            if (a->has_value && a->value != b->value) return "value";
        }
        return NULL;
    case MR_EV_CALL:
    case MR_EV_RETURN:
        return ev->u.call.from != e->from ? "from" : ev->u.call.to != e->to ? "to" : NULL;
    case MR_EV_HEAP:
        if (memcmp(&ev->u.heap.h.op, &e->heap.op, 1) || ev->u.heap.h.addr != e->heap.addr ||
            ev->u.heap.h.size != e->heap.size || ev->u.heap.h.count != e->heap.count ||
            ev->u.heap.h.old_addr != e->heap.old_addr || ev->u.heap.h.stack != e->heap.stack)
            return "heap";
        if ((ev->u.heap.stack != NULL) != (e->heap.stack != 0)) return "heap stack";
        if (ev->u.heap.stack && ev->u.heap.stack->id != e->heap.stack) return "heap stack id";
        return NULL;
    case MR_EV_THREAD:
        if (ev->u.thread.op != e->top || ev->u.thread.tid != e->ttid) return "thread";
        if (e->top == MR_THREAD_CREATE && ev->u.thread.parent != e->parent) return "parent";
        return NULL;
    case MR_EV_MARK:
        return strcmp(ev->u.mark, e->mark) ? "mark" : NULL;
    case MR_EV_COLLECT:
        return ev->u.collect_on != e->on ? "collect" : NULL;
    case MR_EV_END:
        if (ev->u.end->reason != e->end.reason || ev->u.end->status != e->end.status) return "end";
        if (memcmp(&ev->u.end->totals, &e->end.totals, sizeof e->end.totals)) return "totals";
        return NULL;
    }
    return "unexpected kind";
}

/* 0 if a delivered definition matches the expected one. */
static __attribute__((unused)) const char *def_diff(const exp_ev *e, const mr_event *ev)
{
    if ((int)ev->kind != e->kind) return "def kind";
    switch (e->kind) {
    case MR_EV_PROCESS: {
        const mr_process *p = ev->u.process;
        if (p->pid != 1234 || p->ppid != 1 || p->start_usec != 1700000000000000ULL ||
            strcmp(p->exe, "/bin/prog") || p->argc != 3 || strcmp(p->argv[2], "arg with space") ||
            p->argv[3] != NULL || strcmp(p->tool_options, "--opt=1"))
            return "process";
        return NULL;
    }
    case MR_EV_MODULE:
        return ev->u.module->bias != -4096 || strcmp(ev->u.module->path, "/bin/prog") ||
               ev->u.module->text_addr != e->saddr ? "module" : NULL;
    case MR_EV_DATAOBJ:
        return strcmp(ev->u.dataobj->name, "global_table") || ev->u.dataobj->addr != e->saddr ||
               ev->u.dataobj->size != 4096 ? "dataobj" : NULL;
    case MR_EV_SYMBOL:
        return ev->u.symbol->addr != e->saddr || ev->u.symbol->line != e->sid ? "symbol" : NULL;
    case MR_EV_STACK:
        return ev->u.stack->id != e->sid || ev->u.stack->depth != e->naccesses ||
               (e->naccesses && ev->u.stack->ips[0] != e->saddr) ? "stack" : NULL;
    case MR_EV_BLOCK_DEF: {
        const mr_block_def *a = ev->u.block_def, *b = e->bdef;
        if (a->id != b->id || a->addr != b->addr || a->ninstrs != b->ninstrs ||
            a->naccesses != b->naccesses || a->nexits != b->nexits)
            return "block def";
        for (uint32_t i = 0; i < a->ninstrs; i++)
            if (a->instrs[i].addr != b->instrs[i].addr || a->instrs[i].len != b->instrs[i].len)
                return "block instrs";
        for (uint32_t i = 0; i < a->naccesses; i++)
            if (memcmp(&a->accesses[i], &b->accesses[i], sizeof *a->accesses))
                return "block accesses";
        for (uint32_t i = 0; i < a->nexits; i++)
            if (a->exits[i].ninstrs != b->exits[i].ninstrs ||
                a->exits[i].naccesses != b->exits[i].naccesses || a->exits[i].jump != b->exits[i].jump)
                return "block exits";
        return NULL;
    }
    }
    return "unexpected def kind";
}

static __attribute__((unused)) int is_def_kind(int k)
{
    return k == MR_EV_PROCESS || k == MR_EV_MODULE || k == MR_EV_SYMBOL || k == MR_EV_DATAOBJ ||
           k == MR_EV_BLOCK_DEF || k == MR_EV_STACK;
}

/* A temporary file holding a trace; returns its path (static buffer). */
static const char *tmp_trace_path(const char *tag)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/memrec-test-%s-%d.mrt",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", tag, (int)getpid());
    return path;
}

/* A digest of everything an event carries, for comparing two reads. */
static __attribute__((unused)) uint64_t ev_digest(const mr_event *ev)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ULL)
    MIX(ev->kind);
    MIX(ev->tid);
    MIX(ev->time);
    switch (ev->kind) {
    case MR_EV_EXEC:
        MIX(ev->u.exec.def->id);
        MIX(ev->u.exec.exit);
        MIX(ev->u.exec.naccesses);
        for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
            MIX(ev->u.exec.accesses[i].addr);
            MIX(ev->u.exec.accesses[i].value);
            MIX(ev->u.exec.accesses[i].has_value);
        }
        break;
    case MR_EV_CALL:
    case MR_EV_RETURN:
        MIX(ev->u.call.from);
        MIX(ev->u.call.to);
        break;
    case MR_EV_HEAP:
        MIX(ev->u.heap.h.op);
        MIX(ev->u.heap.h.addr);
        MIX(ev->u.heap.h.size);
        MIX(ev->u.heap.h.stack);
        break;
    case MR_EV_THREAD:
        MIX(ev->u.thread.op);
        MIX(ev->u.thread.tid);
        break;
    case MR_EV_BLOCK_DEF:
        MIX(ev->u.block_def->id);
        MIX(ev->u.block_def->addr);
        break;
    case MR_EV_SYMBOL:
        MIX(ev->u.symbol->addr);
        break;
    case MR_EV_MARK:
        for (const char *c = ev->u.mark; *c; c++)
            MIX(*c);
        break;
    default:
        break;
    }
#undef MIX
    return h;
}

/* Writes n bytes to a new file at path. */
static __attribute__((unused)) void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f))
        abort();
}

/* Reads a whole file (malloc'd). */
static __attribute__((unused)) uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        abort();
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n + 1);
    if (*n && fread(p, 1, *n, f) != *n)
        abort();
    fclose(f);
    return p;
}

#endif
