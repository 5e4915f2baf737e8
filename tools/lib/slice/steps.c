/*
 * steps.c: the control flow of a run from its .twpp file alone: every
 * thread's DCG walked in preorder, each node's path expanded from its
 * compacted trace and dictionary, and at every call-exit symbol the next
 * node entered as the callee (twpp/twpp.h's rule, as twpp/expand.c
 * walks it). What comes out is the steps with their calls, and each call
 * with its function, caller and first step.
 */
#include "slice/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* A path's symbols. */
typedef struct path_syms {
    uint32_t *v;
    size_t n, cap;
} path_syms;

static int collect(void *ctx, uint32_t s)
{
    path_syms *p = ctx;
    if (ARRAY_FIT(p->v, p->cap, p->n + 1) < 0)
        return -1;
    p->v[p->n++] = s;
    return 0;
}

/* An open call while walking: its path, the next position, its last step
 * so far, and whether the symbol just taken left by a call. */
typedef struct frame {
    const path_syms *p;
    size_t at;
    uint32_t call, last;
    int calling;
} frame;

/* Growable step and call arrays. */
typedef struct layout {
    size_t steps_cap, calls_cap;
    path_syms *paths;           /* every (function, path) expanded */
    uint64_t *first_path;       /* function i's paths start here */
} layout;

static int add_step(slice_run *r, layout *l, uint32_t sym, frame *f)
{
    if (r->nsteps >= SLICE_NONE - 1)
        return -1;
    /* the per-step arrays grow together: each from the same old capacity
     * to the same new one, kept once in steps_cap */
    size_t cap = l->steps_cap;
    if (ARRAY_FIT(r->sym, cap, r->nsteps + 1) < 0 ||
        (cap = l->steps_cap, ARRAY_FIT(r->call, cap, r->nsteps + 1) < 0) ||
        (cap = l->steps_cap, ARRAY_FIT(r->prev, cap, r->nsteps + 1) < 0))
        return -1;
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

static int add_call(slice_run *r, layout *l, uint32_t fn, uint32_t parent)
{
    if (r->ncalls >= SLICE_NONE - 1)
        return -1;
    size_t cap = l->calls_cap;      /* the per-call arrays grow together, as above */
    if (ARRAY_FIT(r->call_fn, cap, r->ncalls + 1) < 0 ||
        (cap = l->calls_cap, ARRAY_FIT(r->call_first, cap, r->ncalls + 1) < 0) ||
        (cap = l->calls_cap, ARRAY_FIT(r->call_parent, cap, r->ncalls + 1) < 0) ||
        (cap = l->calls_cap, ARRAY_FIT(r->call_last, cap, r->ncalls + 1) < 0))
        return -1;
    l->calls_cap = cap;
    r->call_fn[r->ncalls] = fn;
    r->call_first[r->ncalls] = r->call_last[r->ncalls] = SLICE_NONE;
    r->call_parent[r->ncalls] = parent;
    return (int)r->ncalls++;
}

/* One thread's preorder walk; 0, -1 out of memory, -2 corrupt. */
static int walk_thread(slice_run *r, layout *l, const twpp_thread *t)
{
    frame *stack = NULL;
    size_t cap = 0, depth = 0;
    uint64_t node = 0;
    int rc = 0;
    while (rc == 0) {
        frame *top = depth ? &stack[depth - 1] : NULL;
        int enter = top ? top->calling && node < t->nnodes : node < t->nnodes;
        if (top)
            top->calling = 0;
        if (enter) {
            uint32_t f = t->fn[node], p = t->path[node++];
            /* read before growing the stack: top points into it */
            uint32_t caller = top ? top->call : SLICE_NONE;
            int c;
            if (p >= r->m->functions[f].npaths)
                rc = -2;
            else if (ARRAY_FIT(stack, cap, depth + 1) < 0 ||
                     (c = add_call(r, l, f, caller)) < 0)
                rc = -1;
            else
                stack[depth++] = (frame){ &l->paths[l->first_path[f] + p], 0, (uint32_t)c,
                                          SLICE_NONE, 0 };
        } else if (!top) {
            break;
        } else if (top->at == top->p->n) {
            depth--;
        } else {
            uint32_t s = top->p->v[top->at++];
            top->calling = r->m->symbols[s].jump == MR_JUMP_CALL;
            rc = add_step(r, l, s, top);
        }
    }
    free(stack);
    return rc;
}

static int expand_paths(slice_run *r, layout *l, char *err, size_t errlen)
{
    uint64_t total = 0;
    if (!(l->first_path = calloc((size_t)r->m->nfunctions + 1, sizeof *l->first_path)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < r->m->nfunctions; i++) {
        if (twpp_load_function(r->twpp, i, err, errlen) < 0)
            return -1;
        l->first_path[i] = total;
        total += r->m->functions[i].npaths;
    }
    l->first_path[r->m->nfunctions] = total;
    if (!(l->paths = calloc(total + 1, sizeof *l->paths)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < r->m->nfunctions; i++) {
        const twpp_function *fn = &r->m->functions[i];
        for (uint32_t p = 0; p < fn->npaths; p++)
            if (twpp_expand_path(&fn->traces[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict],
                                 collect, &l->paths[l->first_path[i] + p]) != 0)
                return snprintf(err, errlen, "out of memory"), -1;
    }
    return 0;
}

int slice_run_open(slice_run *r, const char *twpp_path, char *err, size_t errlen)
{
    layout l = {0};
    int rc = -1;
    memset(r, 0, sizeof *r);
    if (!(r->twpp = twpp_open(twpp_path, err, errlen)))
        return -1;
    r->m = twpp_file_model(r->twpp);
    if (twpp_load_symbols(r->twpp, err, errlen) < 0 || twpp_load_dcg(r->twpp, err, errlen) < 0 ||
        expand_paths(r, &l, err, errlen) < 0)
        goto done;
    r->nthreads = r->m->nthreads;
    if (!(r->thread_first = calloc((size_t)r->nthreads + 1, sizeof *r->thread_first))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t t = 0; t < r->nthreads; t++) {
        r->thread_first[t] = r->nsteps;
        int w = walk_thread(r, &l, &r->m->threads[t]);
        if (w < 0) {
            snprintf(err, errlen, w == -2 ? "corrupt DCG: a path its function does not have"
                                          : "out of memory (or over 2^32 steps or calls)");
            goto done;
        }
    }
    r->thread_first[r->nthreads] = r->nsteps;
    rc = 0;
done:
    for (uint64_t k = 0; l.paths && k < l.first_path[r->m->nfunctions]; k++)
        free(l.paths[k].v);
    free(l.paths);
    free(l.first_path);
    return rc;
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
