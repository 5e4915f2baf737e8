/*
 * test_objprof.c: the object profile (objects/objprof.h) of the small
 * trace of test_objects_common.h, through the public API only: objects as
 * they die with their statistics, per-group counts and offset heat, what
 * each instruction did to each group, per-thread traffic, totals, samples,
 * and the group depth option. Every expected number is worked out by hand
 * in the header.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_objects_common.h"


/* An object as on_object handed it over. */
typedef struct seen {
    uint64_t addr, serial, alloc_time, free_time;
    int freed, kind;
    obj_stats s;
    uint64_t offsets;
} seen;

static seen objs[16];
static int nobjs;

static void on_object(void *ctx, const obj_object *o, const obj_stats *s)
{
    (void)ctx;
    assert_true(nobjs < 16);
    seen *x = &objs[nobjs++];
    *x = (seen){o->addr, o->serial, o->alloc_time, o->freed ? o->free_time : 0,
                o->freed, o->group->kind, *s, obj_stats_offsets(s)};
    x->s.offsets = NULL;    /* the set dies with the object */
}

static const seen *object_at(uint64_t addr)
{
    for (int i = 0; i < nobjs; i++)
        if (objs[i].addr == addr)
            return &objs[i];
    fail_msg("no object at 0x%llx", (unsigned long long)addr);
    return NULL;
}

/* The group of kind whose defining frame (heap) or address (static) is at. */
static obj_group *group_of(objprof *p, int kind, uint64_t at)
{
    objmap *m = objprof_map(p);
    for (uint32_t i = 0; i < objmap_ngroups(m); i++) {
        obj_group *g = objmap_group(m, i);
        if (g->kind == kind &&
            (kind == OBJ_HEAP ? g->depth && g->ips[0] == at
                              : kind == OBJ_STATIC ? g->addr == at : 1))
            return g;
    }
    fail_msg("no group of kind %d at 0x%llx", kind, (unsigned long long)at);
    return NULL;
}

/* The slot of the instruction at addr. */
static uint32_t slot_of(objprof *p, uint64_t addr)
{
    const insn_table *t = objprof_insns(p);
    for (uint32_t i = 0; i < insn_table_count(t); i++)
        if (insn_table_get(t, i)->addr == addr)
            return i;
    fail_msg("no instruction at 0x%llx", (unsigned long long)addr);
    return 0;
}

/* What slot did to g. */
static const obj_igstats *did(objprof *p, uint32_t slot, const obj_group *g)
{
    for (const obj_igstats *ig = objprof_insn_groups(p, slot); ig; ig = ig->next)
        if (ig->group == g)
            return ig;
    return NULL;
}

static objprof *run(uint32_t depth, uint32_t samples, mr_reader **r)
{
    nobjs = 0;
    objprof_options o = {.group_depth = depth, .samples = samples,
                         .on_object = on_object};
    return profile_trace(objects_path, o, r);
}

static void done(objprof *p, mr_reader *r)
{
    objprof_free(p);
    mr_reader_close(r);
}

static void test_objects(void **state)
{
    (void)state;
    mr_reader *r;
    objprof *p = run(1, 0, &r);
    /* A#0, A#1, B#0 and table; the freed one first */
    assert_int_equal(nobjs, 4);
    assert_int_equal(objs[0].addr, OBJ_A0);
    const seen *a0 = object_at(OBJ_A0), *a1 = object_at(OBJ_A1),
               *b0 = object_at(OBJ_B0), *t = object_at(TABLE);
    assert_true(a0->freed);
    assert_int_equal(a0->free_time, 5);
    assert_int_equal(a0->serial, 0);
    assert_int_equal(a1->serial, 1);
    assert_false(a1->freed);
    assert_int_equal(t->kind, OBJ_STATIC);
    /* accesses, loads, stores, bytes, first, last, distinct offsets */
    assert_int_equal(a0->s.accesses, 1);
    assert_int_equal(a0->s.loads, 1);
    assert_int_equal(a0->s.stores, 0);
    assert_int_equal(a0->s.bytes, 8);
    assert_int_equal(a0->offsets, 1);
    assert_int_equal(a1->s.accesses, 3);
    assert_int_equal(a1->s.loads, 2);
    assert_int_equal(a1->s.stores, 1);
    assert_int_equal(a1->s.bytes, 20);
    assert_int_equal(a1->s.first, 1);
    assert_int_equal(a1->s.last, 5);
    assert_int_equal(a1->offsets, 2);           /* 0 and 8 */
    assert_int_equal(b0->s.accesses, 1);        /* a modify counts once */
    assert_int_equal(b0->s.loads, 1);           /* ... as a load */
    assert_int_equal(b0->s.stores, 1);          /* ... and a store */
    assert_int_equal(b0->s.bytes, 8);           /* moving its bytes once */
    assert_int_equal(b0->s.first, 4);
    assert_int_equal(b0->offsets, 1);
    assert_int_equal(t->s.stores, 1);
    assert_int_equal(t->s.first, 3);
    done(p, r);
}

static void test_groups_and_totals(void **state)
{
    (void)state;
    mr_reader *r;
    objprof *p = run(1, 0, &r);
    uint64_t acc, loads, stores;
    objprof_totals(p, &acc, &loads, &stores);
    assert_int_equal(acc, 7);
    assert_int_equal(loads, 4);
    assert_int_equal(stores, 4);
    obj_gstats *a = objprof_group_stats(p, group_of(p, OBJ_HEAP, SITE_A));
    assert_int_equal(a->accesses, 4);
    assert_int_equal(a->loads, 3);
    assert_int_equal(a->stores, 1);
    assert_int_equal(a->bytes, 28);
    assert_int_equal(group_of(p, OBJ_HEAP, SITE_A)->nobjects, 2);
    /* the field heat: offset 8 loaded three times, offset 0 stored once */
    assert_true(a->nheat > 8);
    assert_int_equal(a->heat[8].loads, 3);
    assert_int_equal(a->heat[8].stores, 0);
    assert_int_equal(a->heat[0].stores, 1);
    for (uint64_t b = 0; b < a->nheat; b++)
        if (b != 0 && b != 8)
            assert_int_equal(a->heat[b].loads + a->heat[b].stores, 0);
    obj_gstats *b = objprof_group_stats(p, group_of(p, OBJ_HEAP, SITE_B));
    assert_int_equal(b->accesses, 1);
    assert_int_equal(b->loads, 1);
    assert_int_equal(b->stores, 1);
    assert_int_equal(b->heat[96].loads, 1);
    assert_int_equal(b->heat[96].stores, 1);
    obj_gstats *t = objprof_group_stats(p, group_of(p, OBJ_STATIC, TABLE));
    assert_int_equal(t->accesses, 1);
    assert_int_equal(t->heat[16].stores, 1);
    obj_gstats *u = objprof_group_stats(p, group_of(p, OBJ_UNKNOWN, 0));
    assert_int_equal(u->accesses, 1);
    assert_int_equal(u->bytes, 4);
    assert_int_equal(u->nheat, 0);              /* no fields in nowhere */
    done(p, r);
}

static void test_instructions(void **state)
{
    (void)state;
    mr_reader *r;
    objprof *p = run(1, 0, &r);
    assert_int_equal(insn_table_count(objprof_insns(p)), 3);
    obj_group *a = group_of(p, OBJ_HEAP, SITE_A), *b = group_of(p, OBJ_HEAP, SITE_B),
              *t = group_of(p, OBJ_STATIC, TABLE), *u = group_of(p, OBJ_UNKNOWN, 0);
    uint32_t load = slot_of(p, 0x401000), store = slot_of(p, 0x401004),
             modify = slot_of(p, 0x401100);
    assert_int_equal(insn_table_get(objprof_insns(p), modify)->kind, MR_MODIFY);
    /* the load touched A three times: two objects, one offset */
    const obj_igstats *ig = did(p, load, a);
    assert_non_null(ig);
    assert_int_equal(ig->accesses, 3);
    assert_int_equal(ig->bytes, 24);
    assert_int_equal(distinct_count(&ig->objects), 2);
    assert_int_equal(distinct_count(&ig->offsets), 1);
    assert_int_equal(ig->first, 0);
    assert_int_equal(ig->last, 5);
    assert_null(did(p, load, b));
    assert_null(did(p, load, t));
    /* the store touched A, table and nowhere, once each */
    int n = 0;
    for (const obj_igstats *x = objprof_insn_groups(p, store); x; x = x->next)
        n++;
    assert_int_equal(n, 3);
    assert_int_equal(did(p, store, a)->accesses, 1);
    assert_int_equal(did(p, store, a)->first, 1);
    assert_int_equal(did(p, store, t)->first, 3);
    assert_int_equal(did(p, store, u)->first, 6);
    assert_int_equal(distinct_count(&did(p, store, u)->objects), 0);
    assert_int_equal(did(p, modify, b)->bytes, 8);
    done(p, r);
}

static void test_threads(void **state)
{
    (void)state;
    mr_reader *r;
    objprof *p = run(1, 0, &r);
    assert_true(objprof_max_tid(p) >= 2);
    const obj_tstats *t1 = objprof_thread(p, 1), *t2 = objprof_thread(p, 2);
    assert_int_equal(t1->loads, 3);
    assert_int_equal(t1->stores, 3);
    assert_int_equal(t1->bytes, 32);
    assert_int_equal(t1->by_kind[OBJ_HEAP], 4);
    assert_int_equal(t1->by_kind[OBJ_STATIC], 1);
    assert_int_equal(t1->first, 0);
    assert_int_equal(t1->last, 4);
    assert_int_equal(t1->parent, 0);
    assert_int_equal(t2->loads, 1);
    assert_int_equal(t2->stores, 1);
    assert_int_equal(t2->bytes, 12);
    assert_int_equal(t2->by_kind[OBJ_HEAP], 1);
    assert_int_equal(t2->by_kind[OBJ_UNKNOWN], 1);
    assert_int_equal(t2->parent, 1);
    assert_int_equal(t2->first, 5);
    assert_int_equal(t2->last, 6);
    done(p, r);
}

/* With room for every access, every access of a group is a sample, in
 * order; with room for fewer, at most that many, each one of the group's
 * accesses as it happened, still in order; with none, none. */
static void test_samples(void **state)
{
    (void)state;
    static const uint64_t time[] = {0, 1, 2, 5}, serial[] = {0, 1, 1, 1},
                          off[] = {8, 0, 8, 8}, tid[] = {1, 1, 1, 2};
    for (uint32_t cap = 100; cap; cap = cap == 100 ? 2 : cap - 1) {
        mr_reader *r;
        objprof *p = run(1, cap, &r);
        obj_gstats *a = objprof_group_stats(p, group_of(p, OBJ_HEAP, SITE_A));
        if (cap == 100)
            assert_int_equal(a->nsamples, 4);
        assert_true(a->nsamples <= cap);
        for (uint32_t i = 0; i < a->nsamples; i++) {
            const obj_sample *smp = &a->samples[i];
            assert_true(smp->n >= 1 && smp->n <= 4);
            assert_true(i == 0 || smp->n > a->samples[i - 1].n);
            assert_int_equal(smp->time, time[smp->n - 1]);
            assert_int_equal(smp->serial, serial[smp->n - 1]);
            assert_int_equal(smp->offset, off[smp->n - 1]);
            assert_int_equal(smp->tid, tid[smp->n - 1]);
            assert_int_equal(smp->kind, smp->n == 2 ? MR_STORE : MR_LOAD);
        }
        done(p, r);
    }
    mr_reader *r;
    objprof *p = run(1, 0, &r);
    assert_int_equal(objprof_group_stats(p, group_of(p, OBJ_HEAP, SITE_A))->nsamples, 0);
    done(p, r);
}

/* Both sites are called from the same place: at depth 2 they stay two
 * groups, each defined by two frames. */
static void test_group_depth(void **state)
{
    (void)state;
    mr_reader *r;
    objprof *p = run(2, 0, &r);
    obj_group *a = group_of(p, OBJ_HEAP, SITE_A);
    assert_int_equal(a->depth, 2);
    assert_int_equal(a->ips[1], 0x403000);
    assert_int_equal(objprof_group_stats(p, a)->accesses, 4);
    done(p, r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_groups_and_totals),
        cmocka_unit_test(test_instructions),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_group_depth),
    };
    return cmocka_run_group_tests(tests, objects_setup, objects_teardown);
}
