/* column.c: a dependence column read a batch at a time (column.h). */
#include "twpp/column.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

#define NOT_KEPT UINT32_MAX

int twpp_column_init(twpp_column *c, const sq_grammar *g)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->total = sq_expanded_length(g, 0);
    /* A batch ends only outside a small rule being kept, so it overshoots
     * TWPP_TERM_BATCH by less than one small rule. */
    c->term = malloc((TWPP_TERM_BATCH + TWPP_SMALL_RULE) * sizeof *c->term);
    c->kept = calloc((size_t)sq_rule_count(g) + 1, sizeof *c->kept);
    if (!c->term || !c->kept || ARRAY_FIT(c->stack, c->cap, 1) < 0)
        return -1;
    c->stack[c->depth++] = (twpp_col_frame){ sq_rule_body(g, 0), 0, sq_rule_length(g, 0), NOT_KEPT, 0 };
    return 0;
}

void twpp_column_free(twpp_column *c)
{
    free(c->stack);
    free(c->kept);
    free(c->pool);
    free(c->term);
    memset(c, 0, sizeof *c);
}

/* Small rule r's expansion, just written to term[from, to), kept for its
 * later uses (out of memory: it is walked again next time, no harm). */
static void keep(twpp_column *c, uint32_t r, size_t from, size_t to)
{
    size_t len = to - from;
    if (ARRAY_FIT(c->pool, c->pool_cap, c->npool + len) < 0)
        return;
    memcpy(c->pool + c->npool, c->term + from, len * sizeof *c->pool);
    c->kept[r] = (uint32_t)c->npool + 1;
    c->npool += len;
}

/* The next batch of terminals into term: about TWPP_TERM_BATCH, fewer
 * at the end (none: the grammar is spent). 0, or -1 when out of memory. */
static int refill(twpp_column *c)
{
    const sq_grammar *g = c->g;
    size_t n = 0;
    while (c->depth) {
        if (n >= TWPP_TERM_BATCH && !c->keeping)
            break;
        twpp_col_frame *f = &c->stack[c->depth - 1];
        if (f->pos == f->len) {
            if (f->keep_from != NOT_KEPT) {
                keep(c, f->rule, f->keep_from, n);
                c->keeping--;
            }
            c->depth--;
            continue;
        }
        uint64_t code = f->body[f->pos++];
        if (!sq_is_rule(code)) {
            c->term[n++] = sq_code_value(code);
            continue;
        }
        uint32_t r = (uint32_t)sq_code_value(code);
        uint64_t len = sq_expanded_length(g, r);
        if (c->kept[r]) {               /* a small rule met before: one copy */
            memcpy(c->term + n, c->pool + c->kept[r] - 1, len * sizeof *c->term);
            n += len;
            continue;
        }
        if (ARRAY_FIT(c->stack, c->cap, c->depth + 1) < 0)
            return -1;
        int small = len <= TWPP_SMALL_RULE && c->npool + len < UINT32_MAX;
        c->stack[c->depth++] = (twpp_col_frame){ sq_rule_body(g, r), 0, sq_rule_length(g, r),
                                                 small ? (uint32_t)n : NOT_KEPT, r };
        c->keeping += small;
    }
    c->nterm = n;
    c->at = 0;
    return 0;
}

int64_t twpp_column_values(twpp_column *c, uint64_t *v, size_t want)
{
    twpp_rep *r = &c->rep;
    size_t k = 0;
    while (k < want) {
        if (r->m) {                     /* a pending copy: as much of it as fits */
            size_t n = r->m < want - k ? (size_t)r->m : want - k;
            r->m -= n;
            for (size_t i = 0; i < n; i++) {
                uint64_t x = twpp_rep_back(r, r->p);
                twpp_rep_push(r, x);
                v[k++] = x;
            }
            continue;
        }
        if (c->at == c->nterm && (refill(c) < 0 || c->nterm == 0))
            return -1;                  /* out of memory, or the column ran dry */
        uint64_t t = c->term[c->at++];
        c->consumed++;
        if ((t & 3) == 0) {             /* a value */
            twpp_rep_push(r, t >> 2);
            v[k++] = t >> 2;
            continue;
        }
        r->p = (uint32_t)((t >> 2) & 7) + 1;    /* a copy: m values, each p back */
        r->m = t >> 5;
        if ((t & 3) != 1 || r->m == 0 || r->p > r->n)
            return -1;
    }
    return (int64_t)k;
}

int twpp_column_spent(const twpp_column *c) { return c->consumed == c->total && !c->rep.m; }
