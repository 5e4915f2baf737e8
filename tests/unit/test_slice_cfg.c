/*
 * test_slice_cfg.c: control dependence as trace-slice computes it
 * (slice/cfg.h), on a hand-made function: an if-then-else inside a loop,
 *
 *     0x10 A: jcc 0x20        (if)
 *     0x12 B: nop             (then)
 *     0x14 B2: jmp 0x22
 *     0x20 C: nop             (else)
 *     0x22 D: jcc 0x10        (loop back)
 *     0x24 E: ret
 *
 * run as A B B2 D A C D E (then, else, exit): the then and else sides
 * depend on A, A and D on D (the loop), E on nothing. When the else side
 * never ran, A's untaken target is an edge to EXIT: the then side still
 * depends on A.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "slice/cfg.h"

enum { A, B, B2, C, D, E, N };

static const uint64_t addr[N] = { 0x10, 0x12, 0x14, 0x20, 0x22, 0x24 };
static const uint8_t flow[N] = { SLICE_FLOW_COND, SLICE_FLOW_NEXT, SLICE_FLOW_JUMP,
                                 SLICE_FLOW_NEXT, SLICE_FLOW_COND, SLICE_FLOW_RET };
static const uint64_t target[N] = { 0x20, 0, 0x22, 0, 0x10, 0 };

/* A run whose one function took one path: the instructions in order
 * (each its own block and symbol). */
typedef struct fixture {
    slice_run r;
    twpp_model m;
    twpp_symbol syms[N];
    twpp_function fn;
    twpp_path path;
    twpp_seq trace, dict;
    uint32_t dict_v[1];
    slice_insn insns[N];
    slice_block blocks[N];
    uint32_t block_insn[N];
} fixture;

static void make(fixture *f, const uint32_t *path, uint32_t n)
{
    memset(f, 0, sizeof *f);
    for (uint32_t i = 0; i < N; i++) {
        f->syms[i] = (twpp_symbol){ .addr = addr[i], .block = i, .ninstrs = 1,
                                    .jump = i == E ? MR_JUMP_RET : MR_JUMP_BORING };
        f->insns[i] = (slice_insn){ .addr = addr[i], .r = { .len = 2, .flow = flow[i], .target = target[i] } };
        f->block_insn[i] = i;
        f->blocks[i] = (slice_block){ &f->block_insn[i], 1 };
    }
    f->trace = (twpp_seq){ (uint32_t *)path, n };
    f->dict = (twpp_seq){ f->dict_v, 1 };      /* no chains */
    f->path = (twpp_path){ 0, 0, 1 };
    f->fn = (twpp_function){ .entry = 0x10, .calls = 1, .paths = &f->path, .npaths = 1,
                             .traces = &f->trace, .ntraces = 1, .dicts = &f->dict, .ndicts = 1 };
    f->m = (twpp_model){ .symbols = f->syms, .nsymbols = N, .functions = &f->fn, .nfunctions = 1 };
    f->r.m = &f->m;
    f->r.insns = f->insns;
    f->r.blocks = f->blocks;
    f->r.nblocks = N;
    /* only the instructions that ran are known */
    for (uint32_t k = 0; k < n; k++) {
        int added;
        void **slot = u64map_slot_of(&f->r.insn_at, addr[path[k]], &added);
        assert_non_null(slot);
        *slot = (void *)(uintptr_t)(path[k] + 1);
    }
    f->r.ninsns = N;
}

/* The parents of insn as a bit set of instruction numbers. */
static unsigned parents(slice_cfg *g, uint32_t insn)
{
    const uint32_t *p;
    uint32_t n;
    unsigned set = 0;
    assert_int_equal(slice_cfg_parents(g, 0, insn, &p, &n), 0);
    for (uint32_t k = 0; k < n; k++)
        set |= 1u << p[k];
    return set;
}

static void loop_with_both_sides(void **state)
{
    (void)state;
    static const uint32_t path[] = { A, B, B2, D, A, C, D, E };
    fixture f;
    make(&f, path, 8);
    slice_cfg *g = slice_cfg_new(&f.r);
    assert_non_null(g);
    assert_int_equal(parents(g, B), 1u << A);
    assert_int_equal(parents(g, B2), 1u << A);
    assert_int_equal(parents(g, C), 1u << A);
    assert_int_equal(parents(g, A), 1u << D);
    assert_int_equal(parents(g, D), 1u << D);
    assert_int_equal(parents(g, E), 0);
    slice_cfg_free(g);
    u64map_free(&f.r.insn_at);
}

static void else_side_never_ran(void **state)
{
    (void)state;
    static const uint32_t path[] = { A, B, B2, D, E };
    fixture f;
    make(&f, path, 5);
    slice_cfg *g = slice_cfg_new(&f.r);
    assert_non_null(g);
    assert_true(parents(g, B) & 1u << A);
    assert_true(parents(g, B2) & 1u << A);
    assert_int_equal(parents(g, A), 1u << D);
    slice_cfg_free(g);
    u64map_free(&f.r.insn_at);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loop_with_both_sides),
        cmocka_unit_test(else_side_never_ran),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
