/* timestamps.c: TWPP's timestamped form and its series (timestamps.h). */
#include "twpp/timestamps.h"

#include <stdlib.h>
#include <string.h>

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
    int64_t *ints = NULL;
    uint32_t most = 0;          /* the most timestamps of one DBB */
    int rc = -1;
    if (!count || !start || !ts)
        goto done;
    for (uint32_t i = 0; i < t->n; i++)
        count[t->v[i]]++;
    for (uint32_t s = 0; s < nsymbols; s++)
        most = count[s] > most ? count[s] : most;
    /* one DBB's entries at a time: sized for the trace, the 8-byte
     * integers were the peak of a build (zstd -19: 66 MB for one trace) */
    if (!(ints = malloc(((size_t)most + 1) * sizeof *ints)))
        goto done;
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

/* twpp_ts_write's two parts: the DBBs with their timestamp counts, and
 * their entries. */
typedef struct ts_parts {
    twpp_buf head, entries;
} ts_parts;

/* twpp_ts_form's callback for twpp_ts_write: one DBB as stored. */
static int write_dbb(void *ctx, uint32_t dbb, const int64_t *ints, uint32_t k)
{
    ts_parts *t = ctx;
    uint64_t times = 0;
    for (uint32_t i = 0; i < k;) {      /* the timestamps its entries stand for */
        uint32_t m = 1;
        while (ints[i + m - 1] >= 0)
            m++;
        int64_t l = m == 1 ? -ints[i] : ints[i];
        int64_t h = m == 1 ? l : m == 2 ? -ints[i + 1] : ints[i + 1];
        int64_t step = m == 3 ? -ints[i + 2] : 1;
        times += (uint64_t)((h - l) / step + 1);
        i += m;
    }
    buf_uv(&t->head, dbb);
    buf_uv(&t->head, times);
    buf_uv(&t->entries, count_entries(ints, k));
    write_relative(&t->entries, ints, k);
    return t->head.err || t->entries.err ? -1 : 0;
}

int twpp_ts_write(twpp_buf *b, const twpp_seq *t, uint32_t nsymbols)
{
    uint8_t *seen = calloc((size_t)nsymbols + 1, 1);
    uint32_t ndbb = 0;
    ts_parts parts = { { 0 }, { 0 } };
    if (!seen)
        return -1;
    for (uint32_t i = 0; i < t->n; i++)
        if (!seen[t->v[i]]) {
            seen[t->v[i]] = 1;
            ndbb++;
        }
    free(seen);
    int rc = twpp_ts_form(t, nsymbols, write_dbb, &parts);
    buf_uv(b, t->n);
    buf_uv(b, ndbb);
    buf_bytes(b, parts.head.p, parts.head.n);
    buf_uv(b, parts.entries.n);
    buf_bytes(b, parts.entries.p, parts.entries.n);
    free(parts.head.p);
    free(parts.entries.p);
    return rc || b->err ? -1 : 0;
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

/* The head of a stored trace: length, DBBs with their timestamp counts
 * (ids increasing, below nsymbols; the counts sum to the length), and
 * the byte length of the entries after it; *pairs malloc'd [id, count]
 * per DBB. 0, or -1 with c->bad set. */
static int read_head(twpp_cur *c, uint32_t nsymbols, uint64_t *n, uint64_t *ndbb,
                     uint32_t **pairs, uint64_t *bytes)
{
    *n = cur_uv(c, twpp_read_limit);
    *ndbb = cur_uv(c, *n);
    *pairs = NULL;
    if (c->bad || !(*pairs = malloc((2 * *ndbb + 1) * sizeof **pairs)))
        return c->bad = 1, -1;
    uint64_t taken = 0;
    int64_t last = -1;
    for (uint64_t d = 0; d < *ndbb && !c->bad; d++) {
        uint64_t id = cur_uv(c, nsymbols ? nsymbols - 1 : 0), times = cur_uv(c, *n - taken);
        if ((int64_t)id <= last || times == 0)
            c->bad = 1;
        last = (int64_t)id;
        taken += times;
        (*pairs)[2 * d] = (uint32_t)id;
        (*pairs)[2 * d + 1] = (uint32_t)times;
    }
    *bytes = cur_uv(c, (uint64_t)(c->end - c->p));
    if (!c->bad && taken != *n)
        c->bad = 1;
    if (c->bad) {
        free(*pairs);
        *pairs = NULL;
        return -1;
    }
    return 0;
}

int twpp_ts_read(twpp_cur *c, uint32_t nsymbols, twpp_seq *t)
{
    twpp_seq s;
    t->v = NULL;
    t->n = 0;
    /* the series, checked but for their overlaps, expanded here */
    if (twpp_ts_series(c, nsymbols, &s) < 0)
        return -1;
    uint32_t n = s.v[0], ndbb = s.v[1], k = 2;
    if (!(t->v = malloc(((uint64_t)n + 1) * sizeof *t->v))) {
        free(s.v);
        return -1;
    }
    t->n = n;
    for (uint32_t i = 0; i < n; i++)
        t->v[i] = UINT32_MAX;    /* not taken */
    for (uint32_t d = 0; d < ndbb && !c->bad; d++) {
        uint32_t id = s.v[k], entries = s.v[k + 2];
        k += 3;
        for (uint32_t e = 0; e < entries && !c->bad; e++, k += 3)
            for (uint64_t x = s.v[k]; x <= s.v[k + 1] && !c->bad; x += s.v[k + 2]) {
                c->bad = t->v[x - 1] != UINT32_MAX;   /* taken twice */
                t->v[x - 1] = id;
            }
    }
    free(s.v);
    if (c->bad) {
        free(t->v);
        t->v = NULL;
        t->n = 0;
        return -1;
    }
    return 0;
}

int twpp_ts_skim(twpp_cur *c, uint32_t nsymbols, twpp_seq *counts)
{
    uint64_t n, ndbb, bytes;
    uint32_t *pairs;
    counts->v = NULL;
    counts->n = 0;
    if (read_head(c, nsymbols, &n, &ndbb, &pairs, &bytes) < 0)
        return -1;
    if (!(counts->v = malloc((2 * ndbb + 1) * sizeof *counts->v))) {
        free(pairs);
        return c->bad = 1, -1;
    }
    counts->v[0] = (uint32_t)n;
    memcpy(counts->v + 1, pairs, 2 * ndbb * sizeof *pairs);
    counts->n = (uint32_t)(2 * ndbb + 1);
    free(pairs);
    c->p += bytes;              /* the entries, not read: read_head bounded bytes */
    return 0;
}

int twpp_ts_series(twpp_cur *c, uint32_t nsymbols, twpp_seq *s)
{
    uint64_t n, ndbb, bytes;
    uint32_t *pairs;
    s->v = NULL;
    s->n = 0;
    if (read_head(c, nsymbols, &n, &ndbb, &pairs, &bytes) < 0)
        return -1;
    /* every entry takes a byte at least: the room is known */
    const uint8_t *end = c->p + bytes;
    uint64_t room = 2 + 3 * ndbb + 3 * bytes;
    if (room > UINT32_MAX || !(s->v = malloc(room * sizeof *s->v))) {
        free(pairs);
        return c->bad = 1, -1;
    }
    uint32_t k = 0;
    s->v[k++] = (uint32_t)n;
    s->v[k++] = (uint32_t)ndbb;
    for (uint64_t d = 0; d < ndbb && !c->bad; d++) {
        uint64_t want = pairs[2 * d + 1], times = 0;
        uint64_t entries = cur_uv(c, (uint64_t)(end - c->p));
        int64_t prev = 0;
        s->v[k++] = pairs[2 * d];
        s->v[k++] = (uint32_t)want;
        s->v[k++] = (uint32_t)entries;
        for (uint64_t e = 0; e < entries && !c->bad; e++) {
            int64_t l, h, step;
            if (read_entry(c, prev, &l, &h, &step) < 0 || (uint64_t)h > n || c->p > end) {
                c->bad = 1;
                break;
            }
            s->v[k++] = (uint32_t)l;
            s->v[k++] = (uint32_t)h;
            s->v[k++] = (uint32_t)step;
            times += (uint64_t)((h - l) / step) + 1;
            prev = h;
        }
        if (times != want)          /* the head's count, checked */
            c->bad = 1;
    }
    free(pairs);
    if (!c->bad && c->p != end)     /* the entries' byte length, checked */
        c->bad = 1;
    if (c->bad) {
        free(s->v);
        s->v = NULL;
        return -1;
    }
    s->n = k;
    return 0;
}
