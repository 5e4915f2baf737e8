/*
 * deps.c: dynamic dependences of an instruction instance (see deps.h).
 */
#include "slice/deps.h"

#include "slice/plus.h"

uint32_t slice_key_insn(const slice_run *r, uint64_t key)
{
    uint32_t n;
    const uint32_t *insn = slice_step_insns(r, SLICE_KEY_STEP(key), &n);
    return insn[SLICE_KEY_INDEX(key)];
}

uint64_t slice_access_key(const slice_run *r, uint64_t a)
{
    return SLICE_KEY(r->acc_step[a], r->acc_instr[a]);
}

int slice_find_def(const slice_run *r, uint64_t s, uint32_t i, int reg, uint64_t *key)
{
    uint64_t bit = 1ull << reg, first = r->thread_first[slice_step_thread(r, s)];
    uint32_t n;
    for (;;) {
        const uint32_t *insn = slice_step_insns(r, s, &n);
        while (i-- > 0)
            if (r->insns[insn[i]].r.defs & bit) {
                *key = SLICE_KEY(s, i);
                return 1;
            }
        for (;;) {                  /* the previous step that writes reg at all */
            if (s == first)
                return 0;
            s--;
            if ((s & 255) == 255 && s - 255 >= first && !(r->chunk_defs[s >> 8] & bit)) {
                s -= 255;           /* 256 steps none of which writes it */
                continue;
            }
            if (r->sym_defs[r->sym[s]] & bit)
                break;
        }
        slice_step_insns(r, s, &n);
        i = n;
    }
}

/* The previous instance in the same call: 1 and moved, or 0 at its start. */
static int prev_in_call(const slice_run *r, uint64_t *s, uint32_t *i)
{
    uint32_t n;
    while (*i == 0) {
        if (r->prev[*s] == SLICE_NONE)
            return 0;
        *s = r->prev[*s];
        slice_step_insns(r, *s, &n);
        *i = n;
    }
    (*i)--;
    return 1;
}

/* The call instruction that made step s's call: 1 and *key, or 0 (also
 * for the criterion's own call and its callers: that they were made is
 * the criterion being reached, not what its variable holds). */
static int call_site(const slice_run *r, uint64_t s, uint64_t *key)
{
    uint32_t c = r->call[s], first = r->call_first[c], n;
    if (r->call_parent[c] == SLICE_NONE || (r->outer_calls && r->outer_calls[c]) || first == r->thread_first[slice_step_thread(r, first)] ||
        r->call[first - 1] != r->call_parent[c])
        return 0;
    slice_step_insns(r, first - 1, &n);
    if (n == 0)
        return 0;
    *key = SLICE_KEY(first - 1, n - 1);
    return 1;
}

static int control_parent(const slice_run *r, slice_cfg *g, uint64_t key, uint64_t *out)
{
    uint64_t s = SLICE_KEY_STEP(key);
    uint32_t i = SLICE_KEY_INDEX(key), n;
    const uint32_t *parents;
    if (slice_cfg_parents(g, r->call_fn[r->call[s]], slice_key_insn(r, key), &parents, &n) < 0)
        return -1;
    /* back through the call, a step's instructions looked up once (this
     * walk is most of approach 2's time on large runs) */
    uint32_t len;
    const uint32_t *insn = slice_step_insns(r, s, &len);
    while (n) {
        while (i > 0) {
            uint32_t at = insn[--i];
            for (uint32_t k = 0; k < n; k++)
                if (parents[k] == at) {
                    *out = SLICE_KEY(s, i);
                    return 1;
                }
        }
        if (r->prev[s] == SLICE_NONE)
            break;
        s = r->prev[s];
        insn = slice_step_insns(r, s, &len);
        i = len;
    }
    return call_site(r, SLICE_KEY_STEP(key), out);
}

/* Is instance key part of the program's startup (before main was called,
 * in main's thread)? Its values are the environment, not followed. */
int slice_in_startup(const slice_run *r, uint64_t key)
{
    return SLICE_KEY_STEP(key) < r->main_step &&
           SLICE_KEY_STEP(key) >= r->thread_first[slice_step_thread(r, r->main_step)];
}

int slice_deps(const slice_run *r, slice_cfg *g, uint64_t key, slice_dep_fn fn, void *ctx)
{
    uint64_t s = SLICE_KEY_STEP(key), dep;
    uint32_t i = SLICE_KEY_INDEX(key);
    const slice_insn *in = &r->insns[slice_key_insn(r, key)];
    int rc;
    for (int reg = 0; reg < SLICE_NREGS; reg++)
        if ((in->r.uses >> reg & 1) && slice_find_def(r, s, i, reg, &dep) && !slice_in_startup(r, dep) &&
            (rc = fn(ctx, dep)))
            return rc;
    for (uint64_t a = r->acc_first[s]; a < r->acc_first[s] + r->acc_count[s]; a++) {
        if (r->acc_instr[a] != i || (r->acc_kind[a] != MR_LOAD && r->acc_kind[a] != MR_MODIFY))
            continue;               /* a store, another instruction's, or a constant */
        if (r->plus) {              /* the edge TWPP+ recorded (Figure 5.7, lines 20-22) */
            int found = slice_plus_store(r, a, &dep);
            if (found < 0)
                return -1;
            if (found && !slice_in_startup(r, dep) && (rc = fn(ctx, dep)))
                return rc;
            continue;
        }
        uint64_t w[64];
        uint32_t nw = slice_writers(r, a, w, 64);
        for (uint32_t k = 0; k < nw && k < 64; k++)
            if (!slice_in_startup(r, slice_access_key(r, w[k])) && (rc = fn(ctx, slice_access_key(r, w[k]))))
                return rc;
    }
    rc = control_parent(r, g, key, &dep);
    if (rc < 0)
        return -1;
    return rc && !slice_in_startup(r, dep) ? fn(ctx, dep) : 0;
}

uint64_t slice_line_entry(const slice_run *r, uint64_t key)
{
    uint64_t s = SLICE_KEY_STEP(key);
    uint32_t i = SLICE_KEY_INDEX(key);
    uint32_t line = r->insns[slice_key_insn(r, key)].line;
    uint64_t at = key;
    while (prev_in_call(r, &s, &i) && r->insns[slice_key_insn(r, SLICE_KEY(s, i))].line == line)
        at = SLICE_KEY(s, i);
    return at;
}
