/*
 * precise.c: approach 3 (see slice.h), and the criterion's seeds that
 * the other two start from too.
 */
#include "slice/deps.h"
#include "slice/slice.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/array.h"

int slice_set_dense(slice_set *s, const slice_run *r, int instances)
{
    uint64_t nbits = instances ? r->insn_first[r->nsteps] : r->ninsns;
    s->first = instances ? r->insn_first : NULL;
    s->bits = calloc(nbits / 64 + 1, sizeof *s->bits);
    return s->bits ? 0 : -1;
}

int slice_set_add(slice_set *s, uint64_t x)
{
    int added;
    if (s->bits) {
        uint64_t b = s->first ? s->first[SLICE_KEY_STEP(x)] + SLICE_KEY_INDEX(x) : x;
        added = !(s->bits[b / 64] >> (b % 64) & 1);
        s->bits[b / 64] |= 1ull << (b % 64);
    } else {
        added = u64set_add(&s->has, x);
    }
    if (added == 1 && ARRAY_FIT(s->v, s->cap, s->n + 1) < 0)
        return -1;
    if (added == 1)
        s->v[s->n++] = x;
    return added;
}

void slice_set_free(slice_set *s)
{
    u64map_free(&s->has);
    free(s->bits);
    free(s->v);
    s->v = NULL;
    s->bits = NULL;
    s->n = s->cap = 0;
}

static int add_instance(void *ctx, uint64_t key)
{
    return slice_set_add(ctx, key) < 0 ? -1 : 0;
}

int slice_seed(const slice_run *r, const slice_criterion *c, slice_set *out)
{
    uint64_t key;
    if (c->reg >= 0)
        return slice_find_def(r, c->step, c->index, c->reg, &key) && !slice_in_startup(r, key)
             ? add_instance(out, key) : 0;
    for (uint32_t k = 0; k < c->nwriters; k++)
        if (!slice_in_startup(r, slice_access_key(r, c->writers[k])) &&
            add_instance(out, slice_access_key(r, c->writers[k])) < 0)
            return -1;
    return 0;
}

int slice_precise(const slice_run *r, slice_cfg *g, const slice_criterion *c, slice_set *out,
                  char *err, size_t errlen)
{
    if ((!out->bits && slice_set_dense(out, r, 1) < 0) || slice_seed(r, c, out) < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    /* the set is the queue: members after `next` are still to be resolved */
    for (size_t next = 0; next < out->n; next++)
        if (slice_deps(r, g, out->v[next], add_instance, out) < 0)
            return snprintf(err, errlen, "out of memory"), -1;
    return 0;
}
