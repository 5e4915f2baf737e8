/*
 * steps.c: the control flow of a run from its .twpp file alone, as
 * twpp_walk replays it (every thread's DCG in preorder, the callee
 * entered at each call-exit symbol): the steps with their calls, and
 * each call with its function, caller and first step.
 */
#include "slice/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* An open call while walking: its number and its last step so far. */
typedef struct frame {
    uint32_t call, last;
} frame;

/* The walk's state: the growable step and call arrays' capacities, the
 * open calls. */
typedef struct layout {
    slice_run *r;
    size_t steps_cap, calls_cap;
    frame *stack;
    size_t depth, cap;
    int full;                   /* out of memory, or over 2^32 steps or calls */
} layout;

static int add_step(void *ctx, uint32_t sym)
{
    layout *l = ctx;
    slice_run *r = l->r;
    frame *f = &l->stack[l->depth - 1];
    if (r->nsteps >= SLICE_NONE - 1)
        return l->full = -1;
    /* the per-step arrays grow together: each from the same old capacity
     * to the same new one, kept once in steps_cap */
    size_t cap = l->steps_cap;
    if (ARRAY_FIT(r->sym, cap, r->nsteps + 1) < 0 ||
        (cap = l->steps_cap, ARRAY_FIT(r->call, cap, r->nsteps + 1) < 0) ||
        (cap = l->steps_cap, ARRAY_FIT(r->prev, cap, r->nsteps + 1) < 0))
        return l->full = -1;
    l->steps_cap = cap;
    uint32_t s = (uint32_t)r->nsteps++;
    r->sym[s] = sym;
    r->call[s] = f->call;
    r->prev[s] = f->last;
    if (f->last == SLICE_NONE)
        r->call_first[f->call] = s;
    r->call_last[f->call] = s;
    f->last = s;
    return 0;
}

static int add_call(void *ctx, uint32_t fn, uint32_t path)
{
    layout *l = ctx;
    slice_run *r = l->r;
    (void)path;
    if (r->ncalls >= SLICE_NONE - 1 || ARRAY_FIT(l->stack, l->cap, l->depth + 1) < 0)
        return l->full = -1;
    size_t cap = l->calls_cap;      /* the per-call arrays grow together, as above */
    if (ARRAY_FIT(r->call_fn, cap, r->ncalls + 1) < 0 ||
        (cap = l->calls_cap, ARRAY_FIT(r->call_first, cap, r->ncalls + 1) < 0) ||
        (cap = l->calls_cap, ARRAY_FIT(r->call_parent, cap, r->ncalls + 1) < 0) ||
        (cap = l->calls_cap, ARRAY_FIT(r->call_last, cap, r->ncalls + 1) < 0))
        return l->full = -1;
    l->calls_cap = cap;
    uint32_t c = (uint32_t)r->ncalls++;
    r->call_fn[c] = fn;
    r->call_first[c] = r->call_last[c] = SLICE_NONE;
    r->call_parent[c] = l->depth ? l->stack[l->depth - 1].call : SLICE_NONE;
    l->stack[l->depth++] = (frame){ c, SLICE_NONE };
    return 0;
}

static int end_call(void *ctx)
{
    ((layout *)ctx)->depth--;
    return 0;
}

static int start_thread(void *ctx, uint32_t t)
{
    layout *l = ctx;
    l->r->thread_first[t] = l->r->nsteps;
    return 0;
}

int slice_run_open(slice_run *r, const char *twpp_path, char *err, size_t errlen)
{
    layout l = { .r = r };
    memset(r, 0, sizeof *r);
    if (!(r->twpp = twpp_open(twpp_path, err, errlen)))
        return -1;
    r->m = twpp_file_model(r->twpp);
    if (twpp_load_symbols(r->twpp, err, errlen) < 0 || twpp_load_dcg(r->twpp, err, errlen) < 0)
        return -1;
    r->nthreads = r->m->nthreads;
    if (!(r->thread_first = calloc((size_t)r->nthreads + 1, sizeof *r->thread_first))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    twpp_walker w = { .enter = add_call, .block = add_step, .leave = end_call, .ctx = &l,
                      .thread = start_thread };
    int rc = twpp_walk(r->twpp, &w, err, errlen);
    if (rc > 0 || l.full)
        snprintf(err, errlen, "out of memory (or over 2^32 steps or calls)");
    free(l.stack);
    if (rc || l.full)
        return -1;
    r->thread_first[r->nthreads] = r->nsteps;
    return 0;
}

uint32_t slice_step_thread(const slice_run *r, uint64_t s)
{
    uint32_t lo = 0, hi = r->nthreads;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (r->thread_first[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const uint32_t *slice_step_insns(const slice_run *r, uint64_t s, uint32_t *n)
{
    const twpp_symbol *y = &r->m->symbols[r->sym[s]];
    const slice_block *b = y->block < r->nblocks ? &r->blocks[y->block] : NULL;
    *n = b && y->ninstrs <= b->ninsns ? y->ninstrs : 0;
    return b ? b->insn : NULL;
}

int slice_prev_point(const slice_run *r, uint64_t *s, uint32_t *i)
{
    if (*i > 0) {
        (*i)--;
        return 1;
    }
    uint64_t t = slice_step_thread(r, *s);
    if (*s == r->thread_first[t])
        return 0;
    uint32_t n;
    (*s)--;
    slice_step_insns(r, *s, &n);
    if (n == 0)
        return slice_prev_point(r, s, i);   /* a block without instructions: step over */
    *i = n - 1;
    return 1;
}

uint64_t slice_main_step(const slice_run *r)
{
    int64_t fmain = twpp_find_function(r->twpp, "main");
    int64_t fstart = twpp_find_function(r->twpp, "__libc_start_call_main");
    if (fstart < 0)                 /* Valgrind's name for it */
        fstart = twpp_find_function(r->twpp, "(below main)");
    for (uint32_t c = 0; c < r->ncalls; c++) {
        uint32_t parent = r->call_parent[c];
        if (r->call_first[c] == SLICE_NONE)
            continue;
        if ((int64_t)r->call_fn[c] == fmain ||
            (fmain < 0 && parent != SLICE_NONE && (int64_t)r->call_fn[parent] == fstart))
            return r->call_first[c];
    }
    return 0;
}
