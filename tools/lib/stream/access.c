/* access.c: the one access stream, see access.h. */
#include "stream/access.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

struct access_stream {
    struct access_stream_head h;    /* first: the inline accessor reads it */
    size_t user_size;               /* 1 << h.user_shift, or 0: no records */
    size_t user_cap;                /* instructions the records have room for */
    uint32_t *scratch;              /* numbers of a partial execution */
    size_t nscratch;
};

access_stream *access_stream_new(size_t user_size)
{
    access_stream *s = calloc(1, sizeof *s);
    if (!s || !(s->h.insns = insn_table_new())) {
        free(s);
        return NULL;
    }
    if (user_size) {
        while (((size_t)1 << s->h.user_shift) < user_size)
            s->h.user_shift++;
        s->user_size = (size_t)1 << s->h.user_shift;
    }
    return s;
}

void access_stream_free(access_stream *s)
{
    if (!s)
        return;
    insn_table_free(s->h.insns);
    free(s->h.user);
    free(s->scratch);
    free(s);
}

const insn_table *access_stream_insns(const access_stream *s)
{
    return s->h.insns;
}

/* Room for the records of every instruction numbered so far. */
static int fit_user(access_stream *s)
{
    size_t need = s->h.ninsns = insn_table_count(s->h.insns);
    if (!s->user_size || need <= s->user_cap)
        return 0;
    return array_grow(&s->h.user, &s->user_cap, need, s->user_size, 1024);
}

/* Some guarded accesses did not happen: the ones that did are matched to
 * their definitions in order (same instruction and kind). */
static const uint32_t *match_partial(access_stream *s, const block_insns *b,
                                     const mr_event *ev)
{
    const mr_block_def *def = ev->u.exec.def;
    if (ARRAY_FIT(s->scratch, s->nscratch, def->naccesses) < 0)
        return NULL;
    uint32_t d = 0;
    for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
        const mr_access *a = &ev->u.exec.accesses[i];
        while (d < def->naccesses && (def->accesses[d].instr != a->instr ||
                                      def->accesses[d].kind != a->kind))
            d++;
        s->scratch[i] = d < def->naccesses ? b->insn[d++] : b->insn[0];
    }
    return s->scratch;
}

int access_stream_exec_slow(access_stream *s, const mr_event *ev, access_exec *x)
{
    const mr_block_def *def = ev->u.exec.def;
    const block_insns *b = insn_table_block(s->h.insns, def);
    if (!b || fit_user(s) < 0)
        return -1;
    x->ev = ev;
    x->n = ev->u.exec.naccesses;
    x->acc = ev->u.exec.accesses;
    x->repeat = ev->u.exec.repeat ? ev->u.exec.repeat : 1;
    x->strides = x->repeat > 1 ? ev->u.exec.strides : NULL;
    x->distinct = b->distinct;
    x->insn = b->insn;
    x->user = s->h.user;
    x->user_shift = s->h.user_shift;
    if (x->n != def->exits[ev->u.exec.exit].naccesses &&
        !(x->insn = match_partial(s, b, ev)))
        return -1;
    return 1;
}
