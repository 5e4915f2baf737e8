/*
 * test_objmap.c: object-relative translation on a trace written here with
 * the format library's writer, so the group, object and offset of every
 * access are known: static objects (and an alias), heap groups by call
 * site (depth 1 and 2), realloc keeping the object, frees, an address
 * reused after a free (with a per-instruction cache pointing at the dead
 * object), the stack rule and unknown addresses, in two threads, and an
 * allocation stack that starts inside the allocator.
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

#include "memrec_trace.h"
#include "objinsn.h"
#include "objmap.h"

static char dir[] = "/tmp/test_objmap.XXXXXX";
static char trace[256];

/* Block 0: a load, a store and a call (whose push is the 8-byte store of
 * the last instruction). Block 1: two loads, no call. Block 2: the same
 * load instruction as block 0's first, in another block. */
static const mr_instr_def b0_instrs[] = {{0x401000, 4}, {0x401004, 4}, {0x401008, 5}};
static const mr_access_def b0_acc[] = {
    {0, MR_LOAD, 0, 8}, {1, MR_STORE, 0, 4}, {2, MR_STORE, 0, 8}};
static const mr_exit_def b0_exits[] = {{3, 3, MR_JUMP_CALL}};
static const mr_instr_def b1_instrs[] = {{0x401100, 4}, {0x401104, 4}};
static const mr_access_def b1_acc[] = {{0, MR_LOAD, 0, 8}, {1, MR_LOAD, 0, 4}};
static const mr_exit_def b1_exits[] = {{2, 2, MR_JUMP_BORING}};
static const mr_instr_def b2_instrs[] = {{0x400ff0, 16}, {0x401000, 4}};
static const mr_access_def b2_acc[] = {{1, MR_LOAD, 0, 8}};
static const mr_exit_def b2_exits[] = {{2, 1, MR_JUMP_BORING}};

#define SP0 0x7ff000100ull
#define A1 0x402000ull  /* call site of group A (stacks 1 and 3) */
#define B1 0x402100ull  /* call site of group B (stack 2) */

/* What each access must translate to, in trace order. */
typedef struct want {
    const char *group;      /* group name, or "A", "A'", "B" for heap sites */
    uint64_t serial, offset;
} want;

static const want wanted[] = {
    /* 1: statics and the first push */
    {"table", 0, 8}, {"counter", 0, 0}, {"stack", 0, 4096},
    /* 6: A#1, B#0 and a deeper push (the window moves with it) */
    {"A", 1, 8}, {"B", 0, 96}, {"stack", 0, 4096},
    /* 8: after realloc, A#1 lives at 0x20000000; its old place is unknown */
    {"A", 1, 56}, {"unknown", 0, 0x10000044},
    /* 8b: A#0 touched by block 1 before its free */
    {"A", 0, 8}, {"A", 0, 4},
    /* 9b: after the free, the same instruction at the same address */
    {"unknown", 0, 0x10000008}, {"unknown", 0, 0x10000004},
    /* 11: the address reused by a new object of A */
    {"A", 3, 0}, {"A", 3, 16},
    /* 12: thread 2 touches main's stack and nothing known */
    {"stack", 0, 4096 + 0x10}, {"unknown", 0, 0x12345},
    /* block 2: A#2 through another block of the same instruction */
    {"A", 2, 8},
    /* an allocation whose stack starts inside malloc: the site is frame 1 */
    {"A", 4, 0}, {"A", 4, 4},
};

static uint64_t free_time;      /* time of the free of A#0, as read */

static void write_trace(void)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(trace, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"prog"};
    mr_process p = {100, 1, 1700000000000000ULL, "/bin/prog", 1, argv, ""};
    mr_module m = {0, "/bin/prog", 0x400000, 0x10000, 0};
    assert_int_equal(mr_write_process(w, &p), 0);
    assert_int_equal(mr_write_module(w, &m), 0);
    mr_dataobj d1 = {"table", 0x600000, 64, 0};
    mr_dataobj d2 = {"counter", 0x600040, 8, 0};
    mr_dataobj d3 = {"table_alias", 0x600000, 64, 0};
    assert_int_equal(mr_write_dataobj(w, &d1), 0);
    assert_int_equal(mr_write_dataobj(w, &d2), 0);
    assert_int_equal(mr_write_dataobj(w, &d3), 0);
    uint64_t ips1[] = {A1, 0x403000}, ips2[] = {B1, 0x403000},
             ips3[] = {A1, 0x403100};
    /* Stack 4 is stack 1 seen from inside the allocator, as the recorder
     * gives it: frame 0 is in Valgrind's malloc replacement. */
    uint64_t ips4[] = {0x4c00010, A1, 0x403000};
    mr_symbol in_malloc = {0x4c00010, "malloc", "/v/coregrind/m_replacemalloc/vg_replace_malloc.c", 431};
    assert_int_equal(mr_write_symbol(w, &in_malloc), 0);
    mr_stack s1 = {1, 2, ips1}, s2 = {2, 2, ips2}, s3 = {3, 2, ips3}, s4 = {4, 3, ips4};
    assert_int_equal(mr_write_stack(w, &s4), 0);
    assert_int_equal(mr_write_stack(w, &s1), 0);
    assert_int_equal(mr_write_stack(w, &s2), 0);
    assert_int_equal(mr_write_stack(w, &s3), 0);
    mr_block_def b0 = {0, 0x401000, 3, b0_instrs, 3, b0_acc, 1, b0_exits};
    mr_block_def b1 = {1, 0x401100, 2, b1_instrs, 2, b1_acc, 1, b1_exits};
    mr_block_def b2 = {2, 0x400ff0, 2, b2_instrs, 1, b2_acc, 1, b2_exits};
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    assert_int_equal(mr_write_block_def(w, &b2), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);

    uint64_t e1[] = {0x600008, 0x600040, SP0};
    assert_int_equal(mr_write_exec(w, 0, 0, e1, NULL), 0);
    mr_heap h;
    h = (mr_heap){MR_MALLOC, 0x10000000, 32, 0, 0, 1};   /* A#0 */
    assert_int_equal(mr_write_heap(w, &h), 0);
    h = (mr_heap){MR_MALLOC, 0x10000040, 32, 0, 0, 1};   /* A#1 */
    assert_int_equal(mr_write_heap(w, &h), 0);
    h = (mr_heap){MR_CALLOC, 0x10000080, 10, 10, 0, 2};  /* B#0, 100 bytes */
    assert_int_equal(mr_write_heap(w, &h), 0);
    h = (mr_heap){MR_MALLOC, 0x10001000, 16, 0, 0, 3};   /* A#2 (depth 1) */
    assert_int_equal(mr_write_heap(w, &h), 0);
    uint64_t e2[] = {0x10000048, 0x10000080 + 96, SP0 - 32};
    assert_int_equal(mr_write_exec(w, 0, 0, e2, NULL), 0);
    h = (mr_heap){MR_REALLOC, 0x20000000, 64, 0, 0x10000040, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    uint64_t e3[] = {0x20000038, 0x10000044};
    assert_int_equal(mr_write_exec(w, 1, 0, e3, NULL), 0);
    uint64_t e3b[] = {0x10000008, 0x10000004};
    assert_int_equal(mr_write_exec(w, 1, 0, e3b, NULL), 0);
    h = (mr_heap){MR_FREE, 0x10000000, 0, 0, 0, 0};
    assert_int_equal(mr_write_heap(w, &h), 0);
    assert_int_equal(mr_write_exec(w, 1, 0, e3b, NULL), 0);
    h = (mr_heap){MR_MALLOC, 0x10000000, 32, 0, 0, 1};   /* A#3 */
    assert_int_equal(mr_write_heap(w, &h), 0);
    uint64_t e4[] = {0x10000000, 0x10000010};
    assert_int_equal(mr_write_exec(w, 1, 0, e4, NULL), 0);
    assert_int_equal(mr_write_thread_create(w, 1, 2), 0);
    assert_int_equal(mr_write_thread_switch(w, 2), 0);
    uint64_t e5[] = {SP0 - 32 + 0x10, 0x12345};
    assert_int_equal(mr_write_exec(w, 1, 0, e5, NULL), 0);
    uint64_t e6[] = {0x10001008};
    assert_int_equal(mr_write_exec(w, 2, 0, e6, NULL), 0);
    h = (mr_heap){MR_FREE, 0x7777, 0, 0, 0, 0};          /* stray */
    assert_int_equal(mr_write_heap(w, &h), 0);
    h = (mr_heap){MR_MALLOC, 0x30000000, 8, 0, 0, 4};     /* A#4 via malloc */
    assert_int_equal(mr_write_heap(w, &h), 0);
    uint64_t e7[] = {0x30000000, 0x30000004};
    assert_int_equal(mr_write_exec(w, 1, 0, e7, NULL), 0);
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

/* An object as on_end saw it. */
typedef struct ended {
    uint32_t group;
    uint64_t serial, addr, size, alloc_time, free_time;
    int freed;
    uint32_t reallocs;
} ended;

static ended ends[32];
static int nends;

static void on_end(void *ctx, obj_object *o)
{
    (void)ctx;
    assert_true(nends < 32);
    ends[nends++] = (ended){o->group->id, o->serial, o->addr, o->size,
                            o->alloc_time, o->free_time, o->freed, o->reallocs};
}

/* The name of a group as the wanted table spells it. */
static const char *name_of(const obj_group *g, uint32_t depth)
{
    if (g->kind != OBJ_HEAP)
        return g->name;
    if (g->ips[0] == B1)
        return "B";
    if (depth >= 2 && g->ips[1] == 0x403100)
        return "A'";
    return "A";
}

/* Runs objmap over the trace; checks each access against wanted. */
static objmap *translate(uint32_t depth, const want *w, size_t nw)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(trace, &err);
    assert_non_null(r);
    objmap_options o = {.group_depth = depth, .on_end = on_end, .reader = r};
    objmap *m = objmap_new(&o);
    objinsn *t = objinsn_new();
    obj_cache caches[16] = {{0}};
    mr_event ev;
    size_t k = 0;
    nends = 0;
    int rc;
    while ((rc = mr_next(r, &ev)) > 0) {
        assert_int_equal(objmap_event(m, &ev), 0);
        if (ev.kind == MR_EV_HEAP && ev.u.heap.h.op == MR_FREE &&
            ev.u.heap.h.addr == 0x10000000)
            free_time = ev.time;
        if (ev.kind != MR_EV_EXEC)
            continue;
        uint32_t scratch[8];
        const uint32_t *slots = objinsn_exec(t, &ev, scratch);
        assert_non_null(slots);
        for (uint32_t i = 0; i < ev.u.exec.naccesses; i++) {
            const mr_access *a = &ev.u.exec.accesses[i];
            assert_true(slots[i] < 16);
            obj_object *ob = objmap_find(m, &caches[slots[i]], ev.tid, a->addr);
            assert_non_null(ob);
            assert_true(k < nw);
            const char *gname = name_of(ob->group, depth);
            if (strcmp(gname, w[k].group) != 0 || ob->serial != w[k].serial ||
                a->addr - ob->addr != w[k].offset)
                print_error("access %zu at 0x%llx: got %s#%llu+%llu, want %s#%llu+%llu\n",
                            k, (unsigned long long)a->addr, gname,
                            (unsigned long long)ob->serial,
                            (unsigned long long)(a->addr - ob->addr), w[k].group,
                            (unsigned long long)w[k].serial,
                            (unsigned long long)w[k].offset);
            assert_string_equal(gname, w[k].group);
            assert_int_equal(ob->serial, w[k].serial);
            assert_int_equal(a->addr - ob->addr, w[k].offset);
            k++;
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(k, nw);
    /* Block 0's first load and block 2's load are one instruction. */
    assert_int_equal(objinsn_count(t), 5);
    objmap_finish(m);
    objinsn_free(t);
    mr_reader_close(r);
    return m;
}

static const ended *find_end(objmap *m, const char *group, uint64_t serial,
                             uint32_t depth)
{
    for (int i = 0; i < nends; i++) {
        const obj_group *g = objmap_group(m, ends[i].group);
        if (strcmp(name_of(g, depth), group) == 0 && ends[i].serial == serial)
            return &ends[i];
    }
    return NULL;
}

static void test_translation(void **state)
{
    (void)state;
    objmap *m = translate(1, wanted, sizeof wanted / sizeof wanted[0]);
    const objmap_stats *st = objmap_get_stats(m);
    assert_int_equal(st->heap_objects, 6);
    assert_int_equal(st->static_objects, 2);    /* the alias is not a third */
    assert_int_equal(st->stray_frees, 1);
    assert_int_equal(st->live, 0);              /* finish ended them all */
    /* groups: table, counter, stack, A, B, unknown */
    assert_int_equal(objmap_ngroups(m), 6);
    objmap_free(m);
}

static void test_lifetimes(void **state)
{
    (void)state;
    objmap *m = translate(1, wanted, sizeof wanted / sizeof wanted[0]);
    assert_int_equal(nends, 8);     /* 6 heap + 2 static */
    const ended *a0 = find_end(m, "A", 0, 1);
    assert_non_null(a0);
    assert_true(a0->freed);
    assert_int_equal(a0->free_time, free_time);
    assert_int_equal(a0->size, 32);
    const ended *a1 = find_end(m, "A", 1, 1);
    assert_non_null(a1);
    assert_false(a1->freed);        /* never freed */
    assert_int_equal(a1->addr, 0x20000000);
    assert_int_equal(a1->size, 64);
    assert_int_equal(a1->reallocs, 1);
    const ended *b0 = find_end(m, "B", 0, 1);
    assert_non_null(b0);
    assert_int_equal(b0->size, 100);   /* calloc: count x size */
    const ended *t = find_end(m, "table", 0, 1);
    assert_non_null(t);
    assert_int_equal(t->addr, 0x600000);
    assert_int_equal(t->size, 64);
    assert_false(t->freed);
    const ended *a3 = find_end(m, "A", 3, 1);
    assert_non_null(a3);
    assert_true(a3->alloc_time >= free_time);
    objmap_free(m);
}

/* With two frames, stack 3 (same call site, another caller) is a group of
 * its own: A#2 becomes A'#0. */
static void test_group_depth(void **state)
{
    (void)state;
    want w2[sizeof wanted / sizeof wanted[0]];
    memcpy(w2, wanted, sizeof wanted);
    want *last = &w2[sizeof wanted / sizeof wanted[0] - 3];
    assert_string_equal(last->group, "A");
    last->group = "A'";
    last->serial = 0;
    /* A#3 is still the fourth object of A? No: A'#0 took no serial of A,
     * so A's serials are 0, 1 and then 2 for the reused address. */
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (strcmp(w2[i].group, "A") == 0 && w2[i].serial >= 3)
            w2[i].serial--;
    objmap *m = translate(2, w2, sizeof w2 / sizeof w2[0]);
    assert_int_equal(objmap_ngroups(m), 7);
    objmap_free(m);
}

/* Many objects per page, freed in random order, and big objects: every
 * address must map to the right object, before and after. */
static void test_many_objects(void **state)
{
    (void)state;
    enum { N = 20000 };
    objmap_options o = {0};
    objmap *m = objmap_new(&o);
    uint64_t ips[] = {A1};
    mr_stack s = {1, 1, ips};
    mr_event ev = {.kind = MR_EV_HEAP, .tid = 1};
    ev.u.heap.stack = &s;
    for (uint64_t i = 0; i < N; i++) {
        ev.time = i;
        /* 24-byte objects 32 bytes apart, and every 1000th a big one far away */
        uint64_t addr = i % 1000 == 999 ? 0x100000000ull + i * 0x100000 : 0x10000000 + i * 32;
        uint64_t size = i % 1000 == 999 ? 0x80000 : 24;
        ev.u.heap.h = (mr_heap){MR_MALLOC, addr, size, 0, 0, 1};
        assert_int_equal(objmap_event(m, &ev), 0);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t i = 0; i < N; i++) {
            int big = i % 1000 == 999;
            uint64_t addr = big ? 0x100000000ull + i * 0x100000 : 0x10000000 + i * 32;
            obj_cache c = {0};
            int gone = pass == 1 && i % 3 == 0;
            obj_object *ob = objmap_find(m, &c, 1, addr + (big ? 0x7ffff : 23));
            if (gone) {
                assert_int_equal(ob->group->kind, OBJ_UNKNOWN);
            } else {
                assert_int_equal(ob->serial, i);
                assert_int_equal(ob->group->kind, OBJ_HEAP);
            }
            /* the gap after a small object is nothing */
            if (!big)
                assert_int_equal(objmap_find(m, &c, 1, addr + 24)->group->kind,
                                 OBJ_UNKNOWN);
        }
        if (pass == 0)
            for (uint64_t i = 0; i < N; i += 3) {
                int big = i % 1000 == 999;
                ev.u.heap.h = (mr_heap){MR_FREE, big ? 0x100000000ull + i * 0x100000
                                                     : 0x10000000 + i * 32, 0, 0, 0, 0};
                assert_int_equal(objmap_event(m, &ev), 0);
            }
    }
    assert_int_equal(objmap_get_stats(m)->live, N - (N + 2) / 3);
    objmap_free(m);
}

/* The stack rule's guards: a push into a heap block makes no window, a
 * push far from the window does not stretch it. */
static void test_stack_guards(void **state)
{
    (void)state;
    objmap_options o = {0};
    objmap *m = objmap_new(&o);
    mr_event h = {.kind = MR_EV_HEAP, .tid = 1};
    h.u.heap.h = (mr_heap){MR_MALLOC, 0x10000000, 4096, 0, 0, 0};
    assert_int_equal(objmap_event(m, &h), 0);
    static const mr_instr_def ins[] = {{0x401000, 5}};
    static const mr_access_def acc[] = {{0, MR_STORE, 0, 8}};
    static const mr_exit_def ex[] = {{1, 1, MR_JUMP_CALL}};
    mr_block_def b = {0, 0x401000, 1, ins, 1, acc, 1, ex};
    mr_access a = {.addr = 0x10000800, .size = 8, .instr = 0, .kind = MR_STORE};
    mr_event e = {.kind = MR_EV_EXEC, .tid = 1};
    e.u.exec.def = &b;
    e.u.exec.ninstrs = 1;
    e.u.exec.naccesses = 1;
    e.u.exec.accesses = &a;
    assert_int_equal(objmap_event(m, &e), 0);      /* a push into the heap block */
    obj_cache c = {0};
    assert_int_equal(objmap_find(m, &c, 1, 0x10000800)->group->kind, OBJ_HEAP);
    memset(&c, 0, sizeof c);
    assert_int_equal(objmap_find(m, &c, 1, 0x10001100)->group->kind, OBJ_UNKNOWN);
    a.addr = 0x7ff000000;                           /* a real stack */
    assert_int_equal(objmap_event(m, &e), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(objmap_find(m, &c, 1, 0x7ff000000 - 100)->group->kind, OBJ_STACK);
    a.addr = 0x7ff000000 - (200ull << 20);          /* far away: ignored */
    assert_int_equal(objmap_event(m, &e), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(objmap_find(m, &c, 1, 0x7ff000000 - (100ull << 20))->group->kind,
                     OBJ_UNKNOWN);
    objmap_free(m);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(trace, sizeof trace, "%s/t.mr", dir);
    write_trace();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace);
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation),
        cmocka_unit_test(test_lifetimes),
        cmocka_unit_test(test_group_depth),
        cmocka_unit_test(test_many_objects),
        cmocka_unit_test(test_stack_guards),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
