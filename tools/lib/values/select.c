/* select.c: the selection rule and the bytes it saves; see select.h. */
#include "values/select.h"

#include <stdlib.h>

/* The rule for field i; covered: it starts inside the field before it. */
static void choose(const values *p, uint32_t i, uint32_t percent, int covered,
                   values_choice *c)
{
    const values_field *f = values_field_at(p, i);
    const obj_group *g = values_group_at(p, f->group);
    uint32_t slot = values_slot_bytes(values_get_options(p)->payload);
    *c = (values_choice){ 0 };
    c->instances = distinct_count(&f->instances);
    c->spoiled = distinct_count(&f->spoiled);
    /* the sketches of two sets estimate apart: keep the subset inside */
    if (c->spoiled > c->instances)
        c->spoiled = c->instances;
    c->compressible = c->instances
                          ? (double)(c->instances - c->spoiled) / (double)c->instances
                          : 0;
    c->size = f->c.valued_size;
    c->objects = values_group_totals(p, f->group)->objects;
    c->candidate = !covered && f->span == 1 && c->instances && c->size > slot &&
                   g && (g->kind == OBJ_HEAP || g->kind == OBJ_STATIC);
    /* in integers: 4 of 5 instances is 80% exactly */
    c->selected = c->candidate &&
                  (c->instances - c->spoiled) * 100 >= (uint64_t)percent * c->instances;
    if (c->selected)
        c->saved = (int64_t)(c->instances * (c->size - slot)) -
                   (int64_t)(c->spoiled * c->size);
}

/* Fields in the order group, offset. */
static const values *order_p;
static int by_place(const void *a, const void *b)
{
    const values_field *x = values_field_at(order_p, *(const uint32_t *)a);
    const values_field *y = values_field_at(order_p, *(const uint32_t *)b);
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

values_choice *values_choose_all(const values *p, uint32_t percent)
{
    uint32_t n = values_nfields(p);
    values_choice *c = calloc(n + 1, sizeof *c);
    uint32_t *order = malloc((n + 1) * sizeof *order);
    if (!c || !order) {
        free(c);
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    order_p = p;
    qsort(order, n, sizeof *order, by_place);
    uint32_t group = UINT32_MAX;
    uint64_t end = 0;           /* where the last valued field of group ends */
    for (uint32_t k = 0; k < n; k++) {
        const values_field *f = values_field_at(p, order[k]);
        if (f->group != group) {
            group = f->group;
            end = 0;
        }
        choose(p, order[k], percent, f->offset < end, &c[order[k]]);
        if (f->span == 1 && f->c.valued_size && f->offset + f->c.valued_size > end)
            end = f->offset + f->c.valued_size;
    }
    free(order);
    return c;
}
