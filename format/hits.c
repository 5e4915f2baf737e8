/*
 * hits.c: EXEC_HITS records (SPEC.md 6.4), runs of executions that repeat
 * their predictions: every execution the predicted block by its last exit,
 * every address a HIT; values are coded as usual. A run is expanded into
 * one event per execution, or, when the caller asked for batches
 * (mr_reader_batch) and the run's values do not change, delivered whole: a
 * block that follows itself as one event, a loop body of several blocks as
 * one event per block.
 */
#include <stdlib.h>
#include "trace_internal.h"

/* ... and so is one with more accesses than this (the check that no
 * instruction appears twice sorts them). */
#define MR_CYCLE_MAX_ACCESSES 4096

/* A loop body found by following the predictions from its first block:
 * block i left by exit[i] is followed by block i + 1, the last by the
 * first. Cached in the first block's state, with the result of the check
 * that batching may deliver it per block. */
typedef struct mr_cycle {
    uint32_t len;
    mr_bstate *bs[MR_CYCLE_MAX];
    uint32_t exit[MR_CYCLE_MAX];
    int batchable;   /* boring exits, no instruction twice */
} mr_cycle;

/* Accesses [0, n) of a guarded block that all happened, times times:
 * counted here (blocks without guards count by mr_bstate_fold). */
static inline void count_all(mr_totals *t, const mr_bstate *bs, uint32_t n, uint64_t times)
{
    t->loads += times * bs->kcount[3 * n];
    t->stores += times * bs->kcount[3 * n + 1];
    t->modifies += times * bs->kcount[3 * n + 2];
}

/* One execution of a run: every address its prediction, each value from
 * the VALUE stream. Returns the accesses delivered, NULL if corrupt. */
static mr_access *repeat_step(mr_reader *r, mr_bstate *bs, uint32_t n)
{
    mr_pred *pred = bs->pred;
    mr_access *tmpl = bs->tmpl;
    if (bs->simple) {   /* the template holds the previous addresses */
        for (uint32_t i = 0; i < n; i++)
            tmpl[i].addr += pred[i].stride;
        return tmpl;
    }
    mr_access *out = bs->has_guard ? r->acc : tmpl;
    uint64_t last = r->last_value;
    const uint8_t *vp = r->sp[MR_S_VALUE], *vend = r->se[MR_S_VALUE];
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        pred[i].addr += pred[i].stride;
        pred[i].voff = pred[i].addr - last;
        if (out != tmpl)
            out[i] = tmpl[i];
        out[i].addr = pred[i].addr;
        if (bs->aflags[i] & MR_ACC_VALUE) {
            if (MR_UNLIKELY(vp >= vend)) {
                CORRUPT(r, "value stream exhausted");
                return NULL;
            }
            pred[i].value += (uint64_t)mr_unzigzag(mr_get_varint(&vp, &bad));
            out[i].value = last = pred[i].value;
        }
    }
    if (MR_UNLIKELY(bad || vp > vend)) {
        CORRUPT(r, "value stream overrun");
        return NULL;
    }
    r->sp[MR_S_VALUE] = vp;
    r->last_value = last;
    if (bs->has_guard)
        count_all(&r->tot, bs, n, 1);
    return out;
}

/* Moves the addresses of m more executions of bs on, in one step, and
 * counts their accesses; the value offsets are the caller's. */
static void skip_addresses(mr_reader *r, mr_bstate *bs, uint32_t n, uint64_t m)
{
    mr_pred *pred = bs->pred;
    if (bs->simple) {
        for (uint32_t i = 0; i < n; i++)
            bs->tmpl[i].addr += m * pred[i].stride;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        pred[i].addr += m * pred[i].stride;
    if (bs->has_guard)
        count_all(&r->tot, bs, n, m);
}

/* Sets the value offsets of bs's accesses as its execution does with last
 * the latest value before it; returns the latest value after it. */
static uint64_t set_voffs(mr_bstate *bs, uint32_t n, uint64_t last)
{
    if (bs->simple)   /* no value, no offset read */
        return last;
    for (uint32_t i = 0; i < n; i++) {
        bs->pred[i].voff = bs->pred[i].addr - last;
        if (bs->aflags[i] & MR_ACC_VALUE)
            last = bs->pred[i].value;
    }
    return last;
}

/* The value accesses among the first n of bs. */
static uint32_t values_of(const mr_bstate *bs, uint32_t n)
{
    uint32_t nv = 0;
    if (bs->has_value)
        for (uint32_t i = 0; i < n; i++)
            nv += (bs->aflags[i] & MR_ACC_VALUE) != 0;
    return nv;
}

/* How far a run can be batched as far as values go: after the first
 * nfirst value deltas of the VALUE stream (the first execution or trip,
 * whose values may change), how many of the next (at most limit) are 0,
 * one zero byte each: the later executions that load and store the same
 * values as the one before. */
static uint64_t zero_values(const mr_reader *r, uint64_t nfirst, uint64_t limit)
{
    const uint8_t *p = r->sp[MR_S_VALUE], *end = r->se[MR_S_VALUE];
    for (; nfirst; nfirst--) {
        while (p < end && (*p & 0x80))
            p++;
        if (p++ >= end)
            return 0;
    }
    if (limit > (uint64_t)(end - p))
        limit = (uint64_t)(end - p);
    uint64_t z = 0;
    while (z < limit && !p[z])
        z++;
    return z;
}

/* Work of a chunk's runs, bounded by MR_MAX_CHUNK_HITS. 0 or -1. */
static int add_work(mr_reader *r, uint64_t executions, uint32_t naccesses)
{
    r->chunk_hits += executions * (naccesses + 1ull);   /* executions <= 2^26 */
    if (MR_UNLIKELY(r->chunk_hits > MR_MAX_CHUNK_HITS))
        return CORRUPT(r, "too many repeated executions");
    return 0;
}

/* Compares instruction addresses for qsort. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether a loop body may be delivered one event per block: every exit
 * boring, and no instruction with two accesses in the body (so each
 * instruction's accesses are one event's, in order). */
static int cycle_batchable(const mr_cycle *c)
{
    uint32_t total = 0;
    for (uint32_t k = 0; k < c->len; k++) {
        if (c->bs[k]->exits[c->exit[k]].jump != MR_JUMP_BORING)
            return 0;
        total += c->bs[k]->exits[c->exit[k]].naccesses;
    }
    if (total > MR_CYCLE_MAX_ACCESSES)
        return 0;
    uint64_t *addr = malloc((total ? total : 1) * sizeof *addr);
    if (!addr)
        return 0;   /* expanded instead: slower, not wrong */
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->len; k++) {
        const mr_block_def *d = c->bs[k]->def;
        for (uint32_t i = 0; i < d->exits[c->exit[k]].naccesses; i++)
            addr[n++] = d->instrs[d->accesses[i].instr].addr;
    }
    qsort(addr, n, sizeof *addr, cmp_u64);
    int ok = 1;
    for (uint32_t i = 1; i < n && ok; i++)
        ok = addr[i] != addr[i - 1];
    free(addr);
    return ok;
}

/* The successor predicted after bs left by exit e: the inline slots
 * need no load of succ_bs, one load less on the chain of find_cycle. */
static inline mr_bstate *succ_of(const mr_bstate *bs, uint32_t e)
{
    return bs->nexits <= MR_SUCC_INLINE ? bs->succ_inline[e] : bs->succ_bs[e];
}

/* The loop body the predictions make from b0, the block of the run about
 * to be delivered, if they lead back to it within maxlen (<= MR_CYCLE_MAX)
 * blocks, else NULL. Following them cannot change them (a run repeats
 * each prediction), so the body is what the run executes. Cached in b0.
 * Following them is a chain of dependent loads through block states often
 * not in the cache, and a run of a long body asks again at every
 * execution: the blocks ahead are kept in r->walk (walk[0] the one about
 * to be delivered, valid while walk_rep is the run's rep_left), so each
 * execution follows one prediction more, not maxlen. */
static const mr_cycle *find_cycle(mr_reader *r, mr_bstate *b0, uint32_t maxlen)
{
    mr_bstate **w = r->walk;
    if (!r->walk_len || r->walk_rep != r->rep_left || w[0] != b0) {
        w[0] = b0;
        r->walk_len = 1;
        r->walk_rep = r->rep_left;
    }
    uint32_t len = 0;
    for (uint32_t m = 1; m <= maxlen && !len; m++) {
        if (m == r->walk_len) {   /* follow one prediction more */
            mr_bstate *bs = w[m - 1], *next;
            uint32_t e = bs->last_exit;
            if (e >= bs->nexits || !(next = succ_of(bs, e)))
                return NULL;
            w[r->walk_len++] = next;
        }
        if (w[m] == b0)
            len = m;
    }
    if (!len)
        return NULL;
    mr_cycle c;
    c.len = len;
    for (uint32_t i = 0; i < len; i++) {
        c.bs[i] = w[i];
        c.exit[i] = w[i]->last_exit;
    }
    mr_cycle *cached = b0->cycle;
    if (cached && cached->len == c.len &&
        !memcmp(cached->bs, c.bs, c.len * sizeof *c.bs) &&
        !memcmp(cached->exit, c.exit, c.len * sizeof *c.exit))
        return cached;
    if (!cached && !(cached = b0->cycle = malloc(sizeof *cached)))
        return NULL;
    c.batchable = cycle_batchable(&c);
    *cached = c;
    return cached;
}

/* Grows the group buffers to nev events and nacc accesses. 0 or -1. */
static int group_reserve(mr_reader *r, size_t nev, size_t nacc)
{
    if (nev > r->group_ev_cap) {
        mr_event *e = realloc(r->group_ev, nev * sizeof *e);
        if (!e)
            return mr_reader_fail(r, 0, "out of memory");
        r->group_ev = e;
        r->group_ev_cap = nev;
    }
    if (nacc > r->group_acc_cap) {
        mr_access *a = realloc(r->group_acc, nacc * sizeof *a);
        if (a)
            r->group_acc = a;
        uint64_t *s = realloc(r->group_str, nacc * sizeof *s);
        if (s)
            r->group_str = s;
        if (!a || !s)
            return mr_reader_fail(r, 0, "out of memory");
        r->group_acc_cap = nacc;
    }
    return 0;
}

/* Delivers the rest of a run (r->rep_left >= 2 * c->len executions, the
 * thread's last jump boring) over the loop body c as one event per block:
 * block k ran the executions k, k + len, k + 2 len, ... of the run, as
 * far as values do not change (the rest of the run stays in rep_left). The
 * state ends as after the last execution delivered. 1 delivered, 0 not
 * batchable (values change too soon; nothing consumed), -1 corrupt. */
static int deliver_group(mr_reader *r, mr_event *ev, const mr_cycle *c)
{
    uint32_t len = c->len, nacc = 0;
    uint64_t count = r->rep_left, period = 0;
    for (uint32_t k = 0; k < len; k++) {
        const mr_exit_def *x = &c->bs[k]->exits[c->exit[k]];
        period += x->ninstrs;
        nacc += x->naccesses;
    }
    /* The executions after the first trip whose values do not change:
     * whole trips of vtrip values each, then blocks of one more trip. */
    uint64_t nfirst = 0, nrest, vtrip;
    uint32_t nv[MR_CYCLE_MAX];
    for (uint32_t k = 0; k < len; k++)
        nfirst += nv[k] = values_of(c->bs[k], c->bs[k]->exits[c->exit[k]].naccesses);
    vtrip = nfirst;
    if (vtrip) {
        uint64_t z = zero_values(r, nfirst, (count - len) * vtrip);
        uint64_t x = len + z / vtrip * len;   /* executions batchable */
        for (uint64_t left = z % vtrip; x < count && nv[x % len] <= left; x++)
            left -= nv[x % len];
        if (x < count)
            count = x;
        if (count < 2ull * len)
            return 0;   /* values change too soon: the caller expands */
    }
    nrest = 0;
    for (uint32_t k = 0; k < len; k++)
        nrest += (count / len + (k < count % len) - 1) * nv[k];
    for (uint32_t k = 0; k < len; k++)
        if (add_work(r, count / len + (k < count % len),
                     c->bs[k]->exits[c->exit[k]].naccesses))
            return -1;
    if (group_reserve(r, len, nacc ? nacc : 1))   /* never NULL for memcpy */
        return -1;
    /* The body's first trip, one execution at a time: each block's first
     * accesses, and its strides, for its event. */
    uint64_t time = r->time;
    for (uint32_t k = 0, at = 0; k < len; k++) {
        mr_bstate *bs = c->bs[k];
        uint32_t exit = c->exit[k], n = bs->exits[exit].naccesses;
        uint64_t times = count / len + (k < count % len);
        mr_access *out = repeat_step(r, bs, n);
        if (!out)
            return -1;
        memcpy(r->group_acc + at, out, n * sizeof *out);
        for (uint32_t i = 0; i < n; i++)
            r->group_str[at + i] = bs->pred[i].stride;
        mr_event *g = &r->group_ev[k];
        g->kind = MR_EV_EXEC;
        g->tid = r->cur_tid;
        g->time = time;
        g->u.exec.def = bs->def;
        g->u.exec.exit = exit;
        g->u.exec.ninstrs = bs->exits[exit].ninstrs;
        g->u.exec.naccesses = n;
        g->u.exec.accesses = r->group_acc + at;
        g->u.exec.repeat = times;
        g->u.exec.strides = times > 1 ? r->group_str + at : NULL;
        g->u.exec.period = period;
        time += bs->exits[exit].ninstrs;
        at += n;
        /* The rest of its executions: addresses, counts, clock. */
        skip_addresses(r, bs, n, times - 1);
        bs->execs[exit] += times;
        r->time += times * bs->exits[exit].ninstrs;
    }
    r->sp[MR_S_VALUE] += nrest;   /* the later trips' zero value deltas */
    /* Value offsets as the last trip leaves them: the two last trips,
     * the first to bring the latest value to where the second starts. */
    uint64_t last = r->last_value;
    for (uint64_t x = count - 2 * len; x < count; x++)
        last = set_voffs(c->bs[x % len], c->bs[x % len]->exits[c->exit[x % len]].naccesses,
                         last);
    r->last_value = last;
    uint32_t end = (uint32_t)((count - 1) % len);
    r->prev_slot = &c->bs[end]->succ_bs[c->exit[end]];
    r->rep_left -= count;
    r->group_len = len;
    r->group_next = 0;
    return mr_hits_group_next(r, ev);
}

int mr_hits_group_next(mr_reader *r, mr_event *ev)
{
    *ev = r->group_ev[r->group_next++];
    if (r->group_next == r->group_len) {
        r->group_len = 0;
        r->fast = r->cur->jump == MR_JUMP_BORING ? mr_fast_mode(r) : MR_FAST_NONE;
    } else {
        r->fast = MR_FAST_NONE;
    }
    return 1;
}

/* Delivers the next execution of the run being decoded: the predicted
 * block by the exit it took last time. When batching and the block follows
 * itself by that exit, every execution left is this block's: they come as
 * one event (unless the exit is a call or return: those synthesise an
 * event per execution); a loop body of several blocks comes as one event
 * per block (MR_BATCH_PER_INSTRUCTION, see deliver_group). */
int mr_hits_next(mr_reader *r, mr_event *ev)
{
    mr_bstate *bs = r->prev_slot ? *r->prev_slot : NULL;
    if (MR_UNLIKELY(!bs))
        return CORRUPT(r, "repeated execution without a predicted block");
    uint32_t exit = bs->last_exit;
    if (MR_UNLIKELY(exit >= bs->nexits))   /* none in this chunk yet */
        return CORRUPT(r, "repeated execution of a block without a previous exit");
    const mr_exit_def *ex = &bs->exits[exit];
    uint32_t n = ex->naccesses;
    uint64_t k = 1;
    uint32_t nv = 0;   /* value accesses: counted only for a batch of bs */
    int walked = 0;    /* find_cycle's walk starts at bs */
    if (r->batching && ex->jump == MR_JUMP_BORING && r->rep_left > 1) {
        if (bs->succ_bs[exit] == bs) {
            nv = values_of(bs, n);
            /* as many as load and store the values of the one before */
            k = nv ? 1 + zero_values(r, nv, (r->rep_left - 1) * nv) / nv : r->rep_left;
        } else if (r->batching == MR_BATCH_PER_INSTRUCTION && r->cur &&
                   r->cur->jump == MR_JUMP_BORING) {
            /* a body of len blocks batches only with two trips to come */
            uint64_t most = r->rep_left / 2;
            const mr_cycle *c = most >= 2 ? find_cycle(r, bs, most < MR_CYCLE_MAX
                                                          ? (uint32_t)most : MR_CYCLE_MAX)
                                          : NULL;
            if (c && c->batchable) {
                int rc = deliver_group(r, ev, c);
                if (rc)
                    return rc;
            }
            walked = most >= 2;
        }
    }
    if (add_work(r, k, n))
        return -1;
    mr_access *out = repeat_step(r, bs, n);
    if (!out)
        return -1;
    if (k > 1) {   /* the first execution's accesses, then the strides */
        if (n && out != r->acc)   /* r->acc is NULL while no block has accesses */
            memcpy(r->acc, out, n * sizeof *out);
        out = n ? r->acc : out;
        for (uint32_t i = 0; i < n; i++)
            r->strides[i] = bs->pred[i].stride;
        skip_addresses(r, bs, n, k - 1);
        r->sp[MR_S_VALUE] += (k - 1) * nv;   /* their zero value deltas */
        /* The last execution starts with the value this one ended with. */
        r->last_value = set_voffs(bs, n, r->last_value);
    }
    r->rep_left -= k;
    if (walked && r->walk_len > 1) {   /* the walk goes on from the next block */
        memmove(r->walk, r->walk + 1, --r->walk_len * sizeof *r->walk);
        r->walk_rep = r->rep_left;
    }
    return mr_deliver_exec(r, ev, bs, exit, out, n, k);
}

int mr_hits_decode(mr_reader *r, mr_event *ev)
{
    int bad = 0;
    const uint8_t *p = r->sp[MR_S_BLOCK];
    uint64_t k = p < r->se[MR_S_BLOCK] ? mr_get_varint(&p, &bad) : 0;
    if (bad || p > r->se[MR_S_BLOCK] || k == 0 || k > MR_MAX_CHUNK_HITS)
        return CORRUPT(r, "bad repeat count");
    r->sp[MR_S_BLOCK] = p;
    r->rep_left = k;
    r->walk_len = 0;   /* a new run: its walk is not made yet */
    return mr_hits_next(r, ev);
}
