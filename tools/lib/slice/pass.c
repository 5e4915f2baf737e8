/*
 * pass.c: the one pass over the trace (see run.h). Each execution is
 * matched with the .twpp file's next step of its thread (they must agree:
 * the file was built from this trace); a block is decoded at its first
 * execution; loads take their writers from a last-writer shadow memory,
 * byte by byte, and stores write their access number into it.
 */
#include "slice/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "slice/deps.h"

#define PAGE_BITS 12
#define PAGE_SIZE (1u << PAGE_BITS)
#define MAX_WRITERS 64          /* distinct writers kept per load */

/* A static data object, for --var NAME. */
typedef struct dataobj {
    char *name;
    uint64_t addr, size;
    uint32_t module;            /* mr_module.id */
} dataobj;

/* Everything the pass keeps only while it runs. */
typedef struct pass {
    slice_run *r;
    slice_criterion *c;
    mr_reader *reader;
    slice_code *code;
    slice_decoder *dec;
    u64map thread_of;           /* tid -> thread index + 1 */
    uint64_t *cursor;           /* per thread: its next step */
    uint32_t *last_line;        /* per call: line of its last instruction run */
    u64map shadow;              /* page -> uint64_t[PAGE_SIZE]: writer + 1 */
    u64map bc;                  /* (call << 32 | symbol) -> executions so far */
    uint32_t *fn_calls;         /* per function: calls begun so far */
    dataobj *objs;
    size_t nobjs, objs_cap;
    int64_t exe_module;         /* id of the executable's module, or -1 */
    size_t acc_cap, extra_cap, span_cap, insn_steps_cap;
    uint64_t hits;              /* instances of the criterion's line so far */
    int criterion_line_seen;
    char *err;
    size_t errlen;
} pass;

static int fail(pass *p, const char *msg)
{
    snprintf(p->err, p->errlen, "%s", msg);
    return -1;
}

/* 64-bit FNV-1a of a line's name and number. */
static uint64_t line_hash(const char *fn, uint32_t line)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = fn; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    return (h ^ line) * 1099511628211ull;
}

/* The id of "fn:line", added when new; SLICE_NO_LINE when out of memory. */
static uint32_t intern_line(slice_run *r, const char *fn, uint32_t line)
{
    for (uint64_t h = line_hash(fn, line);; h++) {     /* probe on collisions */
        int added;
        void **slot = u64map_slot_of(&r->line_of, h, &added);
        if (!slot)
            return SLICE_NO_LINE;
        if (!added) {
            slice_line *l = &r->lines[(uintptr_t)*slot - 1];
            if (l->line == line && !strcmp(l->function, fn))
                return (uint32_t)((uintptr_t)*slot - 1);
            continue;
        }
        if (ARRAY_FIT(r->lines, r->lines_cap, r->nlines + 1) < 0 ||
            !(r->lines[r->nlines].function = strdup(fn)))
            return SLICE_NO_LINE;
        r->lines[r->nlines].line = line;
        *slot = (void *)(uintptr_t)(r->nlines + 1);
        return r->nlines++;
    }
}

/* The static id of the instruction at addr (len bytes), decoded when new;
 * SLICE_NONE when out of memory. */
static uint32_t insn_id(pass *p, uint64_t addr, uint32_t len, uint32_t fn)
{
    slice_run *r = p->r;
    int added;
    void **slot = u64map_slot_of(&r->insn_at, addr, &added);
    if (!slot)
        return SLICE_NONE;
    if (!added)
        return (uint32_t)((uintptr_t)*slot - 1);
    if (ARRAY_FIT(r->insns, r->insns_cap, r->ninsns + 1) < 0)
        return SLICE_NONE;
    size_t cap = p->span_cap;       /* the per-instruction arrays grow together */
    if (ARRAY_FIT(r->load_span, cap, r->ninsns + 1) < 0 ||
        (cap = p->span_cap, ARRAY_FIT(r->store_span, cap, r->ninsns + 1) < 0) ||
        (cap = p->span_cap, ARRAY_FIT(r->load_multi, cap, r->ninsns + 1) < 0) ||
        (cap = p->span_cap, ARRAY_FIT(r->store_multi, cap, r->ninsns + 1) < 0))
        return SLICE_NONE;
    p->span_cap = cap;
    uint32_t id = r->ninsns++;
    slice_insn *in = &r->insns[id];
    uint8_t bytes[16];
    in->addr = addr;
    in->fn = fn;
    r->load_span[id][0] = r->store_span[id][0] = UINT64_MAX;
    r->load_span[id][1] = r->store_span[id][1] = 0;
    if (len == 0 || len > sizeof bytes || slice_code_read(p->code, addr, bytes, len) < 0 ||
        slice_decode(p->dec, bytes, len, addr, &in->r) < 0 || in->r.len != len) {
        memset(&in->r, 0, sizeof in->r);   /* no bytes, or not what ran: nothing known */
        in->r.flow = SLICE_FLOW_OTHER;
        r->undecoded++;
    }
    const mr_symbol *y = mr_reader_symbol(p->reader, addr);
    in->line = y && (y->function || y->line) ? intern_line(r, y->function ? y->function : "??", y->line)
                                           : SLICE_NO_LINE;
    *slot = (void *)(uintptr_t)(id + 1);
    return id;
}

static int decode_block(pass *p, const mr_block_def *def, uint32_t fn)
{
    slice_run *r = p->r;
    if (def->ninstrs > SLICE_MAX_INDEX)     /* an instance's number keeps 12 bits for the index */
        return fail(p, "a block of more than 4095 instructions");
    if (ARRAY_FIT(r->blocks, r->nblocks, (size_t)def->id + 1) < 0 ||
        !(r->blocks[def->id].insn = malloc(((size_t)def->ninstrs + 1) * sizeof(uint32_t))))
        return fail(p, "out of memory");
    slice_block *b = &r->blocks[def->id];
    for (uint32_t i = 0; i < def->ninstrs; i++)
        if ((b->insn[i] = insn_id(p, def->instrs[i].addr, def->instrs[i].len, fn)) == SLICE_NONE)
            return fail(p, "out of memory");
    b->ninsns = def->ninstrs;
    return 0;
}

/* The shadow word of byte a, made when make is set; NULL when absent. */
static uint64_t *shadow_at(pass *p, uint64_t a, int make)
{
    uint64_t *page = u64map_get(&p->shadow, a >> PAGE_BITS);
    if (!page && make) {
        int added;
        void **slot = u64map_slot_of(&p->shadow, a >> PAGE_BITS, &added);
        if (!slot || !(page = calloc(PAGE_SIZE, sizeof *page)))
            return NULL;
        *slot = page;
    }
    return page ? &page[a & (PAGE_SIZE - 1)] : NULL;
}

/* Distinct last writers of [addr, addr + size) into w (up to MAX_WRITERS). */
static uint32_t writers_of(pass *p, uint64_t addr, uint64_t size, uint64_t *w)
{
    uint32_t n = 0;
    for (uint64_t k = 0; k < size; k++) {
        uint64_t *s = shadow_at(p, addr + k, 0);
        if (!s || !*s)
            continue;
        uint32_t j = 0;
        while (j < n && w[j] != *s - 1)
            j++;
        if (j == n && n < MAX_WRITERS)
            w[n++] = *s - 1;
    }
    return n;
}

static void widen(uint64_t span[2], uint8_t *multi, uint64_t addr, uint32_t size)
{
    if (span[0] <= span[1] && (span[0] != addr || span[1] != addr + size))
        *multi = 1;
    if (addr < span[0])
        span[0] = addr;
    if (addr + size > span[1])
        span[1] = addr + size;
}

static int load(pass *p, uint64_t a, const mr_access *x, uint32_t insn)
{
    slice_run *r = p->r;
    uint64_t w[MAX_WRITERS], best = 0;
    uint32_t n = writers_of(p, x->addr, x->size, w);
    for (uint32_t j = 0; j < n; j++)
        if (w[j] + 1 > best)
            best = w[j] + 1;
    r->acc_writer[a] = best;
    for (uint32_t j = 0; j < n; j++) {
        if (w[j] + 1 == best)
            continue;
        if (ARRAY_FIT(r->extra, p->extra_cap, r->nextra + 1) < 0)
            return fail(p, "out of memory");
        r->extra[r->nextra][0] = a;
        r->extra[r->nextra++][1] = w[j];
    }
    widen(r->load_span[insn], &r->load_multi[insn], x->addr, x->size);
    return 0;
}

static int store(pass *p, uint64_t a, const mr_access *x, uint32_t insn)
{
    for (uint64_t k = 0; k < x->size; k++) {
        uint64_t *s = shadow_at(p, x->addr + k, 1);
        if (!s)
            return fail(p, "out of memory");
        *s = a + 1;
    }
    widen(p->r->store_span[insn], &p->r->store_multi[insn], x->addr, x->size);
    return 0;
}

/* The criterion's --var as bytes, now that the data objects are known. */
static int resolve_var(pass *p)
{
    slice_criterion *c = p->c;
    if (c->reg >= 0 || c->size)
        return 0;
    char name[256];
    const char *v = c->var;
    size_t n = strcspn(v, "+:");
    uint64_t off = 0, size = 0;
    if (n >= sizeof name)
        return fail(p, "--var: name too long");
    memcpy(name, v, n);
    name[n] = 0;
    if (v[n] == '+')
        off = strtoull(v + n + 1, NULL, 0);
    const char *colon = strchr(v, ':');
    if (colon)
        size = strtoull(colon + 1, NULL, 0);
    const dataobj *o = NULL;            /* the executable's object of that name, else the first */
    for (size_t i = 0; i < p->nobjs; i++)
        if (!strcmp(p->objs[i].name, name) && (!o || (int64_t)p->objs[i].module == p->exe_module))
            o = &p->objs[i];
    if (o) {
        c->addr = o->addr + off;
        c->size = size ? size : off < o->size ? o->size - off : 1;
        return 0;
    }
    snprintf(p->err, p->errlen, "--var %s: no register or data object of that name", c->var);
    return -1;
}

static int take_criterion(pass *p, uint64_t s, uint32_t i)
{
    slice_criterion *c = p->c;
    slice_run *r = p->r;
    if (!(r->outer_calls = calloc((size_t)r->ncalls + 1, 1)))
        return fail(p, "out of memory");
    for (uint32_t k = r->call[s]; k != SLICE_NONE; k = r->call_parent[k])
        r->outer_calls[k] = 1;
    c->hit = 1;
    c->step = (uint32_t)s;
    c->index = i;
    if (resolve_var(p) < 0)
        return -1;
    if (c->reg >= 0)
        return 0;
    if (!(c->writers = calloc(MAX_WRITERS, sizeof *c->writers)))
        return fail(p, "out of memory");
    c->nwriters = writers_of(p, c->addr, c->size, c->writers);
    return 0;
}

/* Counts line entries of step s's instructions; returns the index of the
 * criterion's instance when it starts in this step, else -1. */
static int64_t lines_of_step(pass *p, uint64_t s, const uint32_t *insn, uint32_t n)
{
    slice_run *r = p->r;
    uint32_t call = r->call[s];
    int64_t at = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!p->c->function && !p->c->hit && at < 0 && r->insns[insn[i]].addr == p->c->insn_addr) {
            p->criterion_line_seen = 1;     /* --at 0xADDR: the instruction's instances */
            if (++p->hits == p->c->instance)
                at = i;
        }
        uint32_t l = r->insns[insn[i]].line;
        if (l == p->last_line[call] || l == SLICE_NO_LINE)
            continue;
        p->last_line[call] = l;
        r->lines[l].instances++;
        const slice_line *sl = &r->lines[l];
        if (p->c->function && !p->c->hit && at < 0 && sl->line == p->c->line &&
            !strcmp(sl->function, p->c->function)) {
            p->criterion_line_seen = 1;
            if (++p->hits == p->c->instance)
                at = i;
        }
    }
    return at;
}

static int grow_accesses(pass *p, uint64_t need)
{
    slice_run *r = p->r;
    size_t cap = p->acc_cap;        /* the per-access arrays grow together, one capacity */
    if (ARRAY_FIT(r->acc_step, cap, need) < 0 ||
        (cap = p->acc_cap, ARRAY_FIT(r->acc_instr, cap, need) < 0) ||
        (cap = p->acc_cap, ARRAY_FIT(r->acc_kind, cap, need) < 0) ||
        (cap = p->acc_cap, ARRAY_FIT(r->acc_writer, cap, need) < 0))
        return fail(p, "out of memory");
    p->acc_cap = cap;
    return 0;
}

/* TWPP+'s numbers of step s: its call's FC when the call begins here, its BC. */
static int number_step(pass *p, uint64_t s)
{
    slice_run *r = p->r;
    uint32_t c = r->call[s];
    int added;
    if (r->call_first[c] == s)
        r->call_fc[c] = ++p->fn_calls[r->call_fn[c]];
    void **slot = u64map_slot_of(&p->bc, (uint64_t)c << 32 | r->sym[s], &added);
    if (!slot)
        return fail(p, "out of memory");
    *slot = (void *)((uintptr_t)*slot + 1);
    r->step_bc[s] = (uint32_t)(uintptr_t)*slot;
    return 0;
}

static int on_exec(pass *p, const mr_event *ev)
{
    slice_run *r = p->r;
    uintptr_t t1 = (uintptr_t)u64map_get(&p->thread_of, ev->tid);
    if (!t1)
        return fail(p, "the trace has a thread the .twpp file does not");
    uint32_t t = (uint32_t)t1 - 1;
    uint64_t s = p->cursor[t]++;
    const mr_block_def *def = ev->u.exec.def;
    if (s >= r->thread_first[t + 1] || r->m->symbols[r->sym[s]].block != def->id ||
        r->m->symbols[r->sym[s]].exit != ev->u.exec.exit)
        return fail(p, "the .twpp file was not built from this trace (steps differ)");
    if ((def->id >= r->nblocks || !r->blocks[def->id].ninsns) &&
        decode_block(p, def, r->call_fn[r->call[s]]) < 0)
        return -1;
    if (number_step(p, s) < 0)
        return -1;
    uint32_t n;
    const uint32_t *insn = slice_step_insns(r, s, &n);
    int64_t crit = lines_of_step(p, s, insn, n);
    if (grow_accesses(p, r->naccesses + ev->u.exec.naccesses) < 0)
        return -1;
    r->acc_first[s] = r->naccesses;
    r->acc_count[s] = (uint16_t)ev->u.exec.naccesses;
    for (uint32_t k = 0; k < ev->u.exec.naccesses; k++) {
        const mr_access *x = &ev->u.exec.accesses[k];
        uint64_t a = r->naccesses++;
        if (crit >= 0 && x->instr >= crit) {
            if (take_criterion(p, s, (uint32_t)crit) < 0)
                return -1;
            crit = -1;
        }
        uint32_t in = x->instr < n ? insn[x->instr] : insn[n - 1];
        r->acc_step[a] = (uint32_t)s;
        r->acc_instr[a] = x->instr;
        r->acc_kind[a] = x->kind;
        r->acc_writer[a] = 0;
        if (x->kind == MR_LOAD && (r->insns[in].r.guard || slice_code_in_got(p->code, x->addr)))
            r->acc_kind[a] |= SLICE_ACC_CONST;  /* not the program's data: not followed */
        else if ((x->kind == MR_LOAD || x->kind == MR_MODIFY) && load(p, a, x, in) < 0)
            return -1;
        if ((x->kind == MR_STORE || x->kind == MR_MODIFY) && store(p, a, x, in) < 0)
            return -1;
    }
    if (crit >= 0 && take_criterion(p, s, (uint32_t)crit) < 0)
        return -1;
    return 0;
}

static int on_event(pass *p, const mr_event *ev)
{
    switch (ev->kind) {
    case MR_EV_MODULE: {
        const mr_process *proc = mr_reader_process(p->reader);
        if (p->exe_module < 0 && proc && proc->exe && ev->u.module->path &&
            !strcmp(proc->exe, ev->u.module->path))
            p->exe_module = ev->u.module->id;
        return slice_code_add_module(p->code, ev->u.module) < 0 ? fail(p, "out of memory") : 0;
    }
    case MR_EV_DATAOBJ:
        if (!ev->u.dataobj->name)
            return 0;
        if (ARRAY_FIT(p->objs, p->objs_cap, p->nobjs + 1) < 0 ||
            !(p->objs[p->nobjs].name = strdup(ev->u.dataobj->name)))
            return fail(p, "out of memory");
        p->objs[p->nobjs].addr = ev->u.dataobj->addr;
        p->objs[p->nobjs].module = ev->u.dataobj->module;
        p->objs[p->nobjs++].size = ev->u.dataobj->size;
        return 0;
    case MR_EV_EXEC:
        return on_exec(p, ev);
    default:
        return 0;
    }
}

static int setup(pass *p)
{
    slice_run *r = p->r;
    if (!(p->code = slice_code_new()) || !(p->dec = slice_decoder_new()) ||
        !(p->cursor = calloc((size_t)r->nthreads + 1, sizeof *p->cursor)) ||
        !(p->last_line = malloc(((size_t)r->ncalls + 1) * sizeof *p->last_line)) ||
        !(r->acc_first = calloc(r->nsteps + 1, sizeof *r->acc_first)) ||
        !(r->acc_count = calloc(r->nsteps + 1, sizeof *r->acc_count)) ||
        !(r->step_bc = calloc(r->nsteps + 1, sizeof *r->step_bc)) ||
        !(r->call_fc = calloc((size_t)r->ncalls + 1, sizeof *r->call_fc)) ||
        !(p->fn_calls = calloc((size_t)r->m->nfunctions + 1, sizeof *p->fn_calls)))
        return fail(p, "out of memory (or capstone unavailable)");
    memset(p->last_line, 0xff, ((size_t)r->ncalls + 1) * sizeof *p->last_line);
    for (uint32_t t = 0; t < r->nthreads; t++) {
        int added;
        void **slot = u64map_slot_of(&p->thread_of, r->m->threads[t].tid, &added);
        if (!slot)
            return fail(p, "out of memory");
        *slot = (void *)(uintptr_t)(t + 1);
        p->cursor[t] = r->thread_first[t];
    }
    return 0;
}

/* Per symbol, the registers its instructions write: steps that write
 * none of a register are skipped whole when looking for its definition.
 * Per step, the instruction instances before it. */
static int symbol_defs(slice_run *r)
{
    if (!(r->insn_first = malloc((r->nsteps + 1) * sizeof *r->insn_first)) ||
        !(r->chunk_defs = calloc((r->nsteps >> 8) + 1, sizeof *r->chunk_defs)))
        return -1;
    r->insn_first[0] = 0;
    for (uint64_t s = 0; s < r->nsteps; s++) {
        uint32_t n;
        slice_step_insns(r, s, &n);
        r->insn_first[s + 1] = r->insn_first[s] + n;
    }
    if (!(r->sym_defs = calloc((size_t)r->m->nsymbols + 1, sizeof *r->sym_defs)))
        return -1;
    for (uint32_t y = 0; y < r->m->nsymbols; y++) {
        const twpp_symbol *s = &r->m->symbols[y];
        if (s->block >= r->nblocks)
            continue;
        const slice_block *b = &r->blocks[s->block];
        for (uint32_t i = 0; i < s->ninstrs && i < b->ninsns; i++)
            r->sym_defs[y] |= r->insns[b->insn[i]].r.defs;
    }
    for (uint64_t s = 0; s < r->nsteps; s++)
        r->chunk_defs[s >> 8] |= r->sym_defs[r->sym[s]];
    return 0;
}

static void pass_free(pass *p)
{
    for (size_t i = 0; i < p->shadow.cap; i++)
        if (p->shadow.slots[i].used)
            free(p->shadow.slots[i].value);
    u64map_free(&p->shadow);
    u64map_free(&p->bc);
    free(p->fn_calls);
    u64map_free(&p->thread_of);
    for (size_t i = 0; i < p->nobjs; i++)
        free(p->objs[i].name);
    free(p->objs);
    free(p->cursor);
    free(p->last_line);
    slice_code_free(p->code);
    slice_decoder_free(p->dec);
}

int slice_run_pass(slice_run *r, void *reader, slice_next_fn next, slice_criterion *c,
                   char *err, size_t errlen)
{
    pass p = { .r = r, .c = c, .reader = reader, .err = err, .errlen = errlen, .exe_module = -1 };
    mr_event ev;
    int rc = setup(&p);
    while (rc == 0 && next(reader, &ev))
        rc = on_event(&p, &ev);
    for (uint32_t t = 0; rc == 0 && t < r->nthreads; t++)
        if (p.cursor[t] != r->thread_first[t + 1])
            rc = fail(&p, "the .twpp file was not built from this trace (it has more steps)");
    if (rc == 0 && symbol_defs(r) < 0)
        rc = fail(&p, "out of memory");
    if (rc == 0 && !c->hit) {
        char where[300];
        if (c->function)
            snprintf(where, sizeof where, "%s:%u", c->function, c->line);
        else
            snprintf(where, sizeof where, "0x%llx", (unsigned long long)c->insn_addr);
        if (!p.criterion_line_seen)
            snprintf(err, errlen, "%s never ran", where);
        else
            snprintf(err, errlen, "%s ran %llu times: no instance #%llu", where,
                     (unsigned long long)p.hits, (unsigned long long)c->instance);
        rc = -1;
    }
    const char *missing = slice_code_unreadable(p.code);
    if (rc == 0 && missing && r->undecoded)
        fprintf(stderr, "%s: warning: %llu instructions without their bytes (first unreadable module: %s)\n",
                "trace-slice", (unsigned long long)r->undecoded, missing);
    pass_free(&p);
    return rc;
}

uint32_t slice_writers(const slice_run *r, uint64_t a, uint64_t *out, uint32_t max)
{
    uint32_t n = 0;
    if (!r->acc_writer[a])
        return 0;
    if (max)
        out[n] = r->acc_writer[a] - 1;
    n++;
    uint64_t lo = 0, hi = r->nextra;
    while (lo < hi) {               /* the first extra of load a */
        uint64_t mid = (lo + hi) / 2;
        if (r->extra[mid][0] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < r->nextra && r->extra[lo][0] == a; lo++, n++)
        if (n < max)
            out[n] = r->extra[lo][1];
    return n;
}

void slice_run_close(slice_run *r)
{
    if (r->twpp)
        twpp_close(r->twpp);
    free(r->sym);
    free(r->call);
    free(r->prev);
    free(r->thread_first);
    free(r->call_fn);
    free(r->call_first);
    free(r->call_parent);
    free(r->outer_calls);
    free(r->call_last);
    free(r->call_fc);
    free(r->step_bc);
    free(r->insns);
    u64map_free(&r->insn_at);
    for (size_t b = 0; b < r->nblocks; b++)
        free(r->blocks[b].insn);
    free(r->blocks);
    for (uint32_t l = 0; l < r->nlines; l++)
        free(r->lines[l].function);
    free(r->lines);
    u64map_free(&r->line_of);
    free(r->sym_defs);
    free(r->insn_first);
    free(r->chunk_defs);
    free(r->acc_first);
    free(r->acc_count);
    free(r->acc_step);
    free(r->acc_instr);
    free(r->acc_kind);
    free(r->acc_writer);
    free(r->extra);
    free(r->load_span);
    free(r->store_span);
    free(r->load_multi);
    free(r->store_multi);
    memset(r, 0, sizeof *r);
}
