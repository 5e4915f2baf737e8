/* run.c: the dependence baselines over one trace; see run.h. */
#include "deps/run.h"

#include <inttypes.h>
#include <stdlib.h>

#include "base/array.h"
#include "base/symbolize.h"
#include "deps/deps_store.h"
#include "deps/stride.h"
#include "objects/objrel.h"

struct deps_run {
    const mr_reader *reader;
    deps_method method;
    access_stream *stream;      /* without strides: the accesses alone */
    objrel *rel;                /* with strides: the accesses and objects */
    deps *profiler;
    stride_prof *strides;
    uint64_t accesses;
    deps_pair *pairs;
    uint32_t npairs, nstrides;
    stride_info *stride_results;
    uint64_t *anchor;           /* per stack serial: 1 + where its window
                                 * began (0: not seen yet) */
    size_t cap_anchor;
};

deps_run *deps_run_new(const mr_reader *r, deps_method method, uint32_t window,
                       int strides, uint32_t group_depth)
{
    deps_run *d = calloc(1, sizeof *d);
    objmap_options mo = { .group_depth = group_depth, .reader = r };
    if (!d)
        return NULL;
    d->reader = r;
    d->method = method;
    d->profiler = deps_new(method, window);
    if (strides) {
        d->rel = objrel_new(&mo, 0);
        d->strides = stride_new();
    } else {
        d->stream = access_stream_new(0);
    }
    if (!d->profiler || (strides ? !d->rel || !d->strides : !d->stream)) {
        deps_run_free(d);
        return NULL;
    }
    return d;
}

void deps_run_free(deps_run *d)
{
    if (!d)
        return;
    free(d->pairs);
    free(d->stride_results);
    free(d->anchor);
    stride_free(d->strides);
    deps_free(d->profiler);
    objrel_free(d->rel);
    access_stream_free(d->stream);
    free(d);
}

const char *deps_run_method(const deps_run *d)
{
    return d->method == DEPS_EXACT ? "exact" : "connors";
}

static const insn_table *insns_of(const deps_run *d)
{
    return access_stream_insns(d->rel ? objrel_stream(d->rel) : d->stream);
}

/* The offset of addr in obj, a stack's from where its window first began,
 * as trace-leap takes it (leap_feed.c): the window moves as the stack
 * deepens, and a step between two accesses must be their distance. -1
 * when out of memory. */
static int offset_in(deps_run *d, const obj_object *obj, uint64_t addr,
                     uint64_t *offset)
{
    if (obj->group->kind != OBJ_STACK) {
        *offset = addr - obj->addr;
        return 0;
    }
    if (ARRAY_FIT(d->anchor, d->cap_anchor, obj->serial + 1) < 0)
        return -1;
    if (!d->anchor[obj->serial])
        d->anchor[obj->serial] = obj->addr + 1;
    *offset = addr - (d->anchor[obj->serial] - 1);
    return 0;
}

int deps_run_event(deps_run *d, const mr_event *ev)
{
    access_exec x;
    int rc = d->rel ? objrel_event(d->rel, ev, &x) : access_stream_exec(d->stream, ev, &x);
    if (rc <= 0)
        return rc;
    for (uint32_t i = 0; i < x.n; i++) {
        const mr_access *a = &x.acc[i];
        if (deps_access(d->profiler, x.insn[i], a->kind, a->size, a->addr) < 0)
            return -1;
        if (!d->rel)
            continue;
        obj_object *obj = objrel_find(d->rel, &x, i, a->addr);
        uint64_t off;
        if (offset_in(d, obj, a->addr, &off) < 0 ||
            stride_access(d->strides, x.insn[i], obj->group->id, obj->serial, off) < 0)
            return -1;
    }
    d->accesses += x.n;
    return 0;
}

int deps_run_finish(deps_run *d)
{
    if (deps_pairs(d->profiler, &d->pairs, &d->npairs) < 0)
        return -1;
    return d->strides ? stride_results(d->strides, &d->stride_results, &d->nstrides) : 0;
}

int deps_run_print(deps_run *d, FILE *out)
{
    char a[SYM_BUF + 64], b[SYM_BUF + 64];
    const insn_table *insns = insns_of(d);
    uint32_t inexact = 0;       /* histograms past the bound (stride.h) */
    for (uint32_t i = 0; i < d->nstrides; i++)
        inexact += d->stride_results[i].error != 0;
    fprintf(out, "summary\taccesses %" PRIu64 "\tmethod %s\tmemory_bytes %" PRIu64
                 "\tstrides_bounded %" PRIu32 "\n",
            d->accesses, deps_run_method(d), deps_memory(d->profiler), inexact);
    for (uint32_t i = 0; i < d->npairs; i++) {
        const deps_pair *p = &d->pairs[i];
        uint64_t execs = deps_load_executions(d->profiler, p->load);
        fprintf(out, "dep\t%s\t%s\t%.4f\t%" PRIu64 "\t%" PRIu64 "\n",
                insn_table_text(insns, d->reader, p->store, a, sizeof a),
                insn_table_text(insns, d->reader, p->load, b, sizeof b),
                (double)p->conflicts / (double)execs, p->conflicts, execs);
    }
    for (uint32_t i = 0; i < d->nstrides; i++) {
        const stride_info *s = &d->stride_results[i];
        if (s->steps)
            fprintf(out, "stride\t%s\t%" PRId64 "\t%.4f\t%" PRIu64 "\t%s\n",
                    insn_table_text(insns, d->reader, s->insn, a, sizeof a),
                    s->stride, s->share, s->steps, s->strongly ? "strongly" : "weakly");
    }
    return ferror(out) ? -1 : 0;
}

int deps_run_store(deps_run *d, pdb *db, int64_t run)
{
    return deps_store(db, run, d->reader, insns_of(d), deps_run_method(d), d->profiler,
                      d->pairs, d->npairs, d->stride_results, d->nstrides);
}
