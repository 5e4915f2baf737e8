/*
 * stride.c: exact per-instruction stride histograms (see stride.h).
 */
#include <stdlib.h>
#include <string.h>

#include "deps/stride.h"
#include "base/array.h"

/* A stride and the steps that had it. */
typedef struct tally {
    int64_t stride;
    uint64_t steps;
} tally;

#define CACHE_TALLIES 4         /* strides an instruction keeps at hand */
#define FIRST_COMPACTION 1024   /* log entries before the first merge */
#define RADIX_MIN 4096          /* below this, qsort sorts a log */

/* Per instruction: where it was last, and its histogram. The current run
 * of equal strides is counted here; when the stride changes the run goes
 * to a few tallies at hand (most recent first: a regular instruction has
 * few strides), and what falls out of them to a log, which is sorted and
 * its equal strides merged whenever it has grown to four times what the
 * last merge left. An irregular instruction (millions of distinct
 * strides) thus costs an append per step and a linear-time sort now and
 * then (each entry sorted about 1.3 times), not a hash probe into a table
 * too big for any cache; the histogram stays exact, in memory at most four
 * times its distinct strides. */
typedef struct insn_state {
    uint64_t accesses;
    uint32_t group;
    uint64_t object, offset;
    int64_t run_stride;
    uint64_t run;               /* steps of run_stride not yet tallied */
    tally near[CACHE_TALLIES];  /* most recently used first */
    uint32_t nnear;
    tally *log;                 /* sorted and merged below `merged` */
    size_t cap_log, nlog, merged;
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
        free(s->insns[i].log);
    free(s->insns);
    free(s);
}

static int by_stride(const void *a, const void *b)
{
    int64_t x = ((const tally *)a)->stride, y = ((const tally *)b)->stride;
    return x < y ? -1 : x > y;
}

/* The sort key of a stride, zigzag: small strides of either sign have
 * small keys, so their high digits are all zero and their passes are
 * skipped. The log only needs equal strides together (the order is not
 * signed order; stride_results breaks ties itself). */
static uint64_t radix_key(int64_t stride)
{
    return ((uint64_t)stride << 1) ^ (uint64_t)(stride >> 63);
}

/* Sorts t[0..n) by key: LSD radix sort, a byte a pass (256 buckets: the
 * scatter stays in cache), passes whose digit is the same for all
 * skipped. -1 when out of memory. */
static int radix_sort(tally *t, size_t n)
{
    size_t count[8][256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++) {        /* all eight histograms at once */
        uint64_t k = radix_key(t[i].stride);
        for (int b = 0; b < 8; b++)
            count[b][(k >> (8 * b)) & 0xff]++;
    }
    tally *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    tally *from = t, *to = tmp;
    for (int b = 0; b < 8; b++) {
        size_t *c = count[b];
        if (c[(radix_key(from[0].stride) >> (8 * b)) & 0xff] == n)
            continue;                       /* one digit for all: in order */
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t x = c[d];
            c[d] = sum;
            sum += x;
        }
        for (size_t i = 0; i < n; i++)
            to[c[(radix_key(from[i].stride) >> (8 * b)) & 0xff]++] = from[i];
        tally *x = from;
        from = to;
        to = x;
    }
    if (from != t)
        memcpy(t, from, n * sizeof *t);
    free(tmp);
    return 0;
}

/* Sorts the log and merges its equal strides. */
static int compact(insn_state *st)
{
    if (st->nlog == 0)
        return 0;
    if (st->nlog < RADIX_MIN)
        qsort(st->log, st->nlog, sizeof *st->log, by_stride);
    else if (radix_sort(st->log, st->nlog) < 0)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < st->nlog; i++) {
        if (k && st->log[k - 1].stride == st->log[i].stride)
            st->log[k - 1].steps += st->log[i].steps;
        else
            st->log[k++] = st->log[i];
    }
    st->nlog = st->merged = k;
    return 0;
}

static int to_log(insn_state *st, tally t)
{
    if (ARRAY_FIT(st->log, st->cap_log, st->nlog + 1) < 0)
        return -1;
    st->log[st->nlog++] = t;
    size_t limit = 4 * st->merged > FIRST_COMPACTION ? 4 * st->merged : FIRST_COMPACTION;
    return st->nlog >= limit ? compact(st) : 0;
}

/* The run of equal strides goes to the tallies at hand. */
static int flush(insn_state *st)
{
    if (!st->run)
        return 0;
    tally t = { st->run_stride, st->run };
    st->run = 0;
    uint32_t i = 0;
    while (i < st->nnear && st->near[i].stride != t.stride)
        i++;
    if (i < st->nnear)
        t.steps += st->near[i].steps;       /* found: to the front */
    else if (st->nnear < CACHE_TALLIES)
        i = st->nnear++;                    /* a free place */
    else if (to_log(st, st->near[--i]) < 0) /* the least recent leaves */
        return -1;
    memmove(&st->near[1], &st->near[0], i * sizeof *st->near);
    st->near[0] = t;
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
        for (uint32_t j = 0; j < st->nnear; j++)    /* everything to the log */
            if (to_log(st, st->near[j]) < 0) {
                free(r);
                return -1;
            }
        st->nnear = 0;
        if (compact(st) < 0) {
            free(r);
            return -1;
        }
        for (size_t j = 0; j < st->nlog; j++)     /* ties: the smallest stride */
            if (st->log[j].steps > x->hits ||
                (st->log[j].steps == x->hits && st->log[j].stride < x->stride)) {
                x->hits = st->log[j].steps;
                x->stride = st->log[j].stride;
            }
        x->share = x->steps ? (double)x->hits / (double)x->steps : 0;
        x->strongly = x->share >= STRIDE_SHARE && x->stride != 0 &&
                      st->accesses >= STRIDE_MIN;
    }
    *out = r;
    *n = k;
    return 0;
}
