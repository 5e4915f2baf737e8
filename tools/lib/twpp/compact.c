/*
 * compact.c: step 3 of TWPP, dynamic basic blocks. In a trace's dynamic
 * control flow graph (an edge per consecutive pair, plus ENTRY -> first
 * and last -> EXIT), u -> v is merged when u's only successor is v, v's
 * only predecessor is u and u != v. A DBB is a maximal chain of merged
 * edges, named by its first symbol; every occurrence of its head is
 * followed by the rest of its chain, so the compacted trace keeps only
 * the heads.
 */
#include "twpp/twpp.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* Neighbour markers beside real symbols (which are below 2^32 - 4). */
#define NB_NONE  UINT32_MAX         /* not seen yet */
#define NB_MANY  (UINT32_MAX - 1)   /* two different neighbours */
#define NB_EDGE  (UINT32_MAX - 2)   /* ENTRY (as predecessor) or EXIT */

/* Records neighbour x in *slot. */
static void see(uint32_t *slot, uint32_t x)
{
    if (*slot == NB_NONE)
        *slot = x;
    else if (*slot != x)
        *slot = NB_MANY;
}

/* Is u -> succ[u] a merged edge? */
static int merged(const uint32_t *succ, const uint32_t *pred, uint32_t u)
{
    uint32_t v = succ[u];
    return v < NB_EDGE && v != u && pred[v] == u;
}

/* Is s a DBB head: not the target of a merged edge? */
static int is_head(const uint32_t *succ, const uint32_t *pred, uint32_t s)
{
    uint32_t u = pred[s];
    return !(u < NB_EDGE && merged(succ, pred, u) && succ[u] == s);
}

/* The dictionary: [chain count, (length, symbols)...] for each head with
 * a merged successor, in increasing order of head. */
static int make_dict(const uint32_t *succ, const uint32_t *pred, const uint32_t *heads,
                     uint32_t nheads, uint32_t nsymbols, twpp_seq *dict)
{
    size_t cap = 1, n = 1;
    uint32_t *v = malloc(sizeof *v), chains = 0;
    if (!v)
        return -1;
    for (uint32_t i = 0; i < nheads; i++) {
        uint32_t h = heads[i], len = 1;
        if (!merged(succ, pred, h))
            continue;
        for (uint32_t s = h; merged(succ, pred, s) && len <= nsymbols; s = succ[s])
            len++;
        if (n + len + 1 > cap) {
            cap = 2 * (n + len + 1);
            uint32_t *w = realloc(v, cap * sizeof *w);
            if (!w) {
                free(v);
                return -1;
            }
            v = w;
        }
        v[n++] = len;
        for (uint32_t s = h, k = 0; k < len; k++, s = succ[s])
            v[n++] = s;
        chains++;
    }
    v[0] = chains;
    dict->v = v;
    dict->n = (uint32_t)n;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int twpp_compact(const uint32_t *raw, uint32_t n, uint32_t nsymbols,
                 twpp_seq *trace, twpp_seq *dict)
{
    /* succ and pred over every symbol: simple and O(nsymbols) per unique
     * trace, which is small beside the traces themselves */
    uint32_t *succ = malloc(((size_t)nsymbols + 1) * sizeof *succ);
    uint32_t *pred = malloc(((size_t)nsymbols + 1) * sizeof *pred);
    uint32_t *out = NULL;
    uint32_t *heads = malloc(((size_t)nsymbols + 1) * sizeof *heads), nheads = 0, m = 0;
    uint8_t *listed = calloc((size_t)nsymbols + 1, 1);  /* head already in heads */
    int rc = -1;
    if (!succ || !pred || !heads || !listed)
        goto done;
    for (uint32_t i = 0; i < n; i++)
        succ[raw[i]] = pred[raw[i]] = NB_NONE;
    for (uint32_t i = 0; i < n; i++) {
        see(&pred[raw[i]], i ? raw[i - 1] : NB_EDGE);
        see(&succ[raw[i]], i + 1 < n ? raw[i + 1] : NB_EDGE);
    }
    /* the heads counted first: the compacted trace is often half the raw
     * one, and a build's largest trace set its peak memory */
    size_t nout = 0;
    for (uint32_t i = 0; i < n; i++)
        nout += is_head(succ, pred, raw[i]);
    if (!(out = malloc((nout + 1) * sizeof *out)))
        goto done;
    for (uint32_t i = 0; i < n; i++)
        if (is_head(succ, pred, raw[i])) {
            out[m++] = raw[i];
            if (merged(succ, pred, raw[i]) && !listed[raw[i]]) {
                listed[raw[i]] = 1;
                heads[nheads++] = raw[i];
            }
        }
    qsort(heads, nheads, sizeof *heads, cmp_u32);
    if (make_dict(succ, pred, heads, nheads, nsymbols, dict) < 0)
        goto done;
    trace->v = out;
    trace->n = m;
    out = NULL;
    rc = 0;
done:
    free(succ);
    free(pred);
    free(out);
    free(heads);
    free(listed);
    return rc;
}

/* The chain of head h in dict (sorted by head), or NULL: a DBB of one. */
static const uint32_t *chain_of(const twpp_seq *dict, uint32_t h, uint32_t *len)
{
    const uint32_t *p = dict->v + 1, *end = dict->v + dict->n;
    while (p < end) {       /* few chains per dictionary: a linear scan */
        if (p[1] == h) {
            *len = p[0];
            return p + 1;
        }
        p += 1 + p[0];
    }
    return NULL;
}

int twpp_expand_path(const twpp_seq *trace, const twpp_seq *dict, twpp_emit_fn fn, void *ctx)
{
    for (uint32_t i = 0; i < trace->n; i++) {
        uint32_t len = 1, h = trace->v[i];
        const uint32_t *chain = chain_of(dict, h, &len);
        if (!chain)
            chain = &trace->v[i];
        for (uint32_t k = 0; k < len; k++) {
            int rc = fn(ctx, chain[k]);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* A dictionary's chains by head, for twpp_expand_path_into. */
typedef struct chain_index {
    uint32_t *head;             /* heads, increasing (as the dictionary lists them) */
    const uint32_t **chain;     /* each head's chain: its length, then its symbols */
    uint32_t n;
} chain_index;

static int index_chains(const twpp_seq *dict, chain_index *ix)
{
    uint32_t n = dict->n ? dict->v[0] : 0;
    ix->n = 0;
    if (!n)
        return 0;
    ix->head = malloc((size_t)n * sizeof *ix->head);
    ix->chain = malloc((size_t)n * sizeof *ix->chain);
    if (!ix->head || !ix->chain)
        return -1;
    for (const uint32_t *p = dict->v + 1, *end = dict->v + dict->n; p < end && ix->n < n; p += 1 + p[0]) {
        ix->head[ix->n] = p[1];
        ix->chain[ix->n++] = p;
    }
    return 0;
}

/* The chain of head h (its length first), or NULL: a DBB of one block. */
static const uint32_t *find_chain(const chain_index *ix, uint32_t h)
{
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->head[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && ix->head[lo] == h ? ix->chain[lo] : NULL;
}

int twpp_expand_path_into(const twpp_seq *trace, const twpp_seq *dict, const uint8_t *keep,
                          uint32_t **out, size_t *n, size_t *cap)
{
    chain_index ix = { 0 };
    int rc = index_chains(dict, &ix);
    for (uint32_t i = 0; i < trace->n && rc == 0; i++) {
        const uint32_t *c = find_chain(&ix, trace->v[i]);
        uint32_t len = c ? c[0] : 1;
        const uint32_t *sym = c ? c + 1 : &trace->v[i];
        if (ARRAY_FIT(*out, *cap, *n + len) < 0) {
            rc = -1;
            break;
        }
        for (uint32_t k = 0; k < len; k++)
            if (!keep || keep[sym[k]])
                (*out)[(*n)++] = sym[k];
    }
    free(ix.head);
    free(ix.chain);
    return rc;
}
