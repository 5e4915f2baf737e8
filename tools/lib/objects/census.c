/* census.c: accesses counted by the kind of memory they hit; see census.h. */
#include "objects/census.h"

#include <inttypes.h>
#include <stdlib.h>

#include "objects/objrel.h"

struct obj_census {
    objrel *rel;
    uint64_t by_kind[4];    /* accesses by obj_kind */
    uint64_t offsets;       /* sum of offsets: the offset is used, as a
                             * profile would use it */
};

obj_census *obj_census_new(const objmap_options *mo)
{
    obj_census *c = calloc(1, sizeof *c);
    if (!c || !(c->rel = objrel_new(mo, 0))) {
        free(c);
        return NULL;
    }
    return c;
}

void obj_census_free(obj_census *c)
{
    if (c)
        objrel_free(c->rel);
    free(c);
}

int obj_census_event(obj_census *c, const mr_event *ev)
{
    access_exec x;
    int rc = objrel_event(c->rel, ev, &x);
    if (rc <= 0)
        return rc;
    if (x.repeat == 1) {    /* the common case, without the batch's arithmetic */
        for (uint32_t i = 0; i < x.n; i++) {
            obj_object *o = objrel_find(c->rel, &x, i, x.acc[i].addr);
            c->by_kind[o->group->kind]++;
            c->offsets += x.acc[i].addr - o->addr;
        }
        return 0;
    }
    for (uint64_t j = 0; j < x.repeat; j++)
        for (uint32_t i = 0; i < x.n; i++) {
            uint64_t addr = x.acc[i].addr + j * x.strides[i];
            obj_object *o = objrel_find(c->rel, &x, i, addr);
            c->by_kind[o->group->kind]++;
            c->offsets += addr - o->addr;
        }
    return 0;
}

void obj_census_print(obj_census *c, FILE *out)
{
    objmap *m = objrel_map(c->rel);
    objrel_finish(c->rel);
    const uint64_t *k = c->by_kind;
    const objmap_stats *st = objmap_get_stats(m);
    fprintf(out, "accesses %" PRIu64 ": heap %" PRIu64 ", static %" PRIu64
            ", stack %" PRIu64 ", unknown %" PRIu64 "\n",
            k[0] + k[1] + k[2] + k[3], k[0], k[1], k[2], k[3]);
    fprintf(out, "objects: %" PRIu64 " heap (at most %" PRIu64 " live at once, "
            "statics included), %" PRIu64 " static; %u groups; %" PRIu64
            " lookups missed the per-instruction cache\n",
            st->heap_objects, st->peak_live, st->static_objects,
            objmap_ngroups(m), st->lookups_slow);
}
