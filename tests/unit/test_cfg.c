/*
 * test_cfg.c: basic blocks, functions and loops rebuilt from hand-written
 * traces (every instruction 16 bytes, or 5 for calls, so blocks are easy
 * to tell apart), the nesting forest worked out by hand for each shape:
 * nested loops whose superblocks overlap (a jump into the middle of a
 * recorded run splits it), sibling loops, an irreducible cycle entered at
 * two places, and a loop calling a function (inclusive attribution).
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
#include "stream/cfg.h"

static char dir[] = "/tmp/test_cfg.XXXXXX";
static char trace[256];

/* A superblock of the test: its instructions and the jump of its one exit. */
typedef struct sb {
    uint32_t n;
    uint64_t addr[6];
    uint8_t jump;
} sb;

/* An instruction's symbol: function, line (file "t.c"). */
typedef struct sym {
    uint64_t addr;
    const char *function;
    uint32_t line;
} sym;

static uint32_t len_of(uint64_t addr, const sb *sbs, uint32_t nsb)
{
    /* a call instruction is 5 bytes, everything else 16 */
    for (uint32_t i = 0; i < nsb; i++)
        if (sbs[i].addr[sbs[i].n - 1] == addr && sbs[i].jump == MR_JUMP_CALL)
            return 5;
    return 16;
}

/* Writes a trace defining sbs and executing them in the order run[]. */
static void write_trace(const sb *sbs, uint32_t nsb, const sym *syms, uint32_t nsym,
                        const uint32_t *run, uint32_t nrun)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(trace, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"prog"};
    mr_process p = {1, 0, 0, "/bin/prog", 1, argv, ""};
    assert_int_equal(mr_write_process(w, &p), 0);
    for (uint32_t i = 0; i < nsym; i++) {
        mr_symbol s = {syms[i].addr, syms[i].function, "t.c", syms[i].line};
        assert_int_equal(mr_write_symbol(w, &s), 0);
    }
    for (uint32_t i = 0; i < nsb; i++) {
        mr_instr_def ins[6];
        for (uint32_t k = 0; k < sbs[i].n; k++)
            ins[k] = (mr_instr_def){sbs[i].addr[k], len_of(sbs[i].addr[k], sbs, nsb)};
        mr_exit_def ex = {sbs[i].n, 0, sbs[i].jump};
        mr_block_def d = {i, sbs[i].addr[0], sbs[i].n, ins, 0, NULL, 1, &ex};
        assert_int_equal(mr_write_block_def(w, &d), 0);
    }
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    for (uint32_t i = 0; i < nrun; i++)
        assert_int_equal(mr_write_exec(w, run[i], 0, NULL, NULL), 0);
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

/* Reads the trace into a graph; the reader stays open for symbols. */
static cfg *build(mr_reader **rp)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(trace, &err);
    assert_non_null(r);
    cfg_builder *b = cfg_builder_new();
    assert_non_null(b);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) > 0)
        assert_int_equal(cfg_builder_event(b, &ev), 0);
    assert_int_equal(rc, 0);
    cfg *g = cfg_build(b, r);
    assert_non_null(g);
    cfg_builder_free(b);
    *rp = r;
    return g;
}

/* Outer loop 0x1010..0x1040 around inner loop 0x1020..0x1030. The first
 * superblock runs 0x1000..0x1030 straight; the jumps back into 0x1020 and
 * 0x1010 split it. Blocks: {1000} {1010} {1020,1030} {1040} {1050}. */
static void test_nested(void **state)
{
    (void)state;
    const sb sbs[] = {
        {4, {0x1000, 0x1010, 0x1020, 0x1030}, MR_JUMP_BORING},   /* 0 */
        {2, {0x1020, 0x1030}, MR_JUMP_BORING},                   /* 1 */
        {1, {0x1040}, MR_JUMP_BORING},                           /* 2 */
        {3, {0x1010, 0x1020, 0x1030}, MR_JUMP_BORING},           /* 3 */
        {1, {0x1050}, MR_JUMP_RET},                              /* 4 */
    };
    const sym syms[] = {{0x1000, "f", 1}, {0x1010, "f", 2}, {0x1020, "f", 3},
                        {0x1030, "f", 4}, {0x1040, "f", 5}, {0x1050, "f", 6}};
    const uint32_t run[] = {0, 1, 1, 2, 3, 1, 1, 2, 4};
    write_trace(sbs, 5, syms, 6, run, 9);
    mr_reader *r;
    cfg *g = build(&r);
    assert_int_equal(cfg_nblocks(g), 5);
    const cfg_block *b2 = cfg_block_at(g, (uint32_t)cfg_block_of(g, 0x1030));
    assert_int_equal(b2->addr, 0x1020);
    assert_int_equal(b2->ninstrs, 2);
    assert_int_equal(cfg_nloops(g), 2);
    int32_t outer = cfg_loop_of(g, 0x1040), inner = cfg_loop_of(g, 0x1030);
    assert_true(outer >= 0 && inner >= 0 && outer != inner);
    const cfg_loop *lo = cfg_loop_at(g, (uint32_t)outer), *li = cfg_loop_at(g, (uint32_t)inner);
    assert_int_equal(lo->header, 0x1010);
    assert_int_equal(lo->depth, 1);
    assert_int_equal(lo->parent, -1);
    assert_int_equal(lo->nblocks, 3);
    assert_int_equal(lo->nheaders, 1);
    assert_int_equal(lo->line_min, 2);
    assert_int_equal(lo->line_max, 5);
    assert_string_equal(lo->file, "t.c");
    assert_int_equal(li->header, 0x1020);
    assert_int_equal(li->depth, 2);
    assert_int_equal(li->parent, outer);
    assert_int_equal(li->nblocks, 1);
    assert_int_equal(li->line_min, 3);
    assert_int_equal(li->line_max, 4);
    assert_int_equal(cfg_loop_of(g, 0x1010), outer);
    assert_int_equal(cfg_loop_of(g, 0x1020), inner);
    assert_int_equal(cfg_loop_of(g, 0x1000), -1);
    assert_int_equal(cfg_loop_of(g, 0x1050), -1);
    assert_int_equal(cfg_loop_of(g, 0x9999), -1);
    assert_true(cfg_loop_within(g, inner, outer));
    assert_false(cfg_loop_within(g, outer, inner));
    assert_string_equal(cfg_function_name(g, lo->function), "f");
    cfg_free(g);
    mr_reader_close(r);
}

/* Two loops one after the other, each a block jumping to itself. */
static void test_siblings(void **state)
{
    (void)state;
    const sb sbs[] = {
        {2, {0x2000, 0x2010}, MR_JUMP_BORING},
        {1, {0x2010}, MR_JUMP_BORING},
        {2, {0x2020, 0x2030}, MR_JUMP_BORING},
        {1, {0x2030}, MR_JUMP_BORING},
        {1, {0x2040}, MR_JUMP_RET},
    };
    const sym syms[] = {{0x2000, "s", 10}, {0x2010, "s", 11}, {0x2020, "s", 12},
                        {0x2030, "s", 13}, {0x2040, "s", 14}};
    const uint32_t run[] = {0, 1, 1, 2, 3, 3, 4};
    write_trace(sbs, 5, syms, 5, run, 7);
    mr_reader *r;
    cfg *g = build(&r);
    assert_int_equal(cfg_nblocks(g), 5);
    assert_int_equal(cfg_nloops(g), 2);
    int32_t a = cfg_loop_of(g, 0x2010), b = cfg_loop_of(g, 0x2030);
    assert_true(a >= 0 && b >= 0 && a != b);
    for (int32_t l = 0; l < 2; l++) {
        assert_int_equal(cfg_loop_at(g, (uint32_t)l)->parent, -1);
        assert_int_equal(cfg_loop_at(g, (uint32_t)l)->depth, 1);
        assert_int_equal(cfg_loop_at(g, (uint32_t)l)->nblocks, 1);
    }
    assert_int_equal(cfg_loop_at(g, (uint32_t)a)->line_min, 11);
    assert_int_equal(cfg_loop_at(g, (uint32_t)b)->line_max, 13);
    assert_int_equal(cfg_loop_of(g, 0x2020), -1);
    cfg_free(g);
    mr_reader_close(r);
}

/* main calls f twice; f's entry jumps into a cycle A <-> B at A the first
 * time and at B the second: an irreducible loop with two headers. */
static void test_irreducible(void **state)
{
    (void)state;
    const sb sbs[] = {
        {1, {0x5000}, MR_JUMP_CALL},    /* 0: main, call f */
        {1, {0x5005}, MR_JUMP_CALL},    /* 1: main, call f again */
        {1, {0x500a}, MR_JUMP_RET},     /* 2: main returns */
        {1, {0x3000}, MR_JUMP_BORING},  /* 3: f entry */
        {1, {0x3010}, MR_JUMP_BORING},  /* 4: A */
        {1, {0x3020}, MR_JUMP_BORING},  /* 5: B */
        {1, {0x3030}, MR_JUMP_RET},     /* 6: f exit */
    };
    const sym syms[] = {{0x5000, "main", 1}, {0x5005, "main", 2}, {0x500a, "main", 3},
                        {0x3000, "f", 20}, {0x3010, "f", 21}, {0x3020, "f", 22},
                        {0x3030, "f", 23}};
    const uint32_t run[] = {0, 3, 4, 5, 4, 6, 1, 3, 5, 4, 6, 2};
    write_trace(sbs, 7, syms, 7, run, 12);
    mr_reader *r;
    cfg *g = build(&r);
    assert_int_equal(cfg_nfunctions(g), 2);
    assert_int_equal(cfg_nloops(g), 1);
    const cfg_loop *l = cfg_loop_at(g, 0);
    assert_int_equal(l->nheaders, 2);
    assert_int_equal(l->nblocks, 2);
    assert_int_equal(l->header, 0x3010);
    assert_int_equal(l->line_min, 21);
    assert_int_equal(l->line_max, 22);
    assert_string_equal(cfg_function_name(g, l->function), "f");
    assert_int_equal(cfg_loop_of(g, 0x3020), 0);
    assert_int_equal(cfg_loop_of(g, 0x3000), -1);
    /* main: calls are no edges to f, but fall through to the return site */
    assert_int_equal(cfg_loop_of(g, 0x5005), -1);
    const cfg_block *m0 = cfg_block_at(g, (uint32_t)cfg_block_of(g, 0x5000));
    assert_true(m0->entry);
    assert_true(cfg_block_at(g, (uint32_t)cfg_block_of(g, 0x3000))->entry);
    cfg_free(g);
    mr_reader_close(r);
}

/* A loop in main calls g (no loop of its own): g's accesses count for
 * main's loop while called from it, and for no loop outside. */
static void test_callee_attribution(void **state)
{
    (void)state;
    const sb sbs[] = {
        {1, {0x6000}, MR_JUMP_CALL},    /* 0: loop head, call g */
        {1, {0x6005}, MR_JUMP_BORING},  /* 1: latch: back to 0x6000 or on */
        {1, {0x6015}, MR_JUMP_CALL},    /* 2: after the loop, call g again */
        {1, {0x601a}, MR_JUMP_RET},     /* 3 */
        {1, {0x7000}, MR_JUMP_RET},     /* 4: g */
    };
    const sym syms[] = {{0x6000, "main", 1}, {0x6005, "main", 2}, {0x6015, "main", 3},
                        {0x601a, "main", 4}, {0x7000, "g", 9}};
    const uint32_t run[] = {0, 4, 1, 0, 4, 1, 2, 4, 3};
    write_trace(sbs, 5, syms, 5, run, 9);
    mr_reader *r;
    cfg *g = build(&r);
    assert_int_equal(cfg_nloops(g), 1);
    int32_t l = cfg_loop_of(g, 0x6000);
    assert_int_equal(l, 0);
    assert_int_equal(cfg_loop_at(g, 0)->nblocks, 2);
    assert_int_equal(cfg_loop_of(g, 0x7000), -1);
    mr_reader_close(r);
    /* replay: the loop g's execution is attributed to, each time */
    char *err = NULL;
    r = mr_reader_open(trace, &err);
    assert_non_null(r);
    cfg_ctx *c = cfg_ctx_new(g);
    assert_non_null(c);
    mr_event ev;
    int32_t seen[3];
    uint32_t n = 0;
    while (mr_next(r, &ev) > 0) {
        if (ev.kind == MR_EV_EXEC && ev.u.exec.def->addr == 0x7000 && n < 3)
            seen[n++] = cfg_ctx_loop(c, ev.tid, 0x7000);
        assert_int_equal(cfg_ctx_event(c, &ev), 0);
    }
    assert_int_equal(n, 3);
    assert_int_equal(seen[0], 0);
    assert_int_equal(seen[1], 0);
    assert_int_equal(seen[2], -1);
    cfg_ctx_free(c);
    cfg_free(g);
    mr_reader_close(r);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(trace, sizeof trace, "%s/t.mrt", dir);
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
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_siblings),
        cmocka_unit_test(test_irreducible),
        cmocka_unit_test(test_callee_attribution),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
