/*
 * test_whomp.c: WHOMP's grammars (whomp/whomp.h) over synthetic accesses
 * that cross several batches: every OMSG grammar expands to its dimension's
 * stream, the RASG to the packed (instruction, address) stream, each
 * vertical grammar to its instruction's (group, object, offset) triples;
 * stack and unknown accesses are left out; the RASG's own thread builds the
 * same grammars as one thread does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "memrec_trace.h"
#include "whomp/run.h"
#include "whomp/whomp.h"

/* Accesses fed: more batches of 4096 than whomp.c queues (32), so that
 * with two threads batches are gathered again into buffers the grammars
 * are done with, and not a multiple of 4096. */
#define ACCESSES (40 * 4096 + 1234)
#define INSNS 7
#define OBJECTS 5

/* The synthetic program's memory: heap groups 0 and 1, a static object,
 * the stack and the unknown pseudo-object. */
typedef struct fixture {
    obj_group groups[5];
    obj_object objects[OBJECTS];
} fixture;

static void fixture_init(fixture *f)
{
    static const uint8_t kinds[5] = { OBJ_HEAP, OBJ_HEAP, OBJ_STATIC, OBJ_STACK, OBJ_UNKNOWN };
    for (uint32_t g = 0; g < 5; g++)
        f->groups[g] = (obj_group){ .id = g, .kind = kinds[g] };
    /* object i lies in group i, except that group 0 has two objects */
    static const uint32_t group_of[OBJECTS] = { 0, 0, 1, 2, 3 };
    for (uint32_t i = 0; i < OBJECTS; i++)
        f->objects[i] = (obj_object){ .addr = 0x10000 + 0x1000 * (uint64_t)i, .size = 0x1000,
                                      .serial = i == 1, .group = &f->groups[group_of[i]] };
}

/* The i-th access: a loop over the objects with a drifting field, so the
 * streams repeat in part; every 97th access is to the unknown object. */
static void access_of(fixture *f, uint32_t i, uint32_t *insn, obj_object **o, uint64_t *addr)
{
    static obj_object unknown;
    *insn = i % INSNS;
    if (i % 97 == 0) {
        unknown = (obj_object){ .addr = 0x90000, .size = 16, .group = &f->groups[4] };
        *o = &unknown;
    } else {
        *o = &f->objects[(i / INSNS) % OBJECTS];
    }
    *addr = (*o)->addr + 8 * ((i / 3) % 17) + (i % INSNS);
}

static int is_kept(const obj_object *o, int stack)
{
    return o->group->kind != OBJ_UNKNOWN && (stack || o->group->kind != OBJ_STACK);
}

/* The expansion of g's rule 0, which must be n terminals; malloc'd. */
static uint64_t *expand_all(const sq_grammar *g, uint64_t n)
{
    assert_non_null(g);
    uint64_t *out = malloc(sizeof *out * (n + 1));
    assert_non_null(out);
    assert_int_equal(sq_expand_array(g, 0, out, n + 1), (int64_t)n);
    return out;
}

/* Feeds the accesses with the options and checks every grammar against
 * the streams they were fed; *rules gets the grammars' rule counts (four
 * OMSG, then RASG) for comparing runs. */
static void run(whomp_options o, uint32_t rules[WHOMP_DIMS + 1])
{
    fixture f;
    fixture_init(&f);
    whomp *w = whomp_new(&o);
    assert_non_null(w);
    uint64_t *want[WHOMP_DIMS + 1];
    for (int d = 0; d <= WHOMP_DIMS; d++)
        assert_non_null(want[d] = malloc(sizeof *want[d] * ACCESSES));
    uint64_t kept = 0, skipped = 0;
    for (uint32_t i = 0; i < ACCESSES; i++) {
        uint32_t insn;
        obj_object *obj;
        uint64_t addr;
        access_of(&f, i, &insn, &obj, &addr);
        int rc = whomp_access(w, insn, obj, addr);
        if (!is_kept(obj, o.stack)) {
            assert_int_equal(rc, 0);
            skipped++;
            continue;
        }
        assert_int_equal(rc, 1);
        uint64_t t[WHOMP_DIMS + 1] = { insn, obj->group->id, obj->serial, addr - obj->addr,
                                       addr << 16 | insn };
        for (int d = 0; d <= WHOMP_DIMS; d++)
            want[d][kept] = t[d];
        kept++;
    }
    assert_int_equal(whomp_finish(w), 0);
    assert_int_equal(whomp_kept(w), kept);
    assert_int_equal(whomp_skipped(w), skipped);
    for (int d = 0; d <= WHOMP_DIMS; d++) {
        sq_grammar *g = d < WHOMP_DIMS ? whomp_take_omsg(w, d) : whomp_take_rasg(w);
        uint64_t *got = expand_all(g, kept);
        for (uint64_t i = 0; i < kept; i++)
            if (got[i] != want[d][i])
                fail_msg("stream %d, access %llu: %llu, fed %llu", d, (unsigned long long)i,
                         (unsigned long long)got[i], (unsigned long long)want[d][i]);
        rules[d] = sq_rule_count(g);
        free(got);
        sq_grammar_free(g);
    }
    if (o.vertical) {
        /* instruction k's grammar: the triples of the accesses it made */
        assert_int_equal(whomp_vertical_count(w), INSNS);
        for (uint32_t v = 0; v < INSNS; v++) {
            uint32_t insn = whomp_vertical_insn(w, v);
            uint64_t n = 0;
            for (uint64_t i = 0; i < kept; i++)
                n += want[WHOMP_INSTRUCTION][i] == insn;
            sq_grammar *g = whomp_take_vertical(w, v);
            uint64_t *got = expand_all(g, 3 * n), at = 0;
            for (uint64_t i = 0; i < kept; i++) {
                if (want[WHOMP_INSTRUCTION][i] != insn)
                    continue;
                for (int d = WHOMP_GROUP; d <= WHOMP_OFFSET; d++)
                    assert_int_equal(got[at++], want[d][i]);
            }
            free(got);
            sq_grammar_free(g);
        }
    }
    for (int d = 0; d <= WHOMP_DIMS; d++)
        free(want[d]);
    whomp_free(w);
}

static void test_one_thread(void **state)
{
    (void)state;
    uint32_t rules[WHOMP_DIMS + 1];
    run((whomp_options){ .threads = 1 }, rules);
    run((whomp_options){ .threads = 1, .stack = 1, .vertical = 1 }, rules);
}

static void test_rasg_thread_same_grammars(void **state)
{
    (void)state;
    uint32_t one[WHOMP_DIMS + 1], two[WHOMP_DIMS + 1];
    run((whomp_options){ .threads = 1, .stack = 1 }, one);
    run((whomp_options){ .threads = 2, .stack = 1, .vertical = 1 }, two);
    for (int d = 0; d <= WHOMP_DIMS; d++)
        assert_int_equal(one[d], two[d]);
}

/* Freed without whomp_finish, with the thread running and a batch pending:
 * nothing leaks (ASan) and nothing hangs. */
static void test_free_unfinished(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    whomp *w = whomp_new(&(whomp_options){ .threads = 2 });
    assert_non_null(w);
    for (uint32_t i = 0; i < 4096 + 10; i++) {
        uint32_t insn;
        obj_object *obj;
        uint64_t addr;
        access_of(&f, i, &insn, &obj, &addr);
        assert_true(whomp_access(w, insn, obj, addr) >= 0);
    }
    whomp_free(w);
}

/* The i-th access's instruction number for test_widen: the fixture's,
 * moved past 2^16 and then past 2^17 part way through (in mid-batch, after
 * whole batches went to the grammars), as a trace with that many memory
 * instructions numbers them. */
static uint32_t wide_insn(uint32_t i, uint32_t insn)
{
    return i < 2 * 4096 + 500 ? insn : i < 4 * 4096 + 10 ? 65536 + insn : 131072 + insn;
}

/* Instruction numbers past 2^16: the RASG's field widens to 18 bits, the
 * RASG expands to address * 2^18 + instruction for every kept access, and
 * it is the very grammar (the same stored bytes) that packing builds from
 * the start; with one thread and with two. */
static void widen(int threads)
{
    enum { N = 5 * 4096 + 77 };
    fixture f;
    fixture_init(&f);
    whomp *w = whomp_new(&(whomp_options){ .threads = threads });
    assert_non_null(w);
    uint64_t *want = malloc(sizeof *want * N), kept = 0;
    assert_non_null(want);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t insn;
        obj_object *obj;
        uint64_t addr;
        access_of(&f, i, &insn, &obj, &addr);
        insn = wide_insn(i, insn);
        int rc = whomp_access(w, insn, obj, addr);
        assert_int_equal(rc, is_kept(obj, 0));
        if (rc == 1)
            want[kept++] = addr << 18 | insn;
    }
    assert_int_equal(whomp_rasg_bits(w), 18);
    assert_int_equal(whomp_finish(w), 0);
    sq_grammar *g = whomp_take_rasg(w);
    uint64_t *got = expand_all(g, kept);
    for (uint64_t i = 0; i < kept; i++)
        if (got[i] != want[i])
            fail_msg("access %llu: %llx, fed %llx", (unsigned long long)i,
                     (unsigned long long)got[i], (unsigned long long)want[i]);
    sequitur *ref = sq_new();
    for (uint64_t i = 0; i < kept; i++)
        assert_int_equal(sq_append(ref, want[i]), 0);
    sq_grammar *gr = sq_finish_free(ref);
    void *bw, *br;
    size_t lw, lr;
    assert_int_equal(sq_serialize(g, &bw, &lw), 0);
    assert_int_equal(sq_serialize(gr, &br, &lr), 0);
    assert_int_equal(lw, lr);
    assert_memory_equal(bw, br, lw);
    free(bw);
    free(br);
    sq_grammar_free(gr);
    sq_grammar_free(g);
    free(got);
    free(want);
    whomp_free(w);
}

static void test_widen(void **state)
{
    (void)state;
    widen(1);
    widen(2);
}

/* An address that does not fit beside the instruction field switches the
 * RASG to addresses packed by region, relabelling what it holds: at 16
 * bits an address at 2^47 arriving first; an address at 2^46 kept raw
 * when an instruction later needs a 17th bit, whether still in the
 * gathered batch or already in the builder (after a whole batch). Either
 * way the RASG expands to (region * 2^32 + address mod 2^32) * 2^bits +
 * instruction, regions numbered by first use after region 0. */
static void test_regions(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    obj_object far = f.objects[0];
    const uint64_t *bases;
    far.addr = (UINT64_C(1) << 47) + 0x1234;
    whomp *w = whomp_new(&(whomp_options){ .threads = 1 });
    assert_non_null(w);
    assert_int_equal(whomp_access(w, 3, &far, far.addr), 1);
    assert_int_equal(whomp_rasg_bits(w), 16);
    assert_int_equal(whomp_rasg_regions(w, &bases), 2);
    assert_int_equal(bases[1], UINT64_C(1) << 15);
    assert_int_equal(whomp_access(w, 4, &f.objects[0], f.objects[0].addr), 1);
    assert_int_equal(whomp_finish(w), 0);
    sq_grammar *g = whomp_take_rasg(w);
    uint64_t *got = expand_all(g, 2);
    assert_int_equal(got[0], (UINT64_C(1) << 32 | 0x1234) << 16 | 3);
    assert_int_equal(got[1], f.objects[0].addr << 16 | 4);     /* region 0 */
    free(got);
    sq_grammar_free(g);
    whomp_free(w);

    far.addr = (UINT64_C(1) << 46) + 8;
    for (uint32_t before = 1; before <= 4096; before += 4095) {
        w = whomp_new(&(whomp_options){ .threads = 1 });
        assert_non_null(w);
        assert_int_equal(whomp_access(w, 0, &far, far.addr), 1);
        for (uint32_t i = 1; i < before; i++)
            assert_int_equal(whomp_access(w, 0, &f.objects[0], f.objects[0].addr), 1);
        assert_int_equal(whomp_rasg_regions(w, &bases), 0);     /* raw so far */
        assert_int_equal(whomp_access(w, 1u << 16, &f.objects[0], f.objects[0].addr), 1);
        assert_int_equal(whomp_rasg_bits(w), 17);
        assert_int_equal(whomp_rasg_regions(w, &bases), 2);
        assert_int_equal(bases[1], UINT64_C(1) << 14);
        assert_int_equal(whomp_finish(w), 0);
        assert_int_equal(whomp_kept(w), before + 1);
        g = whomp_take_rasg(w);
        got = expand_all(g, before + 1);
        assert_int_equal(got[0], (UINT64_C(1) << 32 | 8) << 17);
        assert_int_equal(got[before - 1], before > 1 ? f.objects[0].addr << 17 : got[0]);
        assert_int_equal(got[before], f.objects[0].addr << 17 | 1u << 16);
        free(got);
        sq_grammar_free(g);
        whomp_free(w);
    }
}

/* Beside a 21-bit instruction field 2^10 regions fit: region 0 and 1023
 * more are kept, the next new region is refused with -2 and nothing kept,
 * and accesses in known regions go on being kept. */
static void test_too_many_regions(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    obj_object far = f.objects[0];
    const uint64_t *bases;
    whomp *w = whomp_new(&(whomp_options){ .threads = 1 });
    assert_non_null(w);
    assert_int_equal(whomp_access(w, 1u << 20, &f.objects[0], f.objects[0].addr), 1);
    for (uint64_t r = 1; r < 1024; r++) {
        far.addr = (UINT64_C(0x10000) + r) << 32;
        assert_int_equal(whomp_access(w, 1, &far, far.addr), 1);
    }
    assert_int_equal(whomp_rasg_regions(w, &bases), 1024);
    far.addr = UINT64_C(0x20000) << 32;
    assert_int_equal(whomp_access(w, 1, &far, far.addr), -2);
    assert_int_equal(whomp_rasg_bits(w), 21);
    far.addr = (UINT64_C(0x10000) + 5) << 32 | 16;
    assert_int_equal(whomp_access(w, 2, &far, far.addr), 1);
    assert_int_equal(whomp_finish(w), 0);
    assert_int_equal(whomp_kept(w), 1025);
    whomp_free(w);
}

/* A recorded-looking trace with more memory instructions than 2^16
 * (WIDE_BLOCKS blocks of WIDE_INSNS loads each, every load its own
 * instruction), run through trace-whomp's library (whomp/run.h) as the
 * command runs it: it is not refused, and the RASG expands to the raw
 * (instruction, address) stream, address * 2^17 + instruction. The loads
 * read a static table; the blocks run in order, twice, so instruction k
 * is numbered k (numbers follow first execution). */
enum { WIDE_BLOCKS = 700, WIDE_INSNS = 100, WIDE_TOTAL = WIDE_BLOCKS * WIDE_INSNS };
#define WIDE_CODE UINT64_C(0x500000)
#define WIDE_TABLE UINT64_C(0x600000)

/* The address instruction k loads on pass p. */
static uint64_t wide_addr(uint32_t k, uint32_t p)
{
    return WIDE_TABLE + 8 * ((k * 7 + p * 3) % 4096);
}

static void write_wide_trace(const char *path)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const char *argv[] = { "wide" };
    mr_process p = { 1, 1, 0, "/bin/wide", 1, argv, "" };
    mr_module m = { 0, "/bin/wide", 0x400000, 0x300000, 0 };
    assert_int_equal(mr_write_process(w, &p), 0);
    assert_int_equal(mr_write_module(w, &m), 0);
    mr_dataobj table = { "table", WIDE_TABLE, 8 * 4096, 0 };
    assert_int_equal(mr_write_dataobj(w, &table), 0);
    static mr_instr_def instrs[WIDE_INSNS];
    static mr_access_def acc[WIDE_INSNS];
    mr_exit_def exit = { WIDE_INSNS, WIDE_INSNS, MR_JUMP_BORING };
    for (uint32_t b = 0; b < WIDE_BLOCKS; b++) {
        for (uint32_t i = 0; i < WIDE_INSNS; i++) {
            instrs[i] = (mr_instr_def){ WIDE_CODE + 4 * (uint64_t)(b * WIDE_INSNS + i), 4 };
            acc[i] = (mr_access_def){ (uint16_t)i, MR_LOAD, 0, 8 };
        }
        mr_block_def def = { b, instrs[0].addr, WIDE_INSNS, instrs, WIDE_INSNS, acc, 1, &exit };
        assert_int_equal(mr_write_block_def(w, &def), 0);
    }
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    uint64_t addrs[WIDE_INSNS];
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t b = 0; b < WIDE_BLOCKS; b++) {
            for (uint32_t i = 0; i < WIDE_INSNS; i++)
                addrs[i] = wide_addr(b * WIDE_INSNS + i, pass);
            assert_int_equal(mr_write_exec(w, b, 0, addrs, NULL), 0);
        }
    mr_end end = { MR_END_EXIT, 0, 0, { 0 } };
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

static void test_trace_many_instructions(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_whomp.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/wide.mr", dir);
    write_wide_trace(path);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    whomp_run *run = whomp_run_new(r, 1, &(whomp_options){ .threads = 2 });
    assert_non_null(run);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) > 0)
        assert_int_equal(whomp_run_event(run, &ev), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(whomp_run_finish(run), 0);
    assert_int_equal(whomp_run_rasg_bits(run), 17);
    const sq_grammar *g = whomp_run_rasg(run);
    uint64_t *got = expand_all(g, 2 * WIDE_TOTAL);
    for (uint32_t pass = 0, at = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < WIDE_TOTAL; k++, at++) {
            uint64_t want = wide_addr(k, pass) << 17 | k;
            if (got[at] != want)
                fail_msg("access %u: %llx, want %llx", at, (unsigned long long)got[at],
                         (unsigned long long)want);
        }
    free(got);
    whomp_run_free(run);
    mr_reader_close(r);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_rasg_thread_same_grammars),
        cmocka_unit_test(test_free_unfinished),
        cmocka_unit_test(test_widen),
        cmocka_unit_test(test_regions),
        cmocka_unit_test(test_too_many_regions),
        cmocka_unit_test(test_trace_many_instructions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
