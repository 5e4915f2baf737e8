/*
 * defs.c: the reader's side of definitions (SPEC.md "Definition records"):
 * decoding DEFS chunks into objects that live until mr_reader_close(), and
 * the lookups over them (blocks, stacks, process, symbols).
 */
#include <stdlib.h>
#include "trace_internal.h"

/* ---- arena ------------------------------------------------------------------ */

/* One slab of the arena; objects are carved from data[]. */
struct mr_arena_block {
    struct mr_arena_block *next;
    size_t used, size;
    _Alignas(8) unsigned char data[];
};

void *mr_arena_alloc(mr_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    struct mr_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->used = 0;
        b->size = size;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void mr_arena_free(mr_arena *a)
{
    while (a->head) {
        struct mr_arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

/* ---- decoding ------------------------------------------------------------------ */

/* The string with id sid (0 = NULL); marks the cursor bad if unknown. */
static const char *string_ref(mr_reader *r, mr_cursor *c)
{
    uint64_t sid = mr_cur_varint(c);
    if (sid == 0)
        return NULL;
    if (sid > r->nstrs) {
        c->bad = 1;
        return NULL;
    }
    return r->strs[sid - 1];
}

static int add_string(mr_reader *r, mr_cursor *c)
{
    size_t n = (size_t)(c->end - c->p);
    if (n > MR_MAX_STRING)
        return -1;
    if (r->nstrs == r->strs_cap) {
        uint32_t cap = r->strs_cap ? r->strs_cap * 2 : 1024;
        const char **s = realloc(r->strs, cap * sizeof *s);
        if (!s)
            return -1;
        r->strs = s;
        r->strs_cap = cap;
    }
    char *s = mr_arena_alloc(&r->arena, n + 1);
    if (!s)
        return -1;
    memcpy(s, c->p, n);
    s[n] = 0;
    c->p = c->end;
    r->strs[r->nstrs++] = s;
    return 0;
}

/* Makes table[id] addressable, ids staying dense as the writer enforces. */
static int table_fit(void ***table, uint32_t *cap, uint32_t id, uint32_t ndefined)
{
    if (id >= ndefined + MR_ID_SLACK)
        return -1;
    if (id < *cap)
        return 0;
    uint32_t n = *cap ? *cap : 1024;
    while (n <= id)
        n *= 2;
    void **t = realloc(*table, (size_t)n * sizeof *t);
    if (!t)
        return -1;
    memset(t + *cap, 0, (size_t)(n - *cap) * sizeof *t);
    *table = t;
    *cap = n;
    return 0;
}

static const mr_process *decode_process(mr_reader *r, mr_cursor *c)
{
    mr_process *p = mr_arena_alloc(&r->arena, sizeof *p);
    if (!p)
        return NULL;
    p->pid = mr_cur_u32(c, UINT32_MAX);
    p->ppid = mr_cur_u32(c, UINT32_MAX);
    p->start_usec = mr_cur_varint(c);
    p->exe = string_ref(r, c);
    p->tool_options = string_ref(r, c);
    p->argc = mr_cur_u32(c, (uint32_t)(c->end - c->p));
    const char **argv = mr_arena_alloc(&r->arena, (p->argc + 1) * sizeof *argv);
    if (!argv)
        return NULL;
    for (uint32_t i = 0; i < p->argc; i++)
        argv[i] = string_ref(r, c);
    argv[p->argc] = NULL;
    p->argv = argv;
    return c->bad ? NULL : p;
}

static const mr_block_def *decode_block(mr_reader *r, mr_cursor *c)
{
    mr_block_def *b = mr_arena_alloc(&r->arena, sizeof *b);
    if (!b)
        return NULL;
    b->id = mr_cur_u32(c, UINT32_MAX);
    b->addr = mr_cur_varint(c);
    /* Every element takes at least one byte: bounds the allocations. */
    b->ninstrs = mr_cur_u32(c, (uint32_t)(c->end - c->p));
    mr_instr_def *in = mr_arena_alloc(&r->arena, (b->ninstrs + 1) * sizeof *in);
    if (!in)
        return NULL;
    uint64_t next = b->addr;
    for (uint32_t i = 0; i < b->ninstrs; i++) {
        in[i].addr = next + (uint64_t)mr_cur_svarint(c);
        in[i].len = mr_cur_u32(c, UINT32_MAX);
        next = in[i].addr + in[i].len;
    }
    b->instrs = in;
    b->naccesses = mr_cur_u32(c, (uint32_t)(c->end - c->p));
    mr_access_def *ac = mr_arena_alloc(&r->arena, (b->naccesses + 1) * sizeof *ac);
    if (!ac)
        return NULL;
    for (uint32_t i = 0; i < b->naccesses; i++) {
        ac[i].instr = (uint16_t)mr_cur_u32(c, UINT16_MAX);
        ac[i].kind = (uint8_t)mr_cur_u32(c, UINT8_MAX);
        ac[i].flags = (uint8_t)mr_cur_u32(c, UINT8_MAX);
        ac[i].size = mr_cur_u32(c, UINT32_MAX);
    }
    b->accesses = ac;
    b->nexits = mr_cur_u32(c, (uint32_t)(c->end - c->p));
    mr_exit_def *ex = mr_arena_alloc(&r->arena, (b->nexits + 1) * sizeof *ex);
    if (!ex)
        return NULL;
    for (uint32_t i = 0; i < b->nexits; i++) {
        ex[i].ninstrs = mr_cur_u32(c, UINT32_MAX);
        ex[i].naccesses = mr_cur_u32(c, UINT32_MAX);
        ex[i].jump = (uint8_t)mr_cur_u32(c, UINT8_MAX);
    }
    b->exits = ex;
    if (c->bad || mr_block_def_problem(b))
        return NULL;
    if (table_fit((void ***)&r->blocks, &r->blocks_cap, b->id, r->nblockdefs))
        return NULL;
    mr_bstate *s = mr_bstate_new(b, 1);
    if (!s)
        return NULL;
    if (r->blocks[b->id]) {
        mr_bstate_fold(r->blocks[b->id], &r->tot);
        mr_bstate_free(r->blocks[b->id]);
        r->redefined |= !r->redeliver;
    } else {
        r->nblockdefs++;
    }
    r->blocks[b->id] = s;
    r->prev_slot = NULL;
    r->fast = 0;
    if (b->naccesses > r->acc_cap) {
        mr_access *a = realloc(r->acc, b->naccesses * sizeof *a);
        if (a)
            r->acc = a;
        uint64_t *st = realloc(r->strides, b->naccesses * sizeof *st);
        if (st)
            r->strides = st;
        if (!a || !st)
            return NULL;
        r->acc_cap = b->naccesses;
    }
    return b;
}

static const mr_stack *decode_stack(mr_reader *r, mr_cursor *c)
{
    mr_stack *s = mr_arena_alloc(&r->arena, sizeof *s);
    if (!s)
        return NULL;
    s->id = mr_cur_u32(c, UINT32_MAX);
    s->depth = mr_cur_u32(c, (uint32_t)(c->end - c->p));
    uint64_t *ips = mr_arena_alloc(&r->arena, (s->depth + 1) * sizeof *ips);
    if (!ips)
        return NULL;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < s->depth; i++)
        prev = ips[i] = prev + (uint64_t)mr_cur_svarint(c);
    s->ips = ips;
    if (c->bad || s->id == 0 || s->depth > MR_MAX_BLOCK_PARTS ||
        table_fit((void ***)&r->stacks, &r->stacks_cap, s->id, r->nstackdefs))
        return NULL;
    if (r->stacks[s->id])
        r->redefined |= !r->redeliver;
    else
        r->nstackdefs++;
    r->stacks[s->id] = s;
    return s;
}

static const mr_symbol *decode_symbol(mr_reader *r, mr_cursor *c)
{
    mr_symbol *s = mr_arena_alloc(&r->arena, sizeof *s);
    if (!s)
        return NULL;
    s->addr = r->prev_sym_addr + (uint64_t)mr_cur_svarint(c);
    s->function = string_ref(r, c);
    s->file = string_ref(r, c);
    s->line = mr_cur_u32(c, UINT32_MAX);
    if (c->bad)
        return NULL;
    r->prev_sym_addr = s->addr;
    if (r->nsyms == r->syms_cap) {
        size_t cap = r->syms_cap ? r->syms_cap * 2 : 1024;
        const mr_symbol **l = realloc(r->symlist, cap * sizeof *l);
        if (!l)
            return NULL;
        r->symlist = l;
        r->syms_cap = cap;
    }
    if (mr_map_put(&r->syms, s->addr, s))
        return NULL;
    r->symlist[r->nsyms++] = s;
    return s;
}

/* Keeps m as the module of its id, for mr_reader_module (a forked
 * child's trace defines its modules again: the latest wins). */
static int remember_module(mr_reader *r, const mr_module *m)
{
    if (m->id >= r->modules_cap) {
        if (m->id >= 1u << 20)
            return -1;              /* ids are dense: this is corrupt */
        uint32_t cap = r->modules_cap ? r->modules_cap : 16;
        while (cap <= m->id)
            cap *= 2;
        const mr_module **l = realloc(r->modules, cap * sizeof *l);
        if (!l)
            return -1;
        memset(l + r->modules_cap, 0, (cap - r->modules_cap) * sizeof *l);
        r->modules = l;
        r->modules_cap = cap;
    }
    r->modules[m->id] = m;
    return 0;
}

static const mr_module *decode_module(mr_reader *r, mr_cursor *c)
{
    mr_module *m = mr_arena_alloc(&r->arena, sizeof *m);
    if (!m)
        return NULL;
    m->id = mr_cur_u32(c, UINT32_MAX);
    m->path = string_ref(r, c);
    m->text_addr = mr_cur_varint(c);
    m->text_size = mr_cur_varint(c);
    m->bias = mr_cur_svarint(c);
    if (c->bad || remember_module(r, m))
        return NULL;
    return m;
}

static const mr_dataobj *decode_dataobj(mr_reader *r, mr_cursor *c)
{
    mr_dataobj *d = mr_arena_alloc(&r->arena, sizeof *d);
    if (!d)
        return NULL;
    d->name = string_ref(r, c);
    d->addr = mr_cur_varint(c);
    d->size = mr_cur_varint(c);
    d->module = mr_cur_u32(c, UINT32_MAX);
    return c->bad ? NULL : d;
}

/* A THREAD definition: delivered as an MR_EV_THREAD of op MR_THREAD_OS
 * (into ev unless it is NULL). 0, or -1 when the body is bad. */
static int thread_os(const mr_reader *r, mr_cursor *c, mr_event *ev)
{
    uint32_t tid = mr_cur_u32(c, UINT32_MAX);
    uint64_t os_tid = mr_cur_varint(c);
    if (c->bad)
        return -1;
    if (ev) {
        memset(ev, 0, sizeof *ev);
        ev->kind = MR_EV_THREAD;
        ev->tid = r->cur_tid;
        ev->time = r->time;
        ev->u.thread.op = MR_THREAD_OS;
        ev->u.thread.tid = tid;
        ev->u.thread.os_tid = os_tid;
    }
    return 0;
}

int mr_reader_next_def(mr_reader *r, mr_event *ev)
{
    for (;;) {
        mr_cursor *dc = &r->dc;
        if (!r->recs_left) {
            if (dc->p != dc->end)
                return mr_reader_fail(r, 0, "chunk %u: definitions do not fill the chunk",
                                      r->frame.seq);
            r->in_chunk = 0;
            if (r->frame.seq >= r->defs_upto)
                r->defs_upto = (uint64_t)r->frame.seq + 1;
            return 0;
        }
        r->recs_left--;
        uint8_t op = mr_cur_byte(dc);
        uint64_t len = mr_cur_varint(dc);
        if (dc->bad || len > (uint64_t)(dc->end - dc->p))
            return mr_reader_fail(r, 0, "chunk %u: definition record overruns the chunk",
                                  r->frame.seq);
        mr_cursor body = { dc->p, dc->p + len, 0 };
        dc->p += len;
        const void *obj = NULL;
        mr_event_kind kind = 0;
        switch (op) {
        case MR_DEF_STRING:
            if (r->redeliver)
                continue;   /* string ids are global and already assigned */
            if (add_string(r, &body))
                return mr_reader_fail(r, 0, "chunk %u: bad string definition", r->frame.seq);
            continue;
        case MR_DEF_PROCESS:
            obj = r->process = decode_process(r, &body);
            kind = MR_EV_PROCESS;
            break;
        case MR_DEF_MODULE:
            obj = decode_module(r, &body);
            kind = MR_EV_MODULE;
            break;
        case MR_DEF_SYMBOL:
            obj = decode_symbol(r, &body);
            kind = MR_EV_SYMBOL;
            break;
        case MR_DEF_DATAOBJ:
            obj = decode_dataobj(r, &body);
            kind = MR_EV_DATAOBJ;
            break;
        case MR_DEF_BLOCK:
            obj = decode_block(r, &body);
            kind = MR_EV_BLOCK_DEF;
            break;
        case MR_DEF_STACK:
            obj = decode_stack(r, &body);
            kind = MR_EV_STACK;
            break;
        case MR_DEF_THREAD:
            if (thread_os(r, &body, ev) < 0)
                return mr_reader_fail(r, 0, "chunk %u: bad thread definition",
                                      r->frame.seq);
            if (!ev)
                continue;
            return 1;
        default:
            continue;   /* a definition kind from a newer minor version */
        }
        if (!obj)
            return mr_reader_fail(r, 0, "chunk %u: bad %s definition", r->frame.seq,
                                  op == MR_DEF_BLOCK ? "block" : op == MR_DEF_STACK ? "stack"
                                  : op == MR_DEF_SYMBOL ? "symbol" : "process/module/data");
        if (!ev)
            continue;
        memset(ev, 0, sizeof *ev);
        ev->kind = kind;
        ev->tid = r->cur_tid;
        ev->time = r->time;
        ev->u.process = obj;   /* every definition member is a pointer */
        switch (kind) {
        case MR_EV_MODULE: ev->u.module = obj; break;
        case MR_EV_SYMBOL: ev->u.symbol = obj; break;
        case MR_EV_DATAOBJ: ev->u.dataobj = obj; break;
        case MR_EV_BLOCK_DEF: ev->u.block_def = obj; break;
        case MR_EV_STACK: ev->u.stack = obj; break;
        default: break;
        }
        return 1;
    }
}

/* Forgets every definition (a seek backwards over a redefinition replays
 * them from the start). Objects stay in the arena: pointers handed out
 * remain valid. */
void mr_reader_defs_reset(mr_reader *r)
{
    r->nstrs = 0;
    for (uint32_t i = 0; i < r->blocks_cap; i++) {
        if (r->blocks[i])
            mr_bstate_fold(r->blocks[i], &r->tot);
        mr_bstate_free(r->blocks[i]);
        r->blocks[i] = NULL;
    }
    r->nblockdefs = 0;
    if (r->stacks)
        memset(r->stacks, 0, r->stacks_cap * sizeof *r->stacks);
    r->nstackdefs = 0;
    r->process = NULL;
    mr_map_free(&r->syms);
    r->nsyms = r->nsorted = 0;
    if (r->modules)
        memset(r->modules, 0, r->modules_cap * sizeof *r->modules);
    r->redefined = 0;
    r->defs_upto = 0;
    r->prev_slot = NULL;
    r->fast = 0;
}

void mr_reader_defs_free(mr_reader *r)
{
    mr_reader_defs_reset(r);
    free(r->strs);
    free(r->blocks);
    free(r->stacks);
    free(r->symlist);
    free(r->sorted);
    free(r->modules);
    mr_arena_free(&r->arena);
}

/* ---- lookups ------------------------------------------------------------------ */

const mr_block_def *mr_reader_block(const mr_reader *r, uint32_t id)
{
    return id < r->blocks_cap && r->blocks[id] ? r->blocks[id]->def : NULL;
}

const mr_stack *mr_reader_stack(const mr_reader *r, uint32_t id)
{
    return id < r->stacks_cap ? r->stacks[id] : NULL;
}

const mr_process *mr_reader_process(const mr_reader *r) { return r->process; }

static int by_addr(const void *a, const void *b)
{
    const mr_symbol *x = *(const mr_symbol *const *)a, *y = *(const mr_symbol *const *)b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Brings the sorted copy up to date: sorts only the symbols added since
 * the last time and merges them in, so definitions arriving chunk after
 * chunk between lookups do not cost a full sort each time. */
static int sort_symbols(mr_reader *r)
{
    size_t old = r->nsorted > r->nsyms ? 0 : r->nsorted;   /* after a reset: all new */
    size_t add = r->nsyms - old;
    const mr_symbol **t = malloc(r->nsyms * sizeof *t);
    const mr_symbol **fresh = malloc(add * sizeof *fresh + 1);
    if (!t || !fresh) {
        free(t);
        free(fresh);
        return -1;
    }
    memcpy(fresh, r->symlist + old, add * sizeof *fresh);
    qsort(fresh, add, sizeof *fresh, by_addr);
    size_t i = 0, j = 0, k = 0;
    while (i < old || j < add)
        t[k++] = j == add || (i < old && r->sorted[i]->addr <= fresh[j]->addr) ? r->sorted[i++]
                                                                               : fresh[j++];
    free(fresh);
    free(r->sorted);
    r->sorted = t;
    r->nsorted = r->nsyms;
    return 0;
}

/* Exact match through the hash table; otherwise the nearest symbol at or
 * below addr within 64 bytes, from a sorted copy rebuilt only when symbols
 * were added since the last nearest lookup. */
const mr_module *mr_reader_module(const mr_reader *r, uint64_t addr)
{
    const mr_module *below = NULL;      /* addr between its base and text */
    for (uint32_t i = 0; i < r->modules_cap; i++) {
        const mr_module *m = r->modules[i];
        if (!m)
            continue;
        if (addr >= m->text_addr && addr - m->text_addr < m->text_size)
            return m;
        /* the PLT sits between a module's load address (its bias: file
         * addresses start at 0) and its text; the highest base wins */
        if (addr < m->text_addr && addr >= (uint64_t)m->bias &&
            (!below || m->bias > below->bias))
            below = m;
    }
    return below;
}

const mr_symbol *mr_reader_symbol(const mr_reader *cr, uint64_t addr)
{
    mr_reader *r = (mr_reader *)cr;   /* the sorted copy is a cache */
    const mr_symbol *s = mr_map_get(&r->syms, addr);
    if (s || !r->nsyms)
        return s;
    if (r->nsorted != r->nsyms && sort_symbols(r))
        return NULL;
    size_t lo = 0, hi = r->nsorted;   /* first symbol above addr */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->sorted[mid]->addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr - r->sorted[lo - 1]->addr >= 64)
        return NULL;
    return mr_map_get(&r->syms, r->sorted[lo - 1]->addr);
}
