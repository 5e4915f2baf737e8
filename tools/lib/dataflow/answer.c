/* answer.c: a fact's frequency at a block over a function's paths (answer.h). */
#include "dataflow/answer.h"

#include <stdlib.h>
#include <string.h>

#include "dataflow/table.h"
#include "dataflow/tscfg.h"

uint32_t *df_block_symbols(const twpp_model *m, const char *block, uint32_t *n)
{
    uint32_t *v = malloc(((size_t)m->nsymbols + 1) * sizeof *v);
    int by_addr = block[0] == '0' && block[1] == 'x';
    uint64_t addr = by_addr ? strtoull(block + 2, NULL, 16) : 0;
    *n = 0;
    for (uint32_t s = 0; v && s < m->nsymbols; s++)
        if (by_addr ? m->symbols[s].addr == addr
                    : m->symbols[s].where && !strcmp(m->symbols[s].where, block))
            v[(*n)++] = s;
    return v;
}

static int is_target(const uint32_t *targets, uint32_t n, uint32_t s)
{
    for (uint32_t i = 0; i < n; i++)
        if (targets[i] == s)
            return 1;
    return 0;
}

/* The last effect of symbols chain[0..n). */
static df_effect last_effect(const df_spec *d, const uint32_t *chain, uint32_t n)
{
    df_effect e = DF_NONE;
    for (uint32_t i = 0; i < n; i++) {
        df_effect x = df_spec_symbol(d, chain[i]);
        if (x != DF_NONE)
            e = x;
    }
    return e;
}

/* The forward walk's state over one expanded path. */
typedef struct forward {
    const df_spec *d;
    const uint32_t *targets;
    uint32_t n;
    df_effect state;            /* DF_NONE: nothing yet in this call */
    df_answer a;
} forward;

static int step_forward(void *ctx, uint32_t s)
{
    forward *w = ctx;
    if (is_target(w->targets, w->n, s)) {
        if (w->state == DF_GEN)
            w->a.holds++;
        else if (w->state == DF_KILL)
            w->a.fails++;
        else
            w->a.entry++;
    }
    df_effect e = df_spec_symbol(w->d, s);
    if (e != DF_NONE)
        w->state = e;
    return 0;
}

/* Path p's answer (one call's), added to out weighted by its calls. */
static int answer_path(const df_spec *d, const twpp_function *fn,
                       df_cfg *g, uint32_t p, const uint32_t *targets, uint32_t n,
                       int check, df_result *out)
{
    const twpp_seq *dict = &fn->dicts[fn->paths[p].dict];
    uint64_t calls = fn->paths[p].calls;
    uint8_t *effect = calloc(g->n + 1, 1);
    if (!effect)
        return -1;
    df_fact fact = { .effect = effect };
    for (uint32_t k = 0; k < g->n; k++) {
        const uint32_t *chain;
        uint32_t len, one;
        df_dict_chain(dict, g->nodes[k].dbb, &chain, &len, &one);
        effect[k] = (uint8_t)last_effect(d, chain, len);
    }
    int found = 0;
    for (uint32_t k = 0; k < g->n; k++) {
        const uint32_t *chain;
        uint32_t len, one;
        df_dict_chain(dict, g->nodes[k].dbb, &chain, &len, &one);
        for (uint32_t pos = 0; pos < len; pos++) {  /* a chain may hold several targets */
            if (!is_target(targets, n, chain[pos]))
                continue;
            df_answer a;
            if (df_query(g, &fact, k, NULL, 0, last_effect(d, chain, pos), &a) < 0) {
                free(effect);
                return -1;
            }
            found = 1;
            out->queries++;
            out->executions += g->nodes[k].count * calls;
            out->holds += a.holds * calls;
            out->fails += a.fails * calls;
            out->entry += a.entry * calls;
            out->steps += a.steps;
            if (a.max_vector > out->max_vector)
                out->max_vector = a.max_vector;
        }
    }
    out->paths += found;
    free(effect);
    if (check && found && fn->traces[fn->paths[p].trace].v) {     /* needs the traces whole */
        forward w = { .d = d, .targets = targets, .n = n };
        if (twpp_expand_path(&fn->traces[fn->paths[p].trace], dict, step_forward, &w) != 0)
            return -1;
        out->check.holds += w.a.holds * calls;
        out->check.fails += w.a.fails * calls;
        out->check.entry += w.a.entry * calls;
    }
    return 0;
}

/* Context of by_trace (qsort has none). */
static const twpp_path *sort_paths;

static int by_trace(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t tx = sort_paths[x].trace, ty = sort_paths[y].trace;
    return tx != ty ? (tx < ty ? -1 : 1) : (x < y ? -1 : x > y);
}

int df_answer_at(const twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                 int check, df_result *out)
{
    const twpp_model *m = twpp_file_model(f);
    const twpp_function *fn = &m->functions[d->fn];
    uint32_t *order = malloc(((size_t)fn->npaths + 1) * sizeof *order);
    uint32_t *index = calloc((size_t)m->nsymbols + 1, sizeof *index);
    int rc = order && index ? 0 : -1;
    memset(out, 0, sizeof *out);
    /* The paths by compacted trace: one annotated CFG at a time. */
    for (uint32_t p = 0; p < fn->npaths && order; p++)
        order[p] = p;
    sort_paths = fn->paths;
    if (rc == 0)
        qsort(order, fn->npaths, sizeof *order, by_trace);
    df_cfg g = { 0 };
    int64_t built = -1;
    for (uint32_t i = 0; i < fn->npaths && rc == 0; i++) {
        uint32_t p = order[i], t = fn->paths[p].trace;
        if ((int64_t)t != built) {
            df_cfg_free(&g);
            rc = fn->series ? df_cfg_from_series(&fn->series[t], &g)   /* read as series */
                            : df_cfg_build_with(&fn->traces[t], index, &g);
            if (rc < 0)
                break;
            built = t;
        }
        rc = answer_path(d, fn, &g, p, targets, n, check, out);
    }
    df_cfg_free(&g);
    free(order);
    free(index);
    return rc;
}
