/* timestamps.c: TWPP's timestamped form and its series (timestamps.h). */
#include "twpp/timestamps.h"

#include <stdlib.h>

/* Timestamps in one entry, with a run's bound. */
uint32_t twpp_ts_encode(const uint32_t *ts, uint32_t n, int64_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        if (j < n) {
            uint32_t step = ts[j] - ts[i];
            while (j + 1 < n && ts[j + 1] - ts[j] == step)
                j++;
            uint32_t len = j - i + 1;
            if ((step == 1 && len >= 3) || (step > 1 && len >= 4)) {
                out[k++] = ts[i];
                if (step == 1) {
                    out[k++] = -(int64_t)ts[j];
                } else {
                    out[k++] = ts[j];
                    out[k++] = -(int64_t)step;
                }
                i = j + 1;
                continue;
            }
        }
        out[k++] = -(int64_t)ts[i++];
    }
    return k;
}

/* Entries of an encoded set: integers ending in a negative one. */
static uint32_t count_entries(const int64_t *v, uint32_t n)
{
    uint32_t e = 0;
    for (uint32_t i = 0; i < n; i++)
        e += v[i] < 0;
    return e;
}

int twpp_ts_write(twpp_buf *b, const twpp_seq *t, uint32_t nsymbols)
{
    uint32_t *count = calloc((size_t)nsymbols + 1, sizeof *count);
    uint32_t *start = malloc(((size_t)nsymbols + 1) * sizeof *start);
    uint32_t *ts = malloc(((size_t)t->n + 1) * sizeof *ts);
    int64_t *ints = malloc(((size_t)t->n + 1) * sizeof *ints);
    int rc = -1;
    if (!count || !start || !ts || !ints)
        goto done;
    uint32_t ndbb = 0;
    for (uint32_t i = 0; i < t->n; i++)
        ndbb += count[t->v[i]]++ == 0;
    /* bucket the timestamps by DBB, DBBs in increasing id */
    uint32_t at = 0;
    for (uint32_t s = 0; s < nsymbols; s++) {
        start[s] = at;
        at += count[s];
    }
    for (uint32_t i = 0; i < t->n; i++)
        ts[start[t->v[i]]++] = i + 1;
    buf_uv(b, t->n);
    buf_uv(b, ndbb);
    for (uint32_t s = 0, from = 0; s < nsymbols; from += count[s], s++) {
        if (!count[s])
            continue;
        uint32_t k = twpp_ts_encode(ts + from, count[s], ints);
        buf_uv(b, s);
        buf_uv(b, count_entries(ints, k));
        for (uint32_t i = 0; i < k; i++)
            buf_sv(b, ints[i]);
    }
    rc = b->err ? -1 : 0;
done:
    free(count);
    free(start);
    free(ts);
    free(ints);
    return rc;
}

/* Reads one entry into its bound, step; the first timestamp is l. */
static int read_entry(twpp_cur *c, int64_t *l, int64_t *h, int64_t *step)
{
    int64_t v[3];
    int k = 0;
    do {
        if (k == 3)
            return -1;
        v[k++] = cur_sv(c);
    } while (!c->bad && v[k - 1] >= 0);
    if (c->bad)
        return -1;
    v[k - 1] = -v[k - 1];
    *l = v[0];
    *h = k >= 2 ? v[1] : v[0];
    *step = k == 3 ? v[2] : 1;
    if (*l < 1 || *h < *l || *step < 1 || (*h - *l) % *step)
        return -1;
    return 0;
}

int twpp_ts_read(twpp_cur *c, uint32_t nsymbols, twpp_seq *t)
{
    uint64_t n = cur_uv(c, twpp_read_limit);
    uint64_t ndbb = cur_uv(c, n);
    t->v = NULL;
    t->n = 0;
    if (c->bad)
        return c->bad = 1, -1;
    if (!(t->v = malloc((n + 1) * sizeof *t->v)))
        return -1;
    t->n = (uint32_t)n;
    for (uint64_t i = 0; i < n; i++)
        t->v[i] = UINT32_MAX;    /* not taken */
    uint64_t taken = 0;
    for (uint64_t d = 0; d < ndbb && !c->bad; d++) {
        uint64_t id = cur_uv(c, nsymbols ? nsymbols - 1 : 0);
        uint64_t entries = cur_uv(c, n);
        for (uint64_t e = 0; e < entries && !c->bad; e++) {
            int64_t l, h, step;
            if (read_entry(c, &l, &h, &step) < 0 || (uint64_t)h > n) {
                c->bad = 1;
                break;
            }
            for (int64_t x = l; x <= h; x += step) {
                if (t->v[x - 1] != UINT32_MAX) {
                    c->bad = 1;
                    break;
                }
                t->v[x - 1] = (uint32_t)id;
                taken++;
            }
        }
    }
    if (!c->bad && taken != n)
        c->bad = 1;
    if (c->bad) {
        free(t->v);
        t->v = NULL;
        return -1;
    }
    return 0;
}
