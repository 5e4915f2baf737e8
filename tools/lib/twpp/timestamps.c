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

/* Writes a DBB's entries as stored: each entry's l as the distance from
 * the previous entry's last timestamp (0 before the first), its h as the
 * distance from l, its step as it is; the last integer still negated.
 * The distances repeat where the timestamps grow, which zstd then packs. */
static void write_relative(twpp_buf *b, const int64_t *ints, uint32_t k)
{
    int64_t prev = 0;
    for (uint32_t i = 0; i < k;) {
        uint32_t m = 1;
        while (ints[i + m - 1] >= 0)
            m++;
        int64_t l = m == 1 ? -ints[i] : ints[i];
        int64_t h = m == 1 ? l : m == 2 ? -ints[i + 1] : ints[i + 1];
        if (m == 1) {
            buf_sv(b, -(l - prev));
        } else if (m == 2) {
            buf_sv(b, l - prev);
            buf_sv(b, -(h - l));
        } else {
            buf_sv(b, l - prev);
            buf_sv(b, h - l);
            buf_sv(b, ints[i + 2]);
        }
        prev = h;
        i += m;
    }
}

int twpp_ts_form(const twpp_seq *t, uint32_t nsymbols, twpp_dbb_fn fn, void *ctx)
{
    uint32_t *count = calloc((size_t)nsymbols + 1, sizeof *count);
    uint32_t *start = malloc(((size_t)nsymbols + 1) * sizeof *start);
    uint32_t *ts = malloc(((size_t)t->n + 1) * sizeof *ts);
    int64_t *ints = malloc(((size_t)t->n + 1) * sizeof *ints);
    int rc = -1;
    if (!count || !start || !ts || !ints)
        goto done;
    for (uint32_t i = 0; i < t->n; i++)
        count[t->v[i]]++;
    /* bucket the timestamps by DBB, DBBs in increasing id */
    uint32_t at = 0;
    for (uint32_t s = 0; s < nsymbols; s++) {
        start[s] = at;
        at += count[s];
    }
    for (uint32_t i = 0; i < t->n; i++)
        ts[start[t->v[i]]++] = i + 1;
    rc = 0;
    for (uint32_t s = 0, from = 0; s < nsymbols && rc == 0; from += count[s], s++)
        if (count[s])
            rc = fn(ctx, s, ints, twpp_ts_encode(ts + from, count[s], ints));
done:
    free(count);
    free(start);
    free(ts);
    free(ints);
    return rc;
}

/* twpp_ts_form's callback for twpp_ts_write: one DBB as stored. */
static int write_dbb(void *ctx, uint32_t dbb, const int64_t *ints, uint32_t k)
{
    twpp_buf *b = ctx;
    buf_uv(b, dbb);
    buf_uv(b, count_entries(ints, k));
    write_relative(b, ints, k);
    return b->err ? -1 : 0;
}

int twpp_ts_write(twpp_buf *b, const twpp_seq *t, uint32_t nsymbols)
{
    uint8_t *seen = calloc((size_t)nsymbols + 1, 1);
    uint32_t ndbb = 0;
    if (!seen)
        return -1;
    for (uint32_t i = 0; i < t->n; i++)
        if (!seen[t->v[i]]) {
            seen[t->v[i]] = 1;
            ndbb++;
        }
    free(seen);
    buf_uv(b, t->n);
    buf_uv(b, ndbb);
    return twpp_ts_form(t, nsymbols, write_dbb, b) || b->err ? -1 : 0;
}

/* Reads one stored entry after the timestamp prev (see write_relative):
 * its first timestamp, its last and its step. 0, or -1 when corrupt. */
static int read_entry(twpp_cur *c, int64_t prev, int64_t *l, int64_t *h, int64_t *step)
{
    int64_t v[3];
    int k = 0;
    do {
        if (k == 3)
            return -1;
        v[k++] = cur_sv(c);
    } while (!c->bad && v[k - 1] >= 0);
    if (c->bad || v[k - 1] == INT64_MIN)
        return -1;
    v[k - 1] = -v[k - 1];
    if (v[0] < 1 || v[0] > INT32_MAX || (k >= 2 && (v[1] < 1 || v[1] > INT32_MAX)))
        return -1;
    *l = prev + v[0];
    *h = k >= 2 ? *l + v[1] : *l;
    *step = k == 3 ? v[2] : 1;
    if (*step < 1 || (*h - *l) % *step)
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
        int64_t prev = 0;
        for (uint64_t e = 0; e < entries && !c->bad; e++) {
            int64_t l, h, step;
            if (read_entry(c, prev, &l, &h, &step) < 0 || (uint64_t)h > n) {
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
            prev = h;
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

int twpp_ts_skim(twpp_cur *c, uint32_t nsymbols, twpp_seq *counts)
{
    uint64_t n = cur_uv(c, twpp_read_limit);
    uint64_t ndbb = cur_uv(c, n);
    uint64_t taken = 0;
    int64_t last_id = -1;
    counts->v = NULL;
    counts->n = 0;
    if (c->bad || !(counts->v = malloc((2 * ndbb + 1) * sizeof *counts->v)))
        return c->bad = 1, -1;
    counts->v[counts->n++] = (uint32_t)n;
    for (uint64_t d = 0; d < ndbb && !c->bad; d++) {
        uint64_t id = cur_uv(c, nsymbols ? nsymbols - 1 : 0);
        uint64_t entries = cur_uv(c, n), times = 0;
        int64_t prev = 0;
        if ((int64_t)id <= last_id)
            c->bad = 1;
        last_id = (int64_t)id;
        for (uint64_t e = 0; e < entries && !c->bad; e++) {
            int64_t l, h, step;
            if (read_entry(c, prev, &l, &h, &step) < 0 || (uint64_t)h > n) {
                c->bad = 1;
                break;
            }
            times += (uint64_t)((h - l) / step + 1);
            prev = h;
        }
        counts->v[counts->n++] = (uint32_t)id;
        counts->v[counts->n++] = (uint32_t)times;
        taken += times;
    }
    if (!c->bad && taken != n)
        c->bad = 1;
    if (c->bad) {
        free(counts->v);
        counts->v = NULL;
        return -1;
    }
    return 0;
}
