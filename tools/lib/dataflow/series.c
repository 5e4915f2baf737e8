/* series.c: arithmetic series of timestamps (series.h). */
#include "dataflow/series.h"

#include <stdlib.h>

#include "twpp/timestamps.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The inverse of a modulo m (a and m coprime, m >= 1), by extended Euclid. */
static uint64_t inverse(uint64_t a, uint64_t m)
{
    int64_t t = 0, nt = 1;
    int64_t r = (int64_t)m, nr = (int64_t)(a % m);
    while (nr) {
        int64_t q = r / nr, x;
        x = t - q * nt; t = nt; nt = x;
        x = r - q * nr; r = nr; nr = x;
    }
    return (uint64_t)(t < 0 ? t + (int64_t)m : t);
}

int df_series_intersect(const df_series *a, const df_series *b, df_series *out)
{
    uint64_t lo = a->l > b->l ? a->l : b->l, hi = a->h < b->h ? a->h : b->h;
    if (lo > hi)
        return 0;
    /* x = a.l (mod a.s) and x = b.l (mod b.s): by the Chinese remainder
     * theorem a solution exists iff g divides the difference. */
    uint64_t p = a->s, q = b->s, g = gcd(p, q);
    uint64_t diff = (b->l + q * ((uint64_t)a->l / q + 1) - a->l) % q;   /* (b.l - a.l) mod q, >= 0 */
    if (diff % g)
        return 0;
    uint64_t qg = q / g;
    uint64_t k = qg == 1 ? 0 : (unsigned __int128)(diff / g) * inverse((p / g) % qg, qg) % qg;
    unsigned __int128 step = (unsigned __int128)p * qg;          /* lcm(p, q) */
    unsigned __int128 x = (unsigned __int128)a->l + (unsigned __int128)p * k;  /* a solution */
    if (x < lo)
        x += (lo - x + step - 1) / step * step;
    else if (x - lo >= step)
        x -= (x - lo) / step * step;
    if (x > hi)
        return 0;
    uint64_t last = (uint64_t)(x + (hi - x) / step * step);
    *out = (df_series){ (uint32_t)x, (uint32_t)last, last == x ? 1 : (uint32_t)step };
    return 1;
}

int64_t df_series_decode(const int64_t *ints, uint32_t n, df_series *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t m = 1;
        while (i + m - 1 < n && ints[i + m - 1] > 0)
            m++;
        if (i + m - 1 >= n || m > 3)
            return -1;          /* no negative integer ends the entry */
        int64_t v[3] = { 0, 0, 0 };
        for (uint32_t j = 0; j < m; j++)
            v[j] = ints[i + j];
        v[m - 1] = -v[m - 1];
        df_series x = { (uint32_t)v[0], (uint32_t)(m == 1 ? v[0] : v[1]),
                        (uint32_t)(m == 3 ? v[2] : 1) };
        if (v[0] < 1 || v[0] > UINT32_MAX || v[m > 1] > UINT32_MAX || x.h < x.l || !x.s ||
            (x.h - x.l) % x.s)
            return -1;
        out[k++] = x;
        i += m;
    }
    return k;
}

uint32_t df_series_from(const uint32_t *ts, uint32_t n, df_series *out)
{
    int64_t *ints = n ? malloc(n * sizeof *ints) : NULL;
    if (n && !ints) {
        for (uint32_t i = 0; i < n; i++)      /* out of memory: singletons are exact too */
            out[i] = (df_series){ ts[i], ts[i], 1 };
        return n;
    }
    uint32_t k = twpp_ts_encode(ts, n, ints);
    int64_t e = df_series_decode(ints, k, out);
    free(ints);
    return (uint32_t)e;
}

int df_series_match(const df_series *list, uint32_t n, const df_series *x,
                    df_series_fn fn, void *ctx)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {           /* the first entry ending at or after x->l */
        uint32_t mid = lo + (hi - lo) / 2;
        if (list[mid].h < x->l)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < n && list[i].l <= x->h; i++) {
        df_series piece;
        int rc;
        if (df_series_intersect(&list[i], x, &piece) && (rc = fn(ctx, &piece, i)))
            return rc;
    }
    return 0;
}
