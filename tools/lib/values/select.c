/* select.c: the selection rule and the bytes it saves; see select.h. */
#include "values/select.h"

void values_choose(const values *p, uint32_t i, uint32_t percent,
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
    c->candidate = f->span == 1 && c->instances && c->size > slot &&
                   g && (g->kind == OBJ_HEAP || g->kind == OBJ_STATIC);
    /* in integers: 4 of 5 instances is 80% exactly */
    c->selected = c->candidate &&
                  (c->instances - c->spoiled) * 100 >= (uint64_t)percent * c->instances;
    if (c->selected)
        c->saved = (int64_t)(c->objects * (c->size - slot)) -
                   (int64_t)(c->spoiled * c->size);
}
