/*
 * test_twpp_plus.c: TWPP+ in the .twpp file. Figure 4.2's loop gives
 * Figure 4.3's six edges grouped per load point as Figure 4.5 has them
 * (kept all), and with section 4.1's rule the two edges whose ends both
 * touch one address dropped; the highest instance of every store. On
 * every stored sample trace (the .mrt files of tests/data) the edges read back from
 * the file equal those an exact last-writer pass computes here on its
 * own (its own access-point numbering, single-address sets and
 * grouping). Every truncation of a file with TWPP+ is refused and byte
 * changes in its sections never crash.
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

#include "base/u64map.h"
#include "twpp/deps.h"
#include "twpp/edges.h"
#include "twpp/file.h"
#include "twpp/plus.h"

static char path[] = "/tmp/test_twpp_plus_XXXXXX";

/* ---- Figure 4.2 ---------------------------------------------------------- */

/* F's blocks B1..B4: B1 W(a); B2 W(b); B3 two stores through pointers;
 * B4 R(a) R(b). Block k is id k at 0x1000 + 16k. */
static mr_access_def adefs[5][2];
static mr_instr_def idefs[5][2];
static mr_exit_def xdefs[5];
static mr_block_def bdefs[5];

static const mr_block_def *fblock(uint32_t k)
{
    uint32_t n = k == 3 || k == 4 ? 2 : 1;
    for (uint32_t i = 0; i < n; i++) {
        adefs[k][i] = (mr_access_def){ .instr = (uint16_t)i, .kind = k == 4 ? MR_LOAD : MR_STORE, .size = 8 };
        idefs[k][i] = (mr_instr_def){ .addr = 0x1000 + 16 * k + 4 * i, .len = 4 };
    }
    xdefs[k] = (mr_exit_def){ .ninstrs = n, .naccesses = n };
    bdefs[k] = (mr_block_def){ .id = k, .addr = 0x1000 + 16 * k, .ninstrs = n, .instrs = idefs[k],
                               .naccesses = n, .accesses = adefs[k], .nexits = 1, .exits = &xdefs[k] };
    return &bdefs[k];
}

/* One execution of block k with its accesses at addr[]. */
static void run_block(twpp_builder *b, twpp_plus *p, uint32_t k, const uint64_t *addr)
{
    const mr_block_def *d = fblock(k);
    mr_access acc[2];
    for (uint32_t i = 0; i < d->naccesses; i++)
        acc[i] = (mr_access){ .addr = addr[i], .size = 8, .instr = (uint16_t)i,
                              .kind = d->accesses[i].kind };
    mr_event ev = { .kind = MR_EV_EXEC, .tid = 1 };
    ev.u.exec.def = d;
    ev.u.exec.exit = 0;
    ev.u.exec.ninstrs = d->ninstrs;
    ev.u.exec.naccesses = d->naccesses;
    ev.u.exec.accesses = acc;
    ev.u.exec.repeat = 1;
    twpp_where w;
    assert_int_equal(twpp_exec_where(b, 1, d, 0, &w), 0);
    assert_int_equal(twpp_plus_exec(p, &w, &ev), 0);
}

enum { a = 0x8000, bb = 0x8008, c = 0x9000 };

/* Writes Figure 4.2's trace with TWPP+ (keep_all or the rule) to path. */
static void write_figure_4_2(int keep_all)
{
    twpp_builder *b = twpp_builder_new();
    twpp_plus *p = twpp_plus_new();
    const uint64_t A[] = { a }, B[] = { bb }, BA[] = { bb, a }, AC[] = { a, c }, AB[] = { a, bb };
    run_block(b, p, 1, A);
    run_block(b, p, 2, B);
    run_block(b, p, 4, AB);
    run_block(b, p, 1, A);
    run_block(b, p, 3, BA);
    run_block(b, p, 4, AB);
    run_block(b, p, 1, A);
    run_block(b, p, 3, AC);
    run_block(b, p, 4, AB);
    twpp_model *m = twpp_finish(b, NULL);
    assert_non_null(m);
    assert_int_equal(twpp_plus_finish(p, NULL, keep_all), 0);
    char err[256];
    twpp_sizes sz;
    assert_int_equal(twpp_write(m, p, path, &sz, NULL, err, sizeof err), 0);
    twpp_model_free(m);
    twpp_plus_free(p);
}

/* Points in order of first execution: B1's store, B2's, B4's two loads,
 * B3's two stores. The figure's names for them: */
enum { A1 = 0, A2 = 1, A5 = 2, A6 = 3, A3 = 4, A4 = 5 };

/* An expected edge [<g0,1,bc0>, <g1,1,bc1>, sn] (F is called once). */
typedef struct want { uint32_t g0, bc0, g1, bc1, sn; } want;

static void assert_edges(twpp_file *f, uint32_t g, const want *w, uint32_t n)
{
    char err[256];
    twpp_edge_iter *it = twpp_edges_open(f, g, err, sizeof err);
    assert_non_null(it);
    twpp_edge e;
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(twpp_edges_next(it, &e), 1);
        assert_int_equal(e.load.point, w[i].g0);
        assert_int_equal(e.load.fc, 1);
        assert_int_equal(e.load.bc, w[i].bc0);
        assert_int_equal(e.store.point, w[i].g1);
        assert_int_equal(e.store.fc, 1);
        assert_int_equal(e.store.bc, w[i].bc1);
        assert_int_equal(e.sn, w[i].sn);
    }
    assert_int_equal(twpp_edges_next(it, &e), 0);
    twpp_edges_close(it);
}

/* Kept all: Figure 4.3's six edges regrouped by load point with their
 * sequence numbers, Figure 4.5(b) plus A6's first edge (B2's W(b)),
 * which Figure 4.4 drops. */
static void test_figure_4_5_all(void **state)
{
    (void)state;
    char err[256];
    write_figure_4_2(1);
    twpp_file *f = twpp_open(path, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(twpp_load_points(f, err, sizeof err), 0);
    assert_int_equal(twpp_point_count(f), 6);
    const want a5[] = { { A5, 1, A1, 1, 1 }, { A5, 2, A4, 1, 1 }, { A5, 3, A3, 2, 1 } };
    const want a6[] = { { A6, 1, A2, 1, 1 }, { A6, 2, A3, 1, 1 }, { A6, 3, A3, 1, 2 } };
    assert_edges(f, A5, a5, 3);
    assert_edges(f, A6, a6, 3);
    assert_null(twpp_edges_open(f, A1, err, sizeof err));   /* a store point */
    /* the highest instance of every store: B1's third, B3's second */
    assert_int_equal(twpp_file_point(f, A1)->stores, 3);
    assert_int_equal(twpp_file_point(f, A1)->last_bc, 3);
    assert_int_equal(twpp_file_point(f, A3)->stores, 2);
    assert_int_equal(twpp_file_point(f, A2)->stores, 1);
    assert_int_equal(twpp_file_point(f, A5)->stores, 0);
    twpp_close(f);
}

/* Section 4.1's rule: B1's W(a), B2's W(b) and B4's two loads touch one
 * address each, B3's stores two: A5 <- A1 and A6 <- A2 are dropped (the
 * figure keeps the first; the notes explain why the stated rule wins). */
static void test_figure_4_5_rule(void **state)
{
    (void)state;
    char err[256];
    write_figure_4_2(0);
    twpp_file *f = twpp_open(path, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(twpp_load_points(f, err, sizeof err), 0);
    const want a5[] = { { A5, 2, A4, 1, 1 }, { A5, 3, A3, 2, 1 } };
    const want a6[] = { { A6, 2, A3, 1, 1 }, { A6, 3, A3, 1, 2 } };
    assert_edges(f, A5, a5, 2);
    assert_edges(f, A6, a6, 2);
    const twpp_point *p5 = twpp_file_point(f, A5);
    assert_true(p5->single && p5->addr == a);
    assert_int_equal(p5->loads, 3);
    assert_int_equal(p5->dropped, 1);
    assert_false(twpp_file_point(f, A3)->single);
    /* LOAD as printed (from 1) or function:line (no symbols here: the
     * function is its entry address, every line 0) */
    uint32_t *g;
    assert_int_equal(twpp_find_loads(f, "3", &g), 1);
    assert_int_equal(g[0], A5);
    free(g);
    assert_int_equal(twpp_find_loads(f, "6", &g), 0);     /* B3's second store */
    free(g);
    assert_int_equal(twpp_find_loads(f, "0x1010:0", &g), 2);
    free(g);
    assert_int_equal(twpp_find_loads(f, "0x1010:1", &g), 0);
    free(g);
    twpp_close(f);
}

/* A long loop (two stores taking turns over a ring of addresses, two
 * loads behind them): its load points' buffers fill several zstd'd chunks
 * (plus.c's EDGE_CHUNK), and the edges still come back exactly as an
 * exact pass run here gives them. */
static void test_long_loop(void **state)
{
    (void)state;
    enum { N = 40000 };
    twpp_builder *b = twpp_builder_new();
    twpp_plus *p = twpp_plus_new();
    twpp_deps *d = twpp_deps_new();
    static twpp_edge want[2][N];
    uint32_t nwant[2] = { 0, 0 };
    for (uint32_t i = 0; i < N; i++) {
        const uint64_t st[] = { 0x10000 + 8 * (i % 5), 0x10000 + 8 * ((i + 2) % 5) };
        const uint64_t ld[] = { 0x10000 + 8 * ((i + 1) % 5), 0x10000 + 8 * ((i * 3) % 5) };
        run_block(b, p, 3, st);     /* points 0, 1 */
        run_block(b, p, 4, ld);     /* points 2, 3 */
        for (int k = 0; k < 2; k++) {
            twpp_instance s = { (uint32_t)k, 1, i + 1 };
            assert_int_equal(twpp_deps_store(d, &s, st[k], 8), 0);
        }
        for (int k = 0; k < 2; k++) {
            twpp_instance l = { 2 + (uint32_t)k, 1, i + 1 };
            twpp_edge e;
            if (twpp_deps_load(d, &l, ld[k], 8, &e) == 1)
                want[k][nwant[k]++] = e;
        }
    }
    twpp_model *m = twpp_finish(b, NULL);
    assert_int_equal(twpp_plus_finish(p, NULL, 0), 0);
    char err[256];
    twpp_sizes sz;
    assert_int_equal(twpp_write(m, p, path, &sz, NULL, err, sizeof err), 0);
    twpp_model_free(m);
    twpp_plus_free(p);
    twpp_deps_free(d);
    twpp_file *f = twpp_open(path, err, sizeof err);
    assert_non_null(f);
    for (int k = 0; k < 2; k++) {
        twpp_edge_iter *it = twpp_edges_open(f, 2 + (uint32_t)k, err, sizeof err);
        twpp_edge e;
        assert_non_null(it);
        for (uint32_t i = 0; i < nwant[k]; i++) {
            assert_int_equal(twpp_edges_next(it, &e), 1);
            assert_memory_equal(&e, &want[k][i], sizeof e);
        }
        assert_int_equal(twpp_edges_next(it, &e), 0);
        twpp_edges_close(it);
    }
    assert_true(nwant[0] > N / 2);
    twpp_close(f);
}

/* BC is the symbol's instance within its own call: a recursive call
 * counts from 1 and its caller's count goes on after it returns. */
static void test_instances_across_recursion(void **state)
{
    (void)state;
    static mr_exit_def ex[5];
    static mr_block_def d[5];
    const int jumps[5] = { MR_JUMP_CALL, MR_JUMP_RET, MR_JUMP_BORING, MR_JUMP_CALL, MR_JUMP_RET };
    for (uint32_t k = 0; k < 5; k++) {  /* main: 0 calls, 1 returns; f: 2, 3 calls f, 4 returns */
        ex[k] = (mr_exit_def){ .ninstrs = 1, .jump = (uint8_t)jumps[k] };
        d[k] = (mr_block_def){ .id = 20 + k, .addr = 0x5000 + 16 * k, .ninstrs = 1, .nexits = 1, .exits = &ex[k] };
    }
    /* main calls f; f runs 2, calls f (2, returns by 4), runs 2 again, returns */
    const uint32_t seq[] = { 0, 2, 3, 2, 4, 2, 4, 1 };
    const uint32_t fc[] = { 1, 1, 1, 2, 2, 1, 1, 1 }, bc[] = { 1, 1, 1, 1, 1, 2, 1, 1 };
    twpp_builder *b = twpp_builder_new();
    for (uint32_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        twpp_where w;
        assert_int_equal(twpp_exec_where(b, 1, &d[seq[i]], 0, &w), 0);
        assert_int_equal(w.fc, fc[i]);
        assert_int_equal(w.bc, bc[i]);
    }
    twpp_model_free(twpp_finish(b, NULL));
}

/* ---- the stored samples ------------------------------------------------------ */

/* The exact pass's own view of a sample: access points keyed by
 * (function, symbol, instruction, kind) in order of first execution, the
 * addresses of each machine instruction, and every edge. */
typedef struct ref_point { uint32_t fn, symbol, instr, kind; uint64_t iaddr; uint32_t isize; } ref_point;
typedef struct ref_insn { uint64_t addr; uint32_t size; int multi; } ref_insn;

static ref_point *rpoints;
static uint32_t nrpoints;
static size_t rpoints_cap;
static twpp_edge *redges;
static size_t nredges, redges_cap;

static uint32_t ref_point_of(u64map *map, const twpp_where *w, const mr_access *acc,
                             const mr_block_def *def)
{
    for (uint64_t key = ((uint64_t)w->symbol << 32 | (uint64_t)acc->instr << 2 | acc->kind) * 31 + w->fn;; key++) {
        int added;
        void **slot = u64map_slot_of(map, key, &added);
        assert_non_null(slot);
        if (!added) {
            ref_point *q = &rpoints[(uintptr_t)*slot - 1];
            if (q->fn == w->fn && q->symbol == w->symbol && q->instr == acc->instr && q->kind == acc->kind)
                return (uint32_t)((uintptr_t)*slot - 1);
            continue;
        }
        if (nrpoints == rpoints_cap)
            rpoints = realloc(rpoints, (rpoints_cap = rpoints_cap * 2 + 64) * sizeof *rpoints);
        rpoints[nrpoints] = (ref_point){ w->fn, w->symbol, acc->instr, acc->kind,
                                         def->instrs[acc->instr].addr, acc->size };
        *slot = (void *)(uintptr_t)++nrpoints;
        return nrpoints - 1;
    }
}

/* The single-address state of the machine instruction (address, kind,
 * size) of access acc. */
static void ref_touch(u64map *insns, const mr_block_def *def, const mr_access *acc)
{
    uint64_t key = def->instrs[acc->instr].addr * 4 + acc->kind + ((uint64_t)acc->size << 56);
    int added;
    void **slot = u64map_slot_of(insns, key, &added);
    if (added) {
        ref_insn *r = malloc(sizeof *r);
        *r = (ref_insn){ acc->addr, acc->size, 0 };
        *slot = r;
    } else {
        ref_insn *r = *slot;
        r->multi |= r->addr != acc->addr || r->size != acc->size;
    }
}

static int ref_single(u64map *insns, const ref_point *p)
{
    ref_insn *r = u64map_get(insns, p->iaddr * 4 + p->kind + ((uint64_t)p->isize << 56));
    return r && !r->multi;
}

static void check_sample(const char *trace)
{
    char *rerr = NULL, err[256];
    mr_reader *r = mr_reader_open(trace, &rerr);
    assert_non_null(r);
    twpp_builder *b = twpp_builder_new();
    twpp_plus *p = twpp_plus_new();
    twpp_deps *d = twpp_deps_new();
    u64map map = {0}, insns = {0};
    mr_event ev;
    nrpoints = 0;
    nredges = 0;
    while (mr_next(r, &ev) > 0) {
        if (ev.kind != MR_EV_EXEC)
            continue;
        twpp_where w;
        assert_int_equal(twpp_exec_where(b, ev.tid, ev.u.exec.def, ev.u.exec.exit, &w), 0);
        assert_int_equal(twpp_plus_exec(p, &w, &ev), 0);
        for (uint32_t i = 0; i < ev.u.exec.naccesses; i++) {
            const mr_access *acc = &ev.u.exec.accesses[i];
            twpp_instance in = { ref_point_of(&map, &w, acc, ev.u.exec.def), w.fc, w.bc };
            ref_touch(&insns, ev.u.exec.def, acc);
            twpp_edge e;
            if ((acc->kind & MR_LOAD) && twpp_deps_load(d, &in, acc->addr, acc->size, &e) == 1) {
                if (nredges == redges_cap)
                    redges = realloc(redges, (redges_cap = redges_cap * 2 + 1024) * sizeof *redges);
                redges[nredges++] = e;
            }
            if (acc->kind & MR_STORE)
                assert_int_equal(twpp_deps_store(d, &in, acc->addr, acc->size), 0);
        }
    }
    twpp_model *m = twpp_finish(b, r);
    assert_non_null(m);
    assert_int_equal(twpp_plus_finish(p, r, 0), 0);
    twpp_sizes sz;
    assert_int_equal(twpp_write(m, p, path, &sz, NULL, err, sizeof err), 0);
    twpp_model_free(m);
    twpp_plus_free(p);

    /* the file against the reference: same points, and per load point
     * the reference's edges in order, less those with both ends single */
    twpp_file *f = twpp_open(path, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(twpp_load_points(f, err, sizeof err), 0);
    assert_int_equal(twpp_point_count(f), nrpoints);
    uint64_t *next = calloc(nrpoints + 1, sizeof *next), compared = 0;
    for (uint32_t g = 0; g < nrpoints; g++) {
        const twpp_point *pt = twpp_file_point(f, g);
        assert_int_equal(pt->symbol, rpoints[g].symbol);
        assert_int_equal(pt->single, ref_single(&insns, &rpoints[g]));
        if (!pt->loads)
            continue;
        twpp_edge_iter *it = twpp_edges_open(f, g, err, sizeof err);
        assert_non_null(it);
        twpp_edge got;
        for (size_t i = 0; i < nredges; i++) {
            const twpp_edge *e = &redges[i];
            if (e->load.point != g ||
                (ref_single(&insns, &rpoints[g]) && ref_single(&insns, &rpoints[e->store.point])))
                continue;
            assert_int_equal(twpp_edges_next(it, &got), 1);
            assert_memory_equal(&got, e, sizeof got);
            compared++;
        }
        assert_int_equal(twpp_edges_next(it, &got), 0);
        twpp_edges_close(it);
    }
    assert_true(compared > 0 || nredges == 0);
    free(next);
    twpp_close(f);
    for (size_t i = 0; i < insns.cap; i++)
        if (insns.slots[i].used)
            free(insns.slots[i].value);
    u64map_free(&insns);
    u64map_free(&map);
    twpp_deps_free(d);
    mr_reader_close(r);
}

static void test_samples(void **state)
{
    (void)state;
    static const char *const samples[] = { "tests/data/linked_list.mrt", "tests/data/binary_tree.mrt",
                                           "tests/data/prodcons.mrt", "tests/data/threads.mrt",
                                           "tests/data/mixed.mrt", "tests/data/v2-mixed.mrt",
                                           "tests/data/mixed-cut.mrt" };   /* cut short: read as far as it goes */
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
        check_sample(samples[i]);
    free(rpoints);
    free(redges);
}

/* ---- bad bytes ---------------------------------------------------------------- */

/* Reads every TWPP+ section and edge of the file at path: 0 or -1. */
static int read_plus(void)
{
    char err[256];
    twpp_file *f = twpp_open(path, err, sizeof err);
    if (!f)
        return -1;
    int rc = twpp_load_points(f, err, sizeof err);
    for (uint32_t g = 0; rc == 0 && g < twpp_point_count(f); g++) {
        if (!twpp_file_point(f, g)->loads)
            continue;
        twpp_edge_iter *it = twpp_edges_open(f, g, err, sizeof err);
        twpp_edge e;
        int r = 0;
        while (it && (r = twpp_edges_next(it, &e)) > 0)
            ;
        rc = !it || r < 0 ? -1 : 0;
        twpp_edges_close(it);
    }
    twpp_close(f);
    return rc;
}

static void test_corrupt_plus(void **state)
{
    (void)state;
    write_figure_4_2(1);
    FILE *in = fopen(path, "rb");
    static uint8_t bytes[1 << 16];
    size_t n = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    assert_int_equal(read_plus(), 0);
    for (size_t cut = 0; cut < n; cut++) {
        FILE *out = fopen(path, "wb");
        fwrite(bytes, 1, cut, out);
        fclose(out);
        assert_int_equal(read_plus(), -1);
    }
    for (size_t at = 0; at < n; at++)
        for (int bit = 0; bit < 8; bit += 2) {
            bytes[at] ^= (uint8_t)(1 << bit);
            FILE *out = fopen(path, "wb");
            fwrite(bytes, 1, n, out);
            fclose(out);
            (void)read_plus();
            bytes[at] ^= (uint8_t)(1 << bit);
        }
}

static int setup(void **state)
{
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_4_5_all),
        cmocka_unit_test(test_figure_4_5_rule),
        cmocka_unit_test(test_instances_across_recursion),
        cmocka_unit_test(test_long_loop),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_corrupt_plus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
