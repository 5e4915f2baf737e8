/*
 * stride.c: exact per-instruction stride histograms (see stride.h).
 */
#include <stdlib.h>
#include <string.h>

#include "deps/stride.h"
#include "base/array.h"
#include "base/u64map.h"

/* Per instruction: where it was last, and its histogram; the current run
 * of equal strides is counted here and added to the histogram when the
 * stride changes. */
typedef struct insn_state {
    uint64_t accesses;
    uint32_t group;
    uint64_t object, offset;
    int64_t run_stride;
    uint64_t run;               /* steps of run_stride not yet in hist */
    u64map hist;                /* stride -> steps */
} insn_state;

struct stride_prof {
    insn_state *insns;
    size_t cap;
    uint32_t n;
};

stride_prof *stride_new(void) { return calloc(1, sizeof(stride_prof)); }

void stride_free(stride_prof *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        u64map_free(&s->insns[i].hist);
    free(s->insns);
    free(s);
}

static int flush(insn_state *st)
{
    if (!st->run)
        return 0;
    int added;
    void **slot = u64map_slot_of(&st->hist, (uint64_t)st->run_stride, &added);
    if (!slot)
        return -1;
    *slot = (void *)((uintptr_t)*slot + st->run);
    st->run = 0;
    return 0;
}

int stride_access(stride_prof *s, uint32_t insn, uint32_t group,
                  uint64_t object, uint64_t offset)
{
    if (insn >= s->n) {
        if (ARRAY_FIT(s->insns, s->cap, (size_t)insn + 1) < 0)
            return -1;
        s->n = insn + 1;
    }
    insn_state *st = &s->insns[insn];
    if (st->accesses++ && st->group == group && st->object == object) {
        int64_t d = (int64_t)(offset - st->offset);
        if (d != st->run_stride && flush(st) < 0)
            return -1;
        st->run_stride = d;
        st->run++;
    }
    st->group = group;
    st->object = object;
    st->offset = offset;
    return 0;
}

int stride_results(stride_prof *s, stride_info **out, uint32_t *n)
{
    stride_info *r = malloc((s->n ? s->n : 1) * sizeof *r);
    if (!r)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        insn_state *st = &s->insns[i];
        if (!st->accesses)
            continue;
        if (flush(st) < 0) {
            free(r);
            return -1;
        }
        stride_info *x = &r[k++];
        memset(x, 0, sizeof *x);
        x->insn = i;
        x->steps = st->accesses - 1;
        for (size_t j = 0; j < st->hist.cap; j++) {
            const u64map_slot *sl = &st->hist.slots[j];
            uint64_t c = (uint64_t)(uintptr_t)sl->value;
            if (sl->used && (c > x->hits ||
                             (c == x->hits && (int64_t)sl->key < x->stride))) {
                x->hits = c;
                x->stride = (int64_t)sl->key;
            }
        }
        x->share = x->steps ? (double)x->hits / (double)x->steps : 0;
        x->strongly = x->share >= STRIDE_SHARE && x->stride != 0 &&
                      st->accesses >= STRIDE_MIN;
    }
    *out = r;
    *n = k;
    return 0;
}
