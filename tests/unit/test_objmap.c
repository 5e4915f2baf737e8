/*
 * test_objmap.c: object-relative translation on a trace written here with
 * the format library's writer, so the group, object and offset of every
 * access are known: static objects (and an alias), heap groups by call
 * site (depth 1 and 2), realloc keeping the object, frees, an address
 * reused after a free (with a per-instruction cache pointing at the dead
 * object), the stack rule and unknown addresses, in two threads, and an
 * allocation stack that starts inside the allocator. Then, on events made
 * here, many objects per page, the stack rule's guards, and successor
 * prediction against objmap without it (test_prediction).
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
#include "stream/access.h"
#include "objects/objmap.h"

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
    {"prog:table", 0, 8}, {"prog:counter", 0, 0}, {"stack", 0, 4096},
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
    access_stream *t = access_stream_new(0);
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
        access_exec x;
        int got = access_stream_exec(t, &ev, &x);
        assert_true(got >= 0);
        if (!got)
            continue;
        const uint32_t *slots = x.insn;
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
    assert_int_equal(insn_table_count(access_stream_insns(t)), 5);
    objmap_finish(m);
    access_stream_free(t);
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
    const ended *t = find_end(m, "prog:table", 0, 1);
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

/* ---- successor prediction ------------------------------------------------ */

/*
 * Pointer chasing with successor prediction on. Each round lays out nodes
 * (a few big ones in some rounds, static objects beside them), walks them
 * twice in a fixed random order so that the map learns each node's
 * successor, then three times frees nodes, allocates blocks over freed
 * nodes, reallocates, and walks twice again; in some rounds it then puts
 * objects over the next fields of live, predicted nodes and walks twice
 * more. Every lookup must give the answer of
 *   - objmap without prediction, emulated here over the test's own list
 *     of live objects: the instruction's cache, the last lookup's object,
 *     then the page lists' search (which, where objects overlap, answers
 *     the latest start at or below the address, and does not look past a
 *     heap object that does not cover it);
 *   - a second map fed the same events after a heap block inside a static
 *     object far away, an overlap that turns its prediction off for good
 *     (it tells a wrong emulation from a wrong prediction).
 */

#define PR_NODE  0x404000ull        /* call site of the nodes (stack 1) */
#define PR_OVER  0x404100ull        /* of the blocks put over them (stack 2) */
#define PR_OFF   0x404200ull        /* of the reference's overlapping block (stack 3) */
#define PR_STAT  0x48000000ull      /* the static objects, 8 KiB apart */
#define PR_ARENA 0x50000000ull      /* small nodes, one per slot */
#define PR_FRESH 0x58000000ull      /* where reallocs move blocks */
#define PR_BIG   0x200000000ull     /* big nodes, one per MiB */
#define PR_FAR   0x7000000000ull    /* the reference's overlap: never looked up */
#define PR_MAX   2048               /* live objects and walk steps per round */
#define PR_INSTRS 3                 /* instructions: next field, any field, elsewhere */
#define PR_ROUNDS 300
#define PR_LEAD  8                  /* objmap's PREDICT_DEPTH: a node further
                                     * along the walk than this is predicted */
#define PR_PAGE  12                 /* objmap's PAGE_SHIFT, */
#define PR_BIGB  (256u << 10)       /* BIG_BYTES, */
#define PR_TRIES 8                  /* and the entries a search looks at */

/* An object as the test knows it. */
typedef struct pr_obj {
    uint64_t addr, size, serial;
    uint64_t site;                  /* PR_NODE or PR_OVER; 0: static */
    char name[16];                  /* a static's symbol */
    uint64_t id;                    /* unique per allocation: what a cache holds */
    uint64_t seq;                   /* when it last entered the map's lists */
} pr_obj;

/* One round: the two maps, what the test knows they hold, the walk. */
typedef struct pr_round {
    objmap *m[2];                   /* [0] predicts, [1] cannot */
    obj_cache c[2][PR_INSTRS];      /* per map, one per instruction */
    pr_obj live[PR_MAX];            /* the live objects, in no order */
    int nlive;
    uint64_t ids, seq;              /* last id and seq given */
    uint64_t ecache[PR_INSTRS], elast;  /* the emulation's caches: ids, 0 for none */
    uint64_t serial[2];             /* next serial at PR_NODE, PR_OVER */
    uint64_t walk[PR_MAX];          /* addresses in visiting order */
    uint64_t span[PR_MAX];          /* bytes the walk touches from each */
    uint64_t next[PR_MAX];          /* offset of the "next" field in each */
    int nwalk;
    uint64_t slot, fresh, time;     /* node spacing; next unused PR_FRESH address; clock */
    int nstatics;
    int nested;                     /* a block was allocated at the start of a
                                     * live one, inside it (objmap.c's nests_in) */
} pr_round;

static uint64_t pr_rng = 0x2545f4914f6cdd1dull;    /* the fixed seed */
static uint64_t pr_lookups;             /* lookups made, all rounds */
static int pr_roundno;

/* A number in [0, n), xorshift64. */
static uint64_t pr_rand(uint64_t n)
{
    pr_rng ^= pr_rng << 13;
    pr_rng ^= pr_rng >> 7;
    pr_rng ^= pr_rng << 17;
    return n ? pr_rng % n : 0;
}

/* ---- the model: what objmap holds ---- */

/* Index of the live heap object starting at addr, or -1; of nested ones
 * the innermost, as objmap's heap_at: a page-listed one before a big one,
 * then the last to enter its list. */
static int pr_heap_at(const pr_round *r, uint64_t addr)
{
    int best = -1;
    for (int i = 0; i < r->nlive; i++) {
        const pr_obj *o = &r->live[i];
        if (!o->site || o->addr != addr)
            continue;
        if (best < 0 || (o->size <= PR_BIGB) > (r->live[best].size <= PR_BIGB) ||
            ((o->size <= PR_BIGB) == (r->live[best].size <= PR_BIGB) &&
             o->seq > r->live[best].seq))
            best = i;
    }
    return best;
}

static void pr_drop(pr_round *r, int i) { r->live[i] = r->live[--r->nlive]; }

static pr_obj *pr_add(pr_round *r, uint64_t addr, uint64_t size, uint64_t site)
{
    assert_true(r->nlive < PR_MAX);
    pr_obj *o = &r->live[r->nlive++];
    *o = (pr_obj){addr, size, 0, site, "", ++r->ids, ++r->seq};
    if (site)
        o->serial = r->serial[site == PR_OVER]++;
    return o;
}

/* Bytes from addr, at most size, that overlap no live object but skip and
 * a heap object starting at addr (an allocation there ends it); -1 when
 * addr itself is taken. */
static int64_t pr_fit(const pr_round *r, uint64_t addr, uint64_t size, int skip)
{
    for (int i = 0; i < r->nlive; i++) {
        const pr_obj *o = &r->live[i];
        if (i == skip || (o->site && o->addr == addr))
            continue;
        if (o->addr == addr || addr - o->addr < o->size)
            return -1;
        if (o->addr > addr && o->addr - addr < size)
            size = o->addr - addr;
    }
    return (int64_t)size;
}

/* A live object covering addr, or NULL. */
static const pr_obj *pr_brute_find(const pr_round *r, uint64_t addr)
{
    for (int i = 0; i < r->nlive; i++)
        if (addr - r->live[i].addr < r->live[i].size)
            return &r->live[i];
    return NULL;
}

/* ---- events, to both maps and the model ---- */

static void pr_feed(pr_round *r, const mr_event *ev, int both)
{
    for (int k = both ? 0 : 1; k < 2; k++)
        assert_int_equal(objmap_event(r->m[k], ev), 0);
}

static void pr_heap(pr_round *r, mr_heap h, uint64_t site, int both)
{
    uint64_t ips[] = {site};
    mr_stack s = {h.stack, 1, ips};
    mr_event ev = {.kind = MR_EV_HEAP, .tid = 1, .time = ++r->time};
    ev.u.heap.h = h;
    ev.u.heap.stack = h.stack ? &s : NULL;
    pr_feed(r, &ev, both);
}

static uint32_t pr_stack(uint64_t site) { return site == PR_NODE ? 1 : site == PR_OVER ? 2 : 3; }

static void pr_static(pr_round *r, uint64_t addr, uint64_t size, int both)
{
    char name[16] = "far";
    if (both) {
        snprintf(name, sizeof name, "s%d", r->nstatics++);
        memcpy(pr_add(r, addr, size, 0)->name, name, sizeof name);
    }
    mr_dataobj d = {name, addr, size, 0};
    mr_event ev = {.kind = MR_EV_DATAOBJ, .tid = 1, .time = r->time};
    ev.u.dataobj = &d;
    pr_feed(r, &ev, both);
}

static void pr_malloc(pr_round *r, uint64_t addr, uint64_t size, uint64_t site)
{
    int old = pr_heap_at(r, addr);
    if (old >= 0 && size <= r->live[old].size)
        r->nested = 1;      /* inside it: nested, both live */
    else if (old >= 0)
        pr_drop(r, old);    /* objmap ends it: its free was not recorded */
    pr_add(r, addr, size, site);
    pr_heap(r, (mr_heap){MR_MALLOC, addr, size, 0, 0, pr_stack(site)}, site, 1);
}

/* Live object i is freed: once blocks were nested, what is nested in it
 * goes too (objmap.c's nested_in). Returns i's index afterwards. */
static int pr_drop_nested(pr_round *r, int i)
{
    if (!r->nested || !r->live[i].size)
        return i;
    pr_obj o = r->live[i];
    for (int j = 0; j < r->nlive;) {
        const pr_obj *in = &r->live[j];
        if (in->site && in->id != o.id && in->addr >= o.addr &&
            in->addr < o.addr + o.size && in->addr + in->size <= o.addr + o.size &&
            (in->addr > o.addr || in->size < o.size || in->seq > o.seq))
            pr_drop(r, j);
        else
            j++;
    }
    for (int j = 0; j < r->nlive; j++)
        if (r->live[j].id == o.id)
            return j;
    return -1;
}

static void pr_free(pr_round *r, uint64_t addr)
{
    int i = pr_heap_at(r, addr);
    if (i >= 0)
        pr_drop(r, pr_drop_nested(r, i));   /* else a stray free, which objmap counts */
    pr_heap(r, (mr_heap){MR_FREE, addr, 0, 0, 0, 0}, 0, 1);
}

/* realloc of live object i to [addr, addr + size); size 0 with addr 0
 * frees it. */
static void pr_realloc(pr_round *r, int i, uint64_t addr, uint64_t size)
{
    i = pr_heap_at(r, r->live[i].addr);     /* objmap takes the innermost */
    pr_obj o = r->live[i];
    if (!addr)              /* freed: what is nested in it too */
        i = pr_drop_nested(r, i);
    pr_drop(r, i);
    pr_heap(r, (mr_heap){MR_REALLOC, addr, size, 0, o.addr, pr_stack(o.site)}, o.site, 1);
    if (!addr)
        return;
    int clash = addr != o.addr ? pr_heap_at(r, addr) : -1;
    if (clash >= 0)
        pr_drop(r, clash);  /* objmap ends it, as a lost free */
    o.addr = addr;
    o.size = size;
    o.seq = ++r->seq;       /* objmap removes and inserts it again */
    r->live[r->nlive++] = o;
}

/* The walk visits addr (size bytes of it) from now on, at a random place. */
static void pr_visit(pr_round *r, uint64_t addr, uint64_t size)
{
    int at = (int)pr_rand((uint64_t)r->nwalk + 1);
    if (r->nwalk == PR_MAX) {
        at = (int)pr_rand(PR_MAX);
    } else {
        memmove(r->walk + at + 1, r->walk + at, (size_t)(r->nwalk - at) * sizeof *r->walk);
        memmove(r->span + at + 1, r->span + at, (size_t)(r->nwalk - at) * sizeof *r->span);
        memmove(r->next + at + 1, r->next + at, (size_t)(r->nwalk - at) * sizeof *r->next);
        r->nwalk++;
    }
    r->walk[at] = addr;
    r->span[at] = size;
    r->next[at] = pr_rand(size);
}

/* ---- lookups ---- */

static void pr_describe(char *buf, size_t n, const obj_object *o)
{
    const obj_group *g = o->group;
    snprintf(buf, n, "%s#%llu [0x%llx, +%llu)",
             g->kind == OBJ_HEAP ? (g->ips[0] == PR_NODE ? "node" : "over") : g->name,
             (unsigned long long)o->serial, (unsigned long long)o->addr,
             (unsigned long long)o->size);
}

/* a is what the test knows as e (NULL: unknown): same group (by site or
 * name), serial and range. */
static int pr_is(const obj_object *a, const pr_obj *e)
{
    if (!e)
        return a->group->kind == OBJ_UNKNOWN;
    if (a->addr != e->addr || a->size != e->size || a->serial != e->serial)
        return 0;
    if (!e->site)
        return a->group->kind == OBJ_STATIC && strcmp(a->group->name, e->name) == 0;
    return a->group->kind == OBJ_HEAP && a->group->ips[0] == e->site;
}

static const pr_obj *pr_by_id(const pr_round *r, uint64_t id)
{
    for (int i = 0; id && i < r->nlive; i++)
        if (r->live[i].id == id)
            return &r->live[i];
    return NULL;
}

/* Is o in the list searched for addr (the big objects' when big, else
 * its page's), before addr's upper bound, and after (start, seq) below? */
static int pr_listed(const pr_obj *o, uint64_t addr, int big, uint64_t below_start,
                     uint64_t below_seq)
{
    uint64_t first = o->addr >> PR_PAGE;
    uint64_t last = o->size ? (o->addr + o->size - 1) >> PR_PAGE : first;
    if (big ? o->size <= PR_BIGB
            : o->size > PR_BIGB || (addr >> PR_PAGE) < first || (addr >> PR_PAGE) > last)
        return 0;
    return o->addr <= addr && (o->addr < below_start ||
                               (o->addr == below_start && o->seq < below_seq));
}

/* objmap's search of one list: entries by (start, insertion) from the
 * last starting at or below addr downwards; the first covering addr is
 * the answer, a heap one not covering it ends the search (unless blocks
 * were nested), as do PR_TRIES entries. */
static const pr_obj *pr_list_find(const pr_round *r, uint64_t addr, int big)
{
    uint64_t start = UINT64_MAX, seq = UINT64_MAX;
    for (int tries = 0; tries < PR_TRIES; tries++) {
        const pr_obj *e = NULL;
        for (int i = 0; i < r->nlive; i++) {
            const pr_obj *o = &r->live[i];
            if (pr_listed(o, addr, big, start, seq) &&
                (!e || o->addr > e->addr || (o->addr == e->addr && o->seq > e->seq)))
                e = o;
        }
        if (!e || addr - e->addr < e->size)
            return e;
        if (e->site && !r->nested)
            return NULL;
        start = e->addr;
        seq = e->seq;
    }
    return NULL;
}

/* objmap_find without prediction, over the test's live objects. */
static const pr_obj *pr_emulate(pr_round *r, int instr, uint64_t addr)
{
    const pr_obj *o = pr_by_id(r, r->ecache[instr]);
    if (o && addr - o->addr < o->size)
        return o;
    o = pr_by_id(r, r->elast);
    if (o && addr - o->addr < o->size) {
        r->ecache[instr] = o->id;
        return o;
    }
    o = pr_list_find(r, addr, 0);
    if (!o)
        o = pr_list_find(r, addr, 1);
    if (o)                  /* unknown addresses are cached nowhere */
        r->ecache[instr] = r->elast = o->id;
    return o;
}

static void pr_lookup(pr_round *r, int instr, uint64_t addr)
{
    obj_object *a = objmap_find(r->m[0], &r->c[0][instr], 1, addr);
    obj_object *b = objmap_find(r->m[1], &r->c[1][instr], 1, addr);
    const pr_obj *e = pr_emulate(r, instr, addr);
    pr_lookups++;
    if (pr_is(a, e) && pr_is(b, e))
        return;
    char sa[96], sb[96];
    pr_describe(sa, sizeof sa, a);
    pr_describe(sb, sizeof sb, b);
    print_error("round %d, lookup %llu of 0x%llx: predicting map %s, reference "
                "map %s, emulation %s#%llu [0x%llx, +%llu)\n", pr_roundno,
                (unsigned long long)pr_lookups, (unsigned long long)addr, sa, sb,
                e ? e->site ? e->site == PR_NODE ? "node" : "over" : e->name : "unknown",
                e ? (unsigned long long)e->serial : 0ull,
                e ? (unsigned long long)e->addr : 0ull,
                e ? (unsigned long long)e->size : 0ull);
    fail();
}

/* One pass along the walk, as a pointer chase: each node's next field,
 * another of its fields, and now and then an address elsewhere (a
 * static, a gap, anything in the arena). */
static void pr_walk(pr_round *r)
{
    for (int i = 0; i < r->nwalk; i++) {
        pr_lookup(r, 0, r->walk[i] + r->next[i]);
        if (r->span[i] > 1)
            pr_lookup(r, 1, r->walk[i] + pr_rand(r->span[i]));
        if (pr_rand(8) == 0)
            pr_lookup(r, 2, pr_rand(2) ? PR_STAT + pr_rand(8192 * (uint64_t)r->nstatics)
                                       : PR_ARENA + pr_rand(r->slot * (uint64_t)r->nwalk));
    }
}

/* ---- a round ---- */

/* Statics, then n nodes (one in 16 big, when big is set), walked in a
 * random order. */
static void pr_layout(pr_round *r, int n, int big)
{
    for (int i = 0; i < 3; i++)
        pr_static(r, PR_STAT + 8192 * (uint64_t)i, 8 + pr_rand(4000), 1);
    r->slot = 32ull << pr_rand(4);
    for (int i = 0; i < n; i++) {
        int is_big = big && pr_rand(16) == 0;
        uint64_t addr = is_big ? PR_BIG + ((uint64_t)i << 20) : PR_ARENA + (uint64_t)i * r->slot;
        uint64_t size = is_big ? PR_BIGB + 1 + pr_rand(700u << 10) : pr_rand(r->slot + 1);
        pr_malloc(r, addr, size, PR_NODE);
        r->walk[i] = addr;
        r->span[i] = size;
        r->next[i] = pr_rand(2) ? 0 : pr_rand(size);
    }
    r->nwalk = n;
    for (int i = n - 1; i > 0; i--) {   /* shuffle: the order of the links */
        int j = (int)pr_rand((uint64_t)i + 1);
        uint64_t a = r->walk[i], s = r->span[i], x = r->next[i];
        r->walk[i] = r->walk[j], r->span[i] = r->span[j], r->next[i] = r->next[j];
        r->walk[j] = a, r->span[j] = s, r->next[j] = x;
    }
}

/* A random live heap object's index, or -1. */
static int pr_any_heap(const pr_round *r)
{
    for (int tries = 0; tries < 16 && r->nlive; tries++) {
        int i = (int)pr_rand((uint64_t)r->nlive);
        if (r->live[i].site)
            return i;
    }
    return -1;
}

/* A block over what the walk visits at step w (a freed node, or a live
 * one, which the allocation ends): from its start or inside it, cut short
 * before any other live object. */
static void pr_over(pr_round *r, int w)
{
    uint64_t addr = r->walk[w] + (pr_rand(2) ? 0 : pr_rand(r->span[w] + 1));
    uint64_t size = pr_rand(2 * (r->span[w] > 16 ? r->span[w] : 16) + 1);
    int64_t fit = pr_fit(r, addr, size, -1);
    if (fit < 0)
        return;
    pr_malloc(r, addr, (uint64_t)fit, PR_OVER);
    pr_visit(r, addr, (uint64_t)fit);
}

/* The walk follows a block that moved from old: the first step visiting
 * old visits addr now (as the link to it was updated), keeping its next
 * field if it still fits; with no such step, a new one. */
static void pr_relink(pr_round *r, uint64_t old, uint64_t addr, uint64_t size)
{
    for (int j = 0; j < r->nwalk; j++)
        if (r->walk[j] == old) {
            r->walk[j] = addr;
            r->span[j] = size;
            if (r->next[j] >= size)
                r->next[j] = 0;
            return;
        }
    pr_visit(r, addr, size);
}

/* Live object i moves (or stays, or moves onto a walk address, where a
 * heap object starting there is ended) and changes size. */
static void pr_move(pr_round *r, int i)
{
    uint64_t addr = r->live[i].addr;
    uint64_t size = pr_rand(2 * (r->live[i].size > r->slot ? r->live[i].size : r->slot) + 1);
    switch (pr_rand(3)) {
    case 1:
        addr = r->walk[pr_rand((uint64_t)r->nwalk)];
        break;
    case 2:
        addr = r->fresh;
        r->fresh += (size + 15) & ~15ull;
        break;
    }
    int64_t fit = pr_fit(r, addr, size, i);
    if (fit < 0)
        return;
    size = (uint64_t)fit;
    if (addr != r->live[i].addr)
        pr_relink(r, r->live[i].addr, addr, size);
    pr_realloc(r, i, addr, size);
}

/* A step of the walk PR_LEAD or more along it (so its node is a
 * predicted successor) whose next field a live heap object holds, or -1.
 * In rounds with big nodes, one of those half the time. */
static int pr_target(const pr_round *r)
{
    int want_big = pr_rand(2);
    for (int tries = 0; tries < 64 && r->nwalk > PR_LEAD; tries++) {
        int w = PR_LEAD + (int)pr_rand((uint64_t)(r->nwalk - PR_LEAD));
        const pr_obj *o = pr_brute_find(r, r->walk[w] + r->next[w]);
        if (o && o->site && (!want_big || tries >= 32 || o->size > PR_BIGB))
            return w;
    }
    return -1;
}

/* A live overlap over the next field of a predicted node, which the map
 * must notice (or the prediction would answer the node where the page
 * lists answer the newcomer): a block inside the node, a block from
 * before it over its start, or a static object (a module loaded late)
 * starting at or inside it; or the node, grown big, moves so that its
 * next field falls inside another live object (the prediction, kept by
 * realloc, would answer the node, the page lists the other); or, which a
 * prediction cannot show, a realloc growing the node over its neighbour. */
static void pr_overlap(pr_round *r)
{
    int w = pr_target(r);
    if (w < 0)
        return;
    uint64_t field = r->walk[w] + r->next[w];
    int i = (int)(pr_brute_find(r, field) - r->live);
    uint64_t addr = r->live[i].addr, tail = 1 + pr_rand(r->slot);
    switch (pr_rand(5)) {
    case 0:
        if (field > addr) {
            uint64_t at = addr + 1 + pr_rand(field - addr);
            pr_malloc(r, at, field - at + tail, PR_OVER);
        }
        break;
    case 1: {
        uint64_t at = addr - 1 - pr_rand(r->slot);
        pr_malloc(r, at, field - at + tail, PR_OVER);
        break;
    }
    case 2: {
        uint64_t at = addr + pr_rand(field - addr + 1), size = field - at + tail;
        for (int j = 0; j < r->nlive; j++)
            if (r->live[j].addr == at && r->live[j].size == size)
                size++, j = -1;     /* not an alias of an object there */
        pr_static(r, at, size, 1);
        break;
    }
    case 3: {
        const pr_obj *y = &r->live[pr_rand((uint64_t)r->nlive)];
        uint64_t in = y->addr + pr_rand(y->size), size = PR_BIGB + 1 + pr_rand(PR_BIGB);
        if (!y->size || in < r->next[w])
            break;
        if (size <= r->next[w])
            size = r->next[w] + 1;
        r->walk[w] = in - r->next[w];
        r->span[w] = size;
        pr_realloc(r, i, in - r->next[w], size);
        break;
    }
    default:
        pr_realloc(r, i, addr, r->live[i].size + tail);
    }
}

/* Frees, blocks over freed nodes, lost frees, reallocs, stray frees,
 * none of them making two live objects overlap. */
static void pr_mutate(pr_round *r)
{
    int steps = 1 + r->nlive / 3;
    for (int s = 0; s < steps; s++) {
        int i = pr_any_heap(r);
        switch (pr_rand(8)) {
        case 0: case 1: case 2:
            if (i >= 0)
                pr_free(r, r->live[i].addr);
            break;
        case 3: case 4:
            pr_over(r, (int)pr_rand((uint64_t)r->nwalk));
            break;
        case 5:
            if (i >= 0)
                pr_move(r, i);
            break;
        case 6:         /* an allocation over a live block: its free was lost */
            if (i >= 0) {
                uint64_t a = r->live[i].addr;
                int64_t fit = pr_fit(r, a, pr_rand(2 * r->slot + 1), -1);
                if (fit >= 0)
                    pr_malloc(r, a, (uint64_t)fit, PR_OVER);
            }
            break;
        default:
            if (i >= 0 && pr_rand(2))
                pr_realloc(r, i, 0, 0);     /* realloc(p, 0) */
            else
                pr_free(r, r->walk[pr_rand((uint64_t)r->nwalk)] + 1 + pr_rand(7));
        }
    }
}

static void pr_run(pr_round *r)
{
    memset(r, 0, sizeof *r);
    r->fresh = PR_FRESH;
    for (int k = 0; k < 2; k++)
        assert_non_null(r->m[k] = objmap_new(NULL));
    /* The reference's overlap, before anything else: no prediction. */
    pr_static(r, PR_FAR, 4096, 0);
    pr_heap(r, (mr_heap){MR_MALLOC, PR_FAR + 64, 64, 0, 0, 3}, PR_OFF, 0);
    int n = 16 + (int)pr_rand(300);
    int live_phase = pr_rand(3) == 0 ? 1 + (int)pr_rand(3) : 0;
    pr_layout(r, n, pr_rand(4) == 0);
    pr_walk(r);
    pr_walk(r);
    for (int phase = 1; phase <= 3; phase++) {
        pr_mutate(r);
        pr_walk(r);
        pr_walk(r);
        if (phase != live_phase)
            continue;
        for (int k = 1 + (int)pr_rand(3); k > 0; k--)
            pr_overlap(r);
        pr_walk(r);
        pr_walk(r);
    }
    assert_int_equal(objmap_get_stats(r->m[0])->live, r->nlive);
    assert_int_equal(objmap_get_stats(r->m[1])->live, r->nlive + 2);
    for (int k = 0; k < 2; k++)
        objmap_free(r->m[k]);
}

static void test_prediction(void **state)
{
    (void)state;
    pr_round *r = malloc(sizeof *r);
    assert_non_null(r);
    for (pr_roundno = 0; pr_roundno < PR_ROUNDS; pr_roundno++)
        pr_run(r);
    free(r);
    print_message("prediction: %llu lookups in %d rounds\n",
                  (unsigned long long)pr_lookups, PR_ROUNDS);
}

/* ---- a custom pool's chunk at its block's first byte ---- */

/* One heap event of op at addr (size bytes; stack 1 or 2: the block's
 * site or the chunks') into m. */
static void pool_heap(objmap *m, uint8_t op, uint64_t addr, uint64_t size,
                      uint32_t stack, uint64_t time)
{
    uint64_t ips[] = {stack == 1 ? 0x401000 : 0x402000};
    mr_stack s = {stack, 1, ips};
    mr_event ev = {.kind = MR_EV_HEAP, .tid = 1, .time = time};
    ev.u.heap.h = (mr_heap){op, addr, size, 0, 0, stack};
    ev.u.heap.stack = stack ? &s : NULL;
    assert_int_equal(objmap_event(m, &ev), 0);
}

/* The size and group site of the object holding addr (0, 0: unknown). */
static uint64_t pool_find(objmap *m, uint64_t addr, uint64_t *site)
{
    obj_cache c = {0};
    obj_object *o = objmap_find(m, &c, 1, addr);
    *site = o->group->kind == OBJ_HEAP ? o->group->ips[0] : 0;
    return o->size;
}

/* recorder/README.md, "Custom allocators": a pool's block B at a, its
 * chunks C at a (the block's first byte: the same address) and D after
 * it. C is inside B, not B reused; C's free leaves B; B's free ends B and
 * what is still nested in it (D); no free is of an unknown block. */
static void test_nested_at_start(void **state)
{
    (void)state;
    const uint64_t a = 0x10000000;
    objmap *m = objmap_new(&(objmap_options){0});
    assert_non_null(m);
    uint64_t site;
    pool_heap(m, MR_MALLOC, a, 4800, 1, 1);         /* B */
    pool_heap(m, MR_MALLOC, a, 48, 2, 2);           /* C, at B's start */
    pool_heap(m, MR_MALLOC, a + 48, 48, 2, 3);      /* D */
    assert_int_equal(objmap_get_stats(m)->live, 3);
    assert_int_equal(pool_find(m, a + 8, &site), 48);       /* C */
    assert_int_equal(site, 0x402000);
    assert_int_equal(pool_find(m, a + 50, &site), 48);      /* D */
    assert_int_equal(pool_find(m, a + 200, &site), 4800);   /* B, past D */
    assert_int_equal(site, 0x401000);
    pool_heap(m, MR_FREE, a, 0, 0, 4);              /* C's free */
    assert_int_equal(objmap_get_stats(m)->live, 2);
    assert_int_equal(pool_find(m, a + 8, &site), 4800);     /* B again */
    pool_heap(m, MR_MALLOC, a, 8000, 2, 5);         /* larger than B: B reused */
    assert_int_equal(objmap_get_stats(m)->lost_frees, 1);
    pool_heap(m, MR_FREE, a, 0, 0, 6);
    pool_heap(m, MR_MALLOC, a, 4800, 1, 7);         /* B2 */
    pool_heap(m, MR_MALLOC, a, 4800, 2, 8);         /* a chunk as large as B2 */
    pool_heap(m, MR_MALLOC, a + 4096, 64, 2, 9);    /* and one on B2's second page */
    pool_heap(m, MR_FREE, a, 0, 0, 10);             /* the chunk */
    assert_int_equal(pool_find(m, a + 8, &site), 4800);
    assert_int_equal(site, 0x401000);
    pool_heap(m, MR_FREE, a, 0, 0, 11);             /* B2 ends the rest */
    assert_int_equal(pool_find(m, a + 4100, &site), 0);
    assert_int_equal(objmap_get_stats(m)->stray_frees, 0);
    assert_int_equal(objmap_get_stats(m)->lost_frees, 1);
    assert_int_equal(objmap_get_stats(m)->live, 0);
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
        cmocka_unit_test(test_prediction),
        cmocka_unit_test(test_nested_at_start),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
