/*
 * predict.c: the per-block state both writer and reader keep to code block
 * executions (SPEC.md "Address prediction"): one mr_pred per static access,
 * the successor seen after each exit, and tables derived once from the def
 * so the per-execution loop does no work it could have done at definition.
 */
#include <stdlib.h>
#include <string.h>
#include "trace_internal.h"

const char *mr_block_def_problem(const mr_block_def *b)
{
    if (b->ninstrs < 1 || b->ninstrs > MR_MAX_BLOCK_PARTS)
        return "block has no instructions or too many";
    if (b->naccesses > MR_MAX_BLOCK_PARTS)
        return "block has too many accesses";
    if (b->nexits < 1 || b->nexits > MR_MAX_BLOCK_PARTS)
        return "block has no exit or too many";
    if (!b->instrs || (b->naccesses && !b->accesses) || !b->exits)
        return "block arrays missing";
    for (uint32_t i = 0; i < b->naccesses; i++) {
        const mr_access_def *a = &b->accesses[i];
        if (a->instr >= b->ninstrs)
            return "access names an instruction outside the block";
        if (a->kind < MR_LOAD || a->kind > MR_MODIFY)
            return "access kind unknown";
        if (a->flags & ~(MR_ACC_VALUE | MR_ACC_GUARDED))
            return "access flags unknown";
    }
    for (uint32_t i = 0; i < b->nexits; i++) {
        const mr_exit_def *e = &b->exits[i];
        if (e->ninstrs > b->ninstrs || e->naccesses > b->naccesses)
            return "exit covers more than the block";
        if (e->jump > MR_JUMP_OTHER)
            return "exit jump kind unknown";
    }
    return NULL;
}

/* The next n bytes of a block state's one allocation at *at (aligned to
 * 8), or just the size they take when base is NULL. */
static void *carve(char *base, size_t *at, size_t n)
{
    void *p = base ? base + *at : NULL;
    *at += (n + 7) & ~(size_t)7;
    return p;
}

/* Lays out the arrays of a state for def after the struct, in the order
 * an execution touches them (its exit's counters and successor, then its
 * accesses' predictions), so one allocation holds them close together.
 * Returns the bytes needed; with s set, points s's arrays into it. */
static size_t layout(mr_bstate *s, const mr_block_def *def, int with_template)
{
    uint32_t na = def->naccesses, ne = def->nexits;
    char *base = (char *)s;
    size_t at = sizeof *s;
    mr_exit_def *exits = carve(base, &at, ne * sizeof *exits);
    uint64_t *execs = carve(base, &at, ne * sizeof *execs);
    uint32_t *succ = with_template ? NULL : carve(base, &at, ne * sizeof *succ);
    mr_bstate **succ_bs = with_template && ne > MR_SUCC_INLINE
                          ? carve(base, &at, ne * sizeof *succ_bs) : NULL;
    mr_pred *pred = carve(base, &at, (na ? na : 1) * sizeof *pred);
    uint8_t *aflags = carve(base, &at, na ? na : 1);
    uint64_t *exit_from = carve(base, &at, ne * sizeof *exit_from);
    uint32_t *kcount = carve(base, &at, (size_t)(na + 1) * 3 * sizeof *kcount);
    mr_access *tmpl = with_template ? carve(base, &at, (na ? na : 1) * sizeof *tmpl) : NULL;
    if (s) {
        s->exits = memcpy(exits, def->exits, ne * sizeof *exits);
        s->execs = execs;
        s->succ = succ;
        /* The writer predicts ids, the reader states: one less load per block. */
        s->succ_bs = with_template ? (ne <= MR_SUCC_INLINE ? s->succ_inline : succ_bs) : NULL;
        s->pred = pred;
        s->aflags = aflags;
        s->exit_from = exit_from;
        s->kcount = kcount;
        s->tmpl = tmpl;
    }
    return at;
}

mr_bstate *mr_bstate_new(const mr_block_def *def, int with_template)
{
    size_t size = layout(NULL, def, with_template);
    mr_bstate *s = calloc(1, size);
    if (!s)
        return NULL;
    layout(s, def, with_template);
    uint32_t na = def->naccesses, ne = def->nexits;
    s->def = def;
    s->epoch = 0;   /* epochs start at 1: the first use resets */
    s->nexits = ne;
    s->simple = 1;
    s->nwords = 1 + na;
    s->naccesses = na;
    for (uint32_t i = 0; i < na; i++) {
        const mr_access_def *a = &def->accesses[i];
        s->aflags[i] = a->flags;
        if (a->flags)
            s->simple = 0;
        if (a->flags & MR_ACC_VALUE)
            s->has_value = 1;
        s->nwords += (a->flags & MR_ACC_VALUE) != 0;
        if (a->flags & MR_ACC_GUARDED)
            s->has_guard = 1;
        /* kcount[3*(i+1) + k-1]: accesses of kind k among the first i+1. */
        for (int k = 0; k < 3; k++)
            s->kcount[3 * (i + 1) + k] = s->kcount[3 * i + k] + (a->kind == k + 1);
        if (s->tmpl) {
            s->tmpl[i].size = a->size;
            s->tmpl[i].instr = a->instr;
            s->tmpl[i].kind = a->kind;
            s->tmpl[i].has_value = (a->flags & MR_ACC_VALUE) != 0;
        }
    }
    /* Blocks without guards run all their exit's accesses: counted here. */
    s->fold_accesses = !s->has_guard;
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t n = def->exits[e].ninstrs;
        s->exit_from[e] = n ? def->instrs[n - 1].addr : def->addr;
    }
    if (with_template && !s->has_guard) {
        if (!(s->xq = malloc(ne * sizeof *s->xq))) {
            mr_bstate_free(s);
            return NULL;
        }
        for (uint32_t e = 0; e < ne; e++) {
            s->xq[e].exec.def = def;
            s->xq[e].exec.exit = e;
            s->xq[e].exec.ninstrs = def->exits[e].ninstrs;
            s->xq[e].exec.naccesses = def->exits[e].naccesses;
            s->xq[e].exec.accesses = s->tmpl;
            s->xq[e].exec.repeat = 1;
            s->xq[e].exec.strides = NULL;
            s->xq[e].exec.period = def->exits[e].ninstrs;
            s->xq[e].execs = 0;
            s->xq[e].jump = def->exits[e].jump;
        }
    }
    return s;
}

void mr_bstate_free(mr_bstate *s)
{
    if (!s)
        return;
    free(s->xq);   /* the arrays live in s's own allocation (layout) */
    free(s->cycle);
    free(s);
}

void mr_bstate_fold(mr_bstate *s, mr_totals *t)
{
    for (uint32_t e = 0; e < s->nexits; e++) {
        if (s->xq) {   /* the reader's quick path counts there */
            s->execs[e] += s->xq[e].execs;
            s->xq[e].execs = 0;
        }
        uint64_t n = s->execs[e];
        if (!n)
            continue;
        const mr_exit_def *x = &s->exits[e];
        t->instructions += n * x->ninstrs;
        t->blocks += n;
        t->calls += x->jump == MR_JUMP_CALL ? n : 0;
        t->returns += x->jump == MR_JUMP_RET ? n : 0;
        if (s->fold_accesses) {   /* other blocks count accesses as they go */
            t->loads += n * s->kcount[3 * x->naccesses];
            t->stores += n * s->kcount[3 * x->naccesses + 1];
            t->modifies += n * s->kcount[3 * x->naccesses + 2];
        }
        s->execs[e] = 0;
    }
}
