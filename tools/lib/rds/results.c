/* results.c: the profile's types and instances (see results.h). */
#include <stdlib.h>
#include "base/array.h"
#include "rds/results.h"

const char *rds_pattern_name(int pattern)
{
    return pattern == RDS_PATTERN_DEPTH ? "depth-first"
         : pattern == RDS_PATTERN_BREADTH ? "breadth-first" : "none";
}

/* The type of SCC representative `component`, made when first seen. */
static int type_of(rds_results *r, size_t *cap, uint32_t component)
{
    for (size_t t = 0; t < r->ntypes; t++)
        if (r->types[t].component == component)
            return (int)t;
    if (ARRAY_FIT(r->types, *cap, r->ntypes + 1))
        return -1;
    r->types[r->ntypes].component = component;
    return (int)r->ntypes++;
}

static void view_instance(rds_inst_view *v, const rds_instance *in,
                          uint64_t extent)
{
    v->in = in;
    v->end = in->last_traversal ? in->last_traversal : in->last_change;
    v->lifetime = v->end > in->birth ? v->end - in->birth : 0;
    v->norm_lifetime = extent ? (double)v->lifetime / (double)extent : 0;
    if (v->norm_lifetime > 1)
        v->norm_lifetime = 1;
    v->avg_latency = in->traversals ? (double)in->latency / (double)in->traversals : 0;
    v->pattern = in->depth_steps > in->breadth_steps ? RDS_PATTERN_DEPTH
               : in->breadth_steps > in->depth_steps ? RDS_PATTERN_BREADTH
               : RDS_PATTERN_NONE;
}

/* Each type's sites: every site whose SCC is the type's. */
static int collect_sites(rds_results *r, rds *p)
{
    for (uint32_t s = 0; s < rds_nsites(p); s++) {
        if (!rds_site_cyclic(p, s))
            continue;
        uint32_t c = rds_site_component(p, s);
        for (size_t t = 0; t < r->ntypes; t++) {
            rds_type_view *tv = &r->types[t];
            if (tv->component != c)
                continue;
            uint32_t *grown = realloc(tv->sites, (tv->nsites + 1) * sizeof *grown);
            if (!grown)
                return -1;
            tv->sites = grown;
            tv->sites[tv->nsites++] = s;
        }
    }
    return 0;
}

int rds_results_build(rds_results *r, rds *p, uint64_t run_start,
                      uint64_t run_end)
{
    size_t cap_inst = 0, cap_types = 0;
    *r = (rds_results){ .run_start = run_start, .run_end = run_end };
    uint64_t extent = run_end > run_start ? run_end - run_start : 0;
    for (size_t i = 0; i < rds_ninstances(p); i++) {
        const rds_instance *in = rds_get_instance(p, i);
        if (in->merged_into != RDS_NONE)
            continue;
        int t = type_of(r, &cap_types, rds_instance_type(p, in));
        if (t < 0 || ARRAY_FIT(r->inst, cap_inst, r->ninst + 1))
            return -1;
        rds_inst_view *v = &r->inst[r->ninst++];
        view_instance(v, in, extent);
        v->type = (uint32_t)t;
        rds_type_view *tv = &r->types[t];
        tv->instances++;
        tv->nodes += in->nodes;
        tv->edges += in->edges;
        tv->forward_edges += in->forward_edges;
        tv->backward_edges += in->backward_edges;
        tv->traversals += in->traversals;
        tv->latency += in->latency;
        tv->sum_norm_lifetime += v->norm_lifetime;
    }
    return collect_sites(r, p);
}

void rds_results_free(rds_results *r)
{
    for (size_t t = 0; t < r->ntypes; t++)
        free(r->types[t].sites);
    free(r->types);
    free(r->inst);
    *r = (rds_results){ 0 };
}
