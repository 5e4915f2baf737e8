/* answer.c: a fact's frequency at a block over a function's paths (answer.h). */
#include "dataflow/answer.h"

#include <stdlib.h>
#include <string.h>

#include "dataflow/table.h"
#include "dataflow/tscfg.h"

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
                       const df_cfg *g, uint32_t p, const uint32_t *targets, uint32_t n,
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
    if (check && found) {
        forward w = { .d = d, .targets = targets, .n = n };
        if (twpp_expand_path(&fn->traces[fn->paths[p].trace], dict, step_forward, &w) != 0)
            return -1;
        out->check.holds += w.a.holds * calls;
        out->check.fails += w.a.fails * calls;
        out->check.entry += w.a.entry * calls;
    }
    return 0;
}

int df_answer_at(const twpp_file *f, const df_spec *d, const uint32_t *targets, uint32_t n,
                 int check, df_result *out)
{
    const twpp_model *m = twpp_file_model(f);
    const twpp_function *fn = &m->functions[d->fn];
    df_cfg *g = calloc(fn->ntraces + 1, sizeof *g);
    uint8_t *built = calloc(fn->ntraces + 1, 1);
    int rc = g && built ? 0 : -1;
    memset(out, 0, sizeof *out);
    for (uint32_t p = 0; p < fn->npaths && rc == 0; p++) {
        uint32_t t = fn->paths[p].trace;
        if (!built[t] && (rc = df_cfg_build(&fn->traces[t], m->nsymbols, &g[t])) < 0)
            break;
        built[t] = 1;
        rc = answer_path(d, fn, &g[t], p, targets, n, check, out);
    }
    for (uint32_t t = 0; g && built && t < fn->ntraces; t++)
        if (built[t])
            df_cfg_free(&g[t]);
    free(g);
    free(built);
    return rc;
}
