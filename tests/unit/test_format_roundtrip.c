/*
 * test_format_roundtrip.c: random event streams of every kind, written with
 * small chunks so they cross many chunk boundaries, read back and compared
 * field by field (synthesised calls/returns, times, tids, totals included).
 */
#include <sys/stat.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_format_common.h"

/* Execution j of a batched event, as an unbatched reader delivers it. */
static mr_event batch_member(const mr_event *ev, uint64_t j, mr_access *acc)
{
    mr_event one = *ev;
    one.time += j * ev->u.exec.ninstrs;
    for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
        acc[i] = ev->u.exec.accesses[i];
        acc[i].addr += j * ev->u.exec.strides[i];
    }
    one.u.exec.accesses = acc;
    one.u.exec.repeat = 1;
    one.u.exec.strides = NULL;
    return one;
}

/* Reads path to the end and compares with g; returns the number of chunks.
 * batch: read with mr_reader_batch on, expanding batched events, and count
 * them in *batched (which must then be non-NULL). */
static uint64_t read_and_compare_mode(gen *g, const char *path, int expect_truncated,
                                      int batch, uint64_t *batched)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    if (!r)
        fail_msg("open: %s", err);
    mr_reader_batch(r, batch);
    size_t ie = 0, id = 0;
    mr_event ev;
    mr_access acc[64];
    int rc;
    while ((rc = mr_next(r, &ev)) == 1) {
        if (ev.kind == MR_EV_EXEC && ev.u.exec.repeat != 1) {
            assert_true(batch);
            assert_non_null(ev.u.exec.strides);
            assert_true(ev.u.exec.naccesses <= 64);
            (*batched)++;
            for (uint64_t j = 0; j < ev.u.exec.repeat; j++) {
                mr_event one = batch_member(&ev, j, acc);
                assert_true(ie < g->nev);
                const char *why = ev_diff(&g->ev[ie], &one);
                if (why)
                    fail_msg("event %zu, execution %llu of a batch, differs: %s", ie,
                             (unsigned long long)j, why);
                ie++;
            }
            continue;
        }
        if (is_def_kind(ev.kind)) {
            assert_true(id < g->ndefs);
            const char *why = def_diff(&g->defs[id], &ev);
            if (why)
                fail_msg("definition %zu differs: %s", id, why);
            id++;
            continue;
        }
        assert_true(ie < g->nev);
        const char *why = ev_diff(&g->ev[ie], &ev);
        if (why)
            fail_msg("event %zu (kind %d) differs: %s", ie, g->ev[ie].kind, why);
        ie++;
    }
    if (rc != 0)
        fail_msg("mr_next: %s", mr_reader_error(r));
    assert_int_equal(ie, g->nev);
    assert_int_equal(id, g->ndefs);
    assert_int_equal(mr_reader_truncated(r), expect_truncated);
    assert_int_equal(mr_next(r, &ev), 0);
    uint64_t chunks = mr_reader_chunks(r);
    mr_reader_close(r);
    return chunks;
}

/* One access, keyed by its block id and access index, for comparing
 * streams whose executions may come per block (MR_BATCH_PER_INSTRUCTION):
 * seq is its place in the stream, so sorting by key then seq gives every
 * instruction's own sequence. */
typedef struct acc_rec {
    uint64_t key, seq, addr, value, time;
    uint32_t size;
    uint8_t kind, has_value;
} acc_rec;

static int cmp_rec(const void *pa, const void *pb)
{
    const acc_rec *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct rec_list {
    acc_rec *r;
    size_t n, cap;
} rec_list;

static void rec_push(rec_list *l, uint32_t block, const mr_access *a, uint64_t addr, uint64_t time)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
        assert_non_null(l->r);
    }
    l->r[l->n] = (acc_rec){ ((uint64_t)block << 20) | a->instr, l->n, addr,
                            a->has_value ? a->value : 0, time, a->size, a->kind,
                            a->has_value };
    l->n++;
}

/* Reads path with MR_BATCH_PER_INSTRUCTION: the events other than
 * executions in order, and every instruction's accesses in order (with
 * their times), as g has them. Returns how many events stood for several
 * blocks' worth of a loop body (period > ninstrs). */
static uint64_t read_and_compare_per_instruction(gen *g, const char *path, int expect_truncated)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    if (!r)
        fail_msg("open: %s", err);
    mr_reader_batch(r, MR_BATCH_PER_INSTRUCTION);
    rec_list want = { 0 }, got = { 0 };
    size_t ie = 0;
    for (size_t i = 0; i < g->nev; i++)
        if (g->ev[i].kind == MR_EV_EXEC)
            for (uint32_t k = 0; k < g->ev[i].naccesses; k++)
                rec_push(&want, g->ev[i].block, &g->ev[i].accesses[k],
                         g->ev[i].accesses[k].addr, g->ev[i].time);
    uint64_t bodies = 0;
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1) {
        if (is_def_kind(ev.kind))
            continue;   /* compared by read_and_compare_mode */
        if (ev.kind == MR_EV_EXEC) {
            bodies += ev.u.exec.period != ev.u.exec.ninstrs;
            for (uint64_t j = 0; j < ev.u.exec.repeat; j++)
                for (uint32_t k = 0; k < ev.u.exec.naccesses; k++)
                    rec_push(&got, ev.u.exec.def->id, &ev.u.exec.accesses[k],
                             ev.u.exec.accesses[k].addr + (j ? j * ev.u.exec.strides[k] : 0),
                             ev.time + j * ev.u.exec.period);
            continue;
        }
        while (ie < g->nev && g->ev[ie].kind == MR_EV_EXEC)
            ie++;
        assert_true(ie < g->nev);
        const char *why = ev_diff(&g->ev[ie], &ev);
        if (why)
            fail_msg("event %zu (kind %d) differs: %s", ie, g->ev[ie].kind, why);
        ie++;
    }
    if (rc != 0)
        fail_msg("mr_next: %s", mr_reader_error(r));
    assert_int_equal(mr_reader_truncated(r), expect_truncated);
    assert_int_equal(got.n, want.n);
    qsort(want.r, want.n, sizeof *want.r, cmp_rec);
    qsort(got.r, got.n, sizeof *got.r, cmp_rec);
    for (size_t i = 0; i < want.n; i++) {
        acc_rec *a = &want.r[i], *b = &got.r[i];
        if (a->key != b->key || a->addr != b->addr || a->value != b->value ||
            a->time != b->time || a->size != b->size || a->kind != b->kind ||
            a->has_value != b->has_value)
            fail_msg("access %zu of block %llu, instruction %llu differs", i,
                     (unsigned long long)(a->key >> 20), (unsigned long long)(a->key & 0xfffff));
    }
    free(want.r);
    free(got.r);
    mr_reader_close(r);
    return bodies;
}

/* Every way: one event per execution, batched repeats, batched loop bodies;
 * batches must occur (every generated trace has loops), loop bodies too
 * unless chunks are so small that runs rarely get long enough. */
static uint64_t read_and_compare(gen *g, const char *path, int expect_truncated,
                                 int expect_bodies)
{
    uint64_t batched = 0;
    uint64_t chunks = read_and_compare_mode(g, path, expect_truncated, 0, NULL);
    assert_int_equal(read_and_compare_mode(g, path, expect_truncated, MR_BATCH_REPEATS, &batched),
                     chunks);
    assert_true(batched > 0);
    uint64_t bodies = read_and_compare_per_instruction(g, path, expect_truncated);
    assert_true(bodies > 0 || !expect_bodies);
    return chunks;
}

static void roundtrip(size_t chunk_bytes, int n, int values, int with_end)
{
    const char *path = tmp_trace_path("rt");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    gen g;
    gen_trace(&g, fd, chunk_bytes, n, values, with_end);
    uint64_t chunks = read_and_compare(&g, path, !with_end, chunk_bytes == 0);
    if (chunk_bytes < 4096)
        assert_true(chunks > 20);
    gen_free(&g);
    unlink(path);
}

static void test_small_chunks(void **state)
{
    (void)state;
    for (int i = 0; i < 5; i++)
        roundtrip(256 + 97 * i, 3000, 0, 1);
}

static void test_values(void **state)
{
    (void)state;
    for (int i = 0; i < 5; i++)
        roundtrip(300 + 50 * i, 3000, 1, 1);
}

static void test_default_chunks(void **state)
{
    (void)state;
    roundtrip(0, 50000, 1, 1);
}

/* The background thread changes when chunks are written, never what: the
 * same events give the same bytes, and they read back. */
static void background_same_bytes(size_t chunk_bytes, int n, int with_end)
{
    const char *paths[2] = { tmp_trace_path("fg"), tmp_trace_path("bg") };
    uint8_t *bytes[2];
    size_t len[2];
    gen g[2];
    for (int i = 0; i < 2; i++) {
        rng_state = 88172645463325252ULL;     /* the same events */
        gen_background = i;
        int fd = open(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        gen_trace(&g[i], fd, chunk_bytes, n, 1, with_end);
        bytes[i] = slurp(paths[i], &len[i]);
    }
    gen_background = 0;
    assert_true(len[0] > 1000);
    assert_int_equal(len[0], len[1]);
    assert_memory_equal(bytes[0], bytes[1], len[0]);
    read_and_compare(&g[1], paths[1], !with_end, chunk_bytes == 0);
    for (int i = 0; i < 2; i++) {
        gen_free(&g[i]);
        free(bytes[i]);
        unlink(paths[i]);
    }
}

static void test_background_same_bytes(void **state)
{
    (void)state;
    background_same_bytes(300, 5000, 1);    /* hundreds of chunks through the queue */
    background_same_bytes(0, 50000, 1);
    background_same_bytes(512, 3000, 0);
}

/* mr_write_execs writes what mr_write_exec writes, execution by execution:
 * the same bytes, with chunks closing by size and by EXEC_HITS work inside
 * one call. */
static void batched_same_bytes(size_t chunk_bytes, int n, int values)
{
    gen g[2];
    const char *paths[2] = { tmp_trace_path("single"), tmp_trace_path("batched") };
    uint8_t *bytes[2];
    size_t len[2];
    for (int i = 0; i < 2; i++) {
        rng_state = 88172645463325252ULL;     /* the same events */
        gen_batched = i;
        int fd = open(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        gen_trace(&g[i], fd, chunk_bytes, n, values, 1);
        bytes[i] = slurp(paths[i], &len[i]);
    }
    gen_batched = 0;
    assert_true(len[0] > 1000);
    assert_int_equal(len[0], len[1]);
    assert_memory_equal(bytes[0], bytes[1], len[0]);
    read_and_compare(&g[1], paths[1], 0, chunk_bytes == 0);
    for (int i = 0; i < 2; i++) {
        gen_free(&g[i]);
        free(bytes[i]);
        unlink(paths[i]);
    }
}

/* Parallel modelling (SPEC.md 6.8): whatever the number of workers, the
 * same events give the same bytes (executions one by one or batched),
 * which decode to the events written, as the sequential writer's do;
 * mr_writer_totals sums the workers' counts. Small chunks make hundreds
 * of pieces, with block and stack redefinitions cutting some. */
static void workers_same_bytes(size_t chunk_bytes, int n, int with_end)
{
    enum { RUNS = 4 };
    const int workers[RUNS] = { 1, 2, 3, 2 };
    const int batched[RUNS] = { 0, 0, 1, 1 };
    uint8_t *bytes[RUNS];
    size_t len[RUNS];
    gen g[RUNS];
    const char *path = tmp_trace_path("pieces");
    for (int i = 0; i < RUNS; i++) {
        rng_state = 88172645463325252ULL;     /* the same events */
        gen_workers = workers[i];
        gen_batched = batched[i];
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        gen_trace(&g[i], fd, chunk_bytes, n, 1, with_end);
        bytes[i] = slurp(path, &len[i]);
        assert_true(len[i] > 1000);
        if (i) {
            assert_int_equal(len[0], len[i]);
            assert_memory_equal(bytes[0], bytes[i], len[0]);
        }
    }
    gen_workers = gen_batched = 0;
    uint64_t chunks = read_and_compare(&g[0], path, !with_end, chunk_bytes == 0);
    if (chunk_bytes && chunk_bytes < 4096)
        assert_true(chunks > 20);
    /* The sequential writer's trace of the same events reads the same. */
    rng_state = 88172645463325252ULL;
    gen seq;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    gen_trace(&seq, fd, chunk_bytes, n, 1, with_end);
    read_and_compare(&seq, path, !with_end, chunk_bytes == 0);
    gen_free(&seq);
    for (int i = 0; i < RUNS; i++) {
        gen_free(&g[i]);
        free(bytes[i]);
    }
    unlink(path);
}

static void test_workers_same_bytes(void **state)
{
    (void)state;
    workers_same_bytes(300, 6000, 1);     /* pieces of 300 words */
    workers_same_bytes(1024, 20000, 1);
    workers_same_bytes(0, 50000, 1);      /* one piece */
    workers_same_bytes(512, 3000, 0);     /* no end record */
}

/* A worker's totals reach mr_writer_totals and the end record. */
static void test_workers_totals(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("ptotals");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, &(mr_writer_options){ .chunk_bytes = 256, .workers = 2 },
                                  &err);
    assert_non_null(w);
    mr_instr_def in[2] = { { 0x1000, 4 }, { 0x1004, 4 } };
    mr_access_def ac[1] = { { 1, MR_LOAD, 0, 8 } };
    mr_exit_def ex[1] = { { 2, 1, MR_JUMP_CALL } };
    mr_block_def b0 = { 0, 0x1000, 2, in, 1, ac, 1, ex };
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t a = 0x7000 + 8 * (i % 7);
        assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), 0);
        if (i % 1000 == 999)
            assert_int_equal(mr_write_heap(w, &(mr_heap){ .op = MR_MALLOC, .addr = i, .size = 8 }), 0);
    }
    const mr_totals *t = mr_writer_totals(w);
    assert_int_equal(t->instructions, 2 * 5000);
    assert_int_equal(t->blocks, 5000);
    assert_int_equal(t->loads, 5000);
    assert_int_equal(t->calls, 5000);
    assert_int_equal(t->allocs, 5);
    assert_int_equal(t->threads, 1);
    assert_int_equal(mr_write_exec(w, 0, 0, &(uint64_t){ 0x7000 }, NULL), 0);
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    uint64_t execs = 0;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1)
        if (ev.kind == MR_EV_EXEC)
            execs++;
        else if (ev.kind == MR_EV_END)
            assert_int_equal(ev.u.end->totals.blocks, 5001);
    assert_int_equal(rc, 0);
    assert_int_equal(execs, 5001);
    assert_true(mr_reader_chunks(r) > 20);
    mr_reader_close(r);
    unlink(path);
}

static void test_batched_same_bytes(void **state)
{
    (void)state;
    batched_same_bytes(300, 5000, 1);
    batched_same_bytes(0, 50000, 1);
    batched_same_bytes(2048, 20000, 0);   /* more blocks without values */
}

/* mr_write_execs refuses an undefined block, an exit the block does not
 * have and an execution cut short, and says which. */
static void test_batched_bad_input(void **state)
{
    (void)state;
    struct { uint64_t words[4]; size_t n; const char *error; } cases[] = {
        { { 0x5a | 7ull << 24 }, 1, "undefined block 7" },
        { { 0x5a | 3ull << 8 }, 1, "block 0 has no exit 3" },
        { { 0x5a, 0x1000 }, 2, "block 0 cut short" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *path = tmp_trace_path("badexecs");
        char *err = NULL;
        mr_writer *w = mr_writer_open(path, NULL, &err);
        assert_non_null(w);
        mr_instr_def ins[2] = { { 0x400000, 4 }, { 0x400004, 4 } };
        mr_access_def acc[2] = { { 0, MR_LOAD, 0, 8 }, { 1, MR_STORE, 0, 8 } };
        mr_exit_def ex[1] = { { 2, 2, MR_JUMP_BORING } };
        mr_block_def b = { 0, 0x400000, 2, ins, 2, acc, 1, ex };
        assert_int_equal(mr_write_block_def(w, &b), 0);
        uint64_t good[3] = { 0x5a, 0x1000, 0x2000 };
        size_t used = 99;
        assert_int_equal(mr_write_execs(w, good, 3, 0x5a, &used), 0);
        assert_int_equal(used, 3);
        assert_int_equal(mr_write_execs(w, cases[c].words, cases[c].n, 0x5a, &used), -1);
        assert_int_equal(used, 0);
        assert_non_null(strstr(mr_writer_error(w), cases[c].error));
        mr_writer_close(w, NULL, &err);
        mr_free_error(err);
        unlink(path);
    }
}

static void test_no_end_record(void **state)
{
    (void)state;
    roundtrip(512, 2000, 1, 0);
}

static void test_empty_trace(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("empty");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_end end = { MR_END_EXIT, 0, 0, { 0 } };
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    assert_int_equal(mr_next(r, &ev), 1);
    assert_int_equal(ev.kind, MR_EV_END);
    assert_int_equal(ev.u.end->reason, MR_END_EXIT);
    assert_int_equal(ev.u.end->totals.instructions, 0);
    assert_int_equal(mr_next(r, &ev), 0);
    assert_int_equal(mr_reader_truncated(r), 0);
    assert_int_equal(mr_reader_chunk_count(r), 1);
    mr_reader_close(r);
    unlink(path);
}

/* A hand-made trace whose calls and returns are known exactly. */
static void test_calls_and_returns(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("calls");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    mr_instr_def in[3] = { { 0x1000, 4 }, { 0x1004, 4 }, { 0x1008, 5 } };
    mr_access_def ac[1] = { { 1, MR_LOAD, 0, 8 } };
    mr_exit_def ex[2] = { { 2, 1, MR_JUMP_RET }, { 3, 1, MR_JUMP_CALL } };
    mr_block_def b0 = { 0, 0x1000, 3, in, 1, ac, 2, ex };
    mr_instr_def in1[1] = { { 0x2000, 2 } };
    mr_exit_def ex1[1] = { { 1, 0, MR_JUMP_BORING } };
    mr_block_def b1 = { 1, 0x2000, 1, in1, 0, NULL, 1, ex1 };
    uint64_t a = 0x7000;
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    assert_int_equal(mr_write_thread_switch(w, 7), 0);
    assert_int_equal(mr_write_exec(w, 0, 1, &a, NULL), 0);   /* leaves by call */
    assert_int_equal(mr_write_exec(w, 1, 0, NULL, NULL), 0);
    assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), 0);   /* leaves by return */
    assert_int_equal(mr_write_exec(w, 1, 0, NULL, NULL), 0);
    const mr_totals *t = mr_writer_totals(w);
    assert_int_equal(t->calls, 1);
    assert_int_equal(t->returns, 1);
    assert_int_equal(t->instructions, 3 + 1 + 2 + 1);
    assert_int_equal(t->threads, 1);
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);

    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    int kinds[] = { MR_EV_BLOCK_DEF, MR_EV_BLOCK_DEF, MR_EV_THREAD, MR_EV_EXEC, MR_EV_CALL,
                    MR_EV_EXEC, MR_EV_EXEC, MR_EV_RETURN, MR_EV_EXEC, MR_EV_END };
    uint64_t times[] = { 0, 0, 0, 0, 3, 3, 4, 6, 6, 7 };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        assert_int_equal(mr_next(r, &ev), 1);
        assert_int_equal(ev.kind, kinds[i]);
        assert_int_equal(ev.time, times[i]);
        if (i >= 2)
            assert_int_equal(ev.tid, 7);
        if (ev.kind == MR_EV_CALL) {
            assert_int_equal(ev.u.call.from, 0x1008);
            assert_int_equal(ev.u.call.to, 0x2000);
        }
        if (ev.kind == MR_EV_RETURN) {
            assert_int_equal(ev.u.call.from, 0x1004);
            assert_int_equal(ev.u.call.to, 0x2000);
        }
    }
    assert_int_equal(mr_next(r, &ev), 0);
    assert_non_null(mr_reader_block(r, 1));
    assert_null(mr_reader_block(r, 2));
    mr_reader_close(r);
    unlink(path);
}

/* A loop over a pointer that then changes: the run of repeated executions
 * must leave each access's value offset (voff) as one execution at a time
 * would, or the chased address after the run decodes wrong. Block 0 loads
 * p at 0x1000 and then p->field at p + 8; block 1 loads q->field at q + 16
 * with q loaded by the previous execution's second access. */
static void test_repeat_then_chase(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("chase");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_instr_def in[2] = { { 0x400000, 4 }, { 0x400004, 4 } };
    mr_access_def ac0[2] = { { 0, MR_LOAD, MR_ACC_VALUE, 8 }, { 1, MR_LOAD, 0, 8 } };
    mr_access_def ac1[2] = { { 0, MR_LOAD, 0, 8 }, { 1, MR_LOAD, MR_ACC_VALUE, 8 } };
    mr_exit_def ex[1] = { { 2, 2, MR_JUMP_BORING } };
    mr_block_def b0 = { 0, 0x400000, 2, in, 2, ac0, 1, ex };
    mr_block_def b1 = { 1, 0x400000, 2, in, 2, ac1, 1, ex };
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    /* expected addresses and values of every execution, in order */
    uint64_t want[2 * 600][2], wval[2 * 600];
    size_t n = 0;
    for (uint32_t block = 0; block < 2; block++) {
        for (int phase = 0; phase < 3; phase++) {
            uint64_t p = 0x50000 + 0x1000 * (uint64_t)phase + 0x100 * block;
            for (int j = 0; j < 100; j++) {
                uint64_t addrs[2], v = p;
                if (block == 0) {
                    addrs[0] = 0x1000;
                    addrs[1] = p + 8;
                } else {
                    addrs[0] = p + 16;
                    addrs[1] = 0x2000;
                }
                assert_int_equal(mr_write_exec(w, block, 0, addrs, &v), 0);
                want[n][0] = addrs[0];
                want[n][1] = addrs[1];
                wval[n++] = v;
            }
        }
    }
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);

    for (int batch = 0; batch < 2; batch++) {
        mr_reader *r = mr_reader_open(path, &err);
        assert_non_null(r);
        mr_reader_batch(r, batch);
        mr_event ev;
        size_t k = 0, events = 0;
        while (mr_next(r, &ev) == 1) {
            if (ev.kind != MR_EV_EXEC)
                continue;
            events++;
            for (uint64_t j = 0; j < ev.u.exec.repeat; j++, k++) {
                assert_true(k < n);
                for (int i = 0; i < 2; i++) {
                    const mr_access *a = &ev.u.exec.accesses[i];
                    uint64_t addr = a->addr + (j ? j * ev.u.exec.strides[i] : 0);
                    assert_int_equal(addr, want[k][i]);
                    if (a->has_value)
                        assert_int_equal(a->value, wval[k]);
                }
            }
        }
        assert_null(mr_reader_error(r));
        assert_int_equal(k, n);
        if (batch)   /* each phase: a few single executions, then one batch */
            assert_true(events < n / 10);
        else
            assert_int_equal(events, n);
        mr_reader_close(r);
    }
    unlink(path);
}

/* A loop body of two blocks, the first leaving by a call: every execution
 * of the second in the run comes after a synthesised call event. After
 * the run, an execution of the predicted block that is no repeat (a new
 * address) must still be decoded in its turn. */
static void test_repeat_across_calls(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("rcall");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_instr_def ia[1] = { { 0x1000, 4 } }, ib[1] = { { 0x2000, 4 } };
    mr_access_def ac[1] = { { 0, MR_LOAD, 0, 8 } };
    mr_exit_def ea[1] = { { 1, 1, MR_JUMP_CALL } }, eb[1] = { { 1, 1, MR_JUMP_BORING } };
    mr_block_def a = { 0, 0x1000, 1, ia, 1, ac, 1, ea }, b = { 1, 0x2000, 1, ib, 1, ac, 1, eb };
    assert_int_equal(mr_write_block_def(w, &a), 0);
    assert_int_equal(mr_write_block_def(w, &b), 0);
    uint64_t want[202];
    int n = 0;
    for (int trip = 0; trip < 100; trip++)
        for (uint32_t blk = 0; blk < 2; blk++) {
            uint64_t addr = 0x10000 * (blk + 1) + 8 * (uint64_t)trip;
            assert_int_equal(mr_write_exec(w, blk, 0, &addr, NULL), 0);
            want[n++] = addr;
        }
    for (uint32_t blk = 0; blk < 2; blk++) {   /* no repeats: new addresses */
        uint64_t addr = 0x90000 + blk;
        assert_int_equal(mr_write_exec(w, blk, 0, &addr, NULL), 0);
        want[n++] = addr;
    }
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);
    for (int batch = 0; batch < 2; batch++) {
        mr_reader *r = mr_reader_open(path, &err);
        assert_non_null(r);
        mr_reader_batch(r, batch);
        mr_event ev;
        int k = 0, calls = 0;
        while (mr_next(r, &ev) == 1) {
            if (ev.kind == MR_EV_CALL) {
                assert_int_equal(k % 2, 1);   /* before each execution of b */
                assert_int_equal(ev.u.call.to, 0x2000);
                calls++;
            }
            if (ev.kind != MR_EV_EXEC)
                continue;
            assert_int_equal(ev.u.exec.repeat, 1);   /* a call in the loop: no batch */
            assert_true(k < n);
            assert_int_equal(ev.u.exec.def->id, (uint32_t)(k % 2));
            assert_int_equal(ev.u.exec.accesses[0].addr, want[k]);
            assert_int_equal(ev.time, (uint64_t)k);
            k++;
        }
        assert_null(mr_reader_error(r));
        assert_int_equal(k, n);
        assert_int_equal(calls, n / 2);
        mr_reader_close(r);
    }
    unlink(path);
}

/* A loop body of two blocks over a pointer that then changes, read with
 * MR_BATCH_PER_INSTRUCTION: block 0 loads p from 0x3000, block 1 loads
 * from p + off. After each batched run the value offsets must be
 * the last trip's, or the chased address of the next trip decodes wrong. */
static void test_body_then_chase(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("body");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_instr_def i0[1] = { { 0x400000, 4 } }, i1[1] = { { 0x400100, 4 } };
    /* Both load pointers: VHIT is only allowed in a block with a value. */
    mr_access_def a0[1] = { { 0, MR_LOAD, MR_ACC_VALUE, 8 } },
                  a1[1] = { { 0, MR_LOAD, MR_ACC_VALUE, 8 } };
    mr_exit_def ex[1] = { { 1, 1, MR_JUMP_BORING } };
    mr_block_def b0 = { 0, 0x400000, 1, i0, 1, a0, 1, ex }, b1 = { 1, 0x400100, 1, i1, 1, a1, 1, ex };
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    enum { PHASES = 6, TRIPS = 40, MAX = PHASES * (TRIPS + 1) };
    uint64_t want[2][MAX], when[2][MAX];   /* per block: addresses, times */
    size_t nw[2] = { 0, 0 };
    uint64_t time = 0;
    /* p->field walks on by 8 each trip; a new p starts at the offset the
     * last trip reached, which only the last trip's value offset predicts.
     * Odd phases end with one more execution of block 0, so their run ends
     * inside the body: the last trip then starts after block 0's value. */
    uint64_t off = 24;
    for (int phase = 0; phase < PHASES; phase++) {
        uint64_t p = 0x70000 + 0x10000 * (uint64_t)phase, a = 0x3000, field = 0x5555;
        for (int t = 0; t < TRIPS + (phase & 1); t++) {
            assert_int_equal(mr_write_exec(w, 0, 0, &a, &p), 0);
            want[0][nw[0]] = a;
            when[0][nw[0]++] = time++;
            if (t == TRIPS)
                break;
            off += t ? 8 : 0;
            uint64_t b = p + off;
            assert_int_equal(mr_write_exec(w, 1, 0, &b, &field), 0);
            want[1][nw[1]] = b;
            when[1][nw[1]++] = time++;
        }
    }
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_reader_batch(r, MR_BATCH_PER_INSTRUCTION);
    mr_event ev;
    size_t k[2] = { 0, 0 }, bodies = 0;
    while (mr_next(r, &ev) == 1) {
        if (ev.kind != MR_EV_EXEC)
            continue;
        uint32_t id = ev.u.exec.def->id;
        bodies += ev.u.exec.period == 2;
        for (uint64_t j = 0; j < ev.u.exec.repeat; j++, k[id]++) {
            assert_true(k[id] < nw[id]);
            uint64_t addr = ev.u.exec.accesses[0].addr + (j ? j * ev.u.exec.strides[0] : 0);
            assert_int_equal(addr, want[id][k[id]]);
            assert_int_equal(ev.time + j * ev.u.exec.period, when[id][k[id]]);
        }
    }
    assert_null(mr_reader_error(r));
    assert_int_equal(k[0], nw[0]);
    assert_int_equal(k[1], nw[1]);
    assert_true(bodies >= 2 * PHASES);   /* every phase's run, both blocks */
    mr_reader_close(r);
    unlink(path);
}

/* A run that starts in a chain of 20 blocks (longer than any loop body
 * the reader batches) and ends in a loop of two: with batching per
 * instruction the reader follows the predictions ahead of the run one
 * execution at a time (hits.c's walk), finds the loop once the run is in
 * it and delivers it per block; every address and time as written. */
static void test_chain_then_body(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("chain");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    enum { CHAIN = 20, NB = CHAIN + 2, PHASES = 5, TRIPS = 30 };
    mr_instr_def in[NB][1];
    mr_access_def ac[1] = { { 0, MR_LOAD, 0, 8 } };
    mr_exit_def ex[1] = { { 1, 1, MR_JUMP_BORING } };
    for (uint32_t b = 0; b < NB; b++) {
        in[b][0] = (mr_instr_def){ 0x400000 + 0x100 * (uint64_t)b, 4 };
        mr_block_def d = { b, in[b][0].addr, 1, in[b], 1, ac, 1, ex };
        assert_int_equal(mr_write_block_def(w, &d), 0);
    }
    enum { MAX = PHASES * TRIPS };
    static uint64_t want[NB][MAX], when[NB][MAX];
    size_t nw[NB] = { 0 };
    uint64_t time = 0;
    for (int ph = 0; ph < PHASES; ph++) {
        for (uint32_t b = 0; b < CHAIN; b++) {   /* each a stride of 64 a phase */
            uint64_t a = 0x1000000 * (uint64_t)(b + 1) + 64 * (uint64_t)ph;
            assert_int_equal(mr_write_exec(w, b, 0, &a, NULL), 0);
            want[b][nw[b]] = a;
            when[b][nw[b]++] = time++;
        }
        for (int t = 0; t < TRIPS; t++)          /* the loop: strides 8 and 16 */
            for (uint32_t b = CHAIN; b < NB; b++) {
                uint64_t a = 0x90000000 + 0x1000000 * (uint64_t)(b - CHAIN) +
                             8 * (uint64_t)(b - CHAIN + 1) * nw[b];
                assert_int_equal(mr_write_exec(w, b, 0, &a, NULL), 0);
                want[b][nw[b]] = a;
                when[b][nw[b]++] = time++;
            }
    }
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_reader_batch(r, MR_BATCH_PER_INSTRUCTION);
    mr_event ev;
    size_t k[NB] = { 0 }, bodies = 0;
    while (mr_next(r, &ev) == 1) {
        if (ev.kind != MR_EV_EXEC)
            continue;
        uint32_t id = ev.u.exec.def->id;
        assert_true(id < NB);
        bodies += ev.u.exec.period == 2 && ev.u.exec.repeat > 1;
        for (uint64_t j = 0; j < ev.u.exec.repeat; j++, k[id]++) {
            assert_true(k[id] < nw[id]);
            uint64_t addr = ev.u.exec.accesses[0].addr + (j ? j * ev.u.exec.strides[0] : 0);
            assert_int_equal(addr, want[id][k[id]]);
            assert_int_equal(ev.time + j * ev.u.exec.period, when[id][k[id]]);
        }
    }
    assert_null(mr_reader_error(r));
    for (uint32_t b = 0; b < NB; b++)
        assert_int_equal(k[b], nw[b]);
    assert_true(bodies >= 2 * PHASES);   /* the loop of every phase, both blocks */
    mr_reader_close(r);
    unlink(path);
}

/* Writes one load per execution at addresses base + (random bits << shift)
 * for each phase, reads them back exactly (unbatched; chunk_bytes small
 * so that chunks end inside groups), and returns the trace's size. */
typedef struct delta_phase { unsigned bits, shift; int n; } delta_phase;
static size_t delta_roundtrip(const delta_phase *ph, int nph, size_t chunk_bytes)
{
    const char *path = tmp_trace_path("deltas");
    char *err = NULL;
    mr_writer_options o = { .chunk_bytes = chunk_bytes };
    mr_writer *w = mr_writer_open(path, &o, &err);
    assert_non_null(w);
    mr_instr_def in[1] = { { 0x400000, 4 } };
    mr_access_def ac[1] = { { 0, MR_LOAD, 0, 8 } };
    mr_exit_def ex[1] = { { 1, 1, MR_JUMP_BORING } };
    mr_block_def b = { 0, 0x400000, 1, in, 1, ac, 1, ex };
    assert_int_equal(mr_write_block_def(w, &b), 0);
    size_t total = 0;
    for (int k = 0; k < nph; k++)
        total += (size_t)ph[k].n;
    uint64_t *want = malloc(total * sizeof *want);
    size_t n = 0;
    for (int k = 0; k < nph; k++)
        for (int j = 0; j < ph[k].n; j++) {
            uint64_t bits = ph[k].bits >= 64 ? rnd() : rnd() & ((1ULL << ph[k].bits) - 1);
            want[n] = 0x10000000 + (bits << ph[k].shift);
            assert_int_equal(mr_write_exec(w, 0, 0, &want[n++], NULL), 0);
        }
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    size_t k = 0;
    while (mr_next(r, &ev) == 1)
        if (ev.kind == MR_EV_EXEC) {
            assert_true(k < n);
            assert_int_equal(ev.u.exec.accesses[0].addr, want[k++]);
        }
    assert_null(mr_reader_error(r));
    assert_int_equal(k, n);
    mr_reader_close(r);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    unlink(path);
    free(want);
    return (size_t)st.st_size;
}

/* Address deltas of every width (SPEC.md 6.7), in runs that are no
 * multiple of a group, across chunk ends; then random deltas must cost no
 * more than their packed fields: a random 64-bit delta is a 10- or 9-byte
 * varint and zstd cannot shrink random bytes, so only packing gets under
 * 8.5 bytes, and likewise 23 random bits under 3.3 bytes (varints: 4). */
static void test_delta_groups(void **state)
{
    (void)state;
    static const delta_phase mix[] = {
        { 23, 3, 1000 }, { 64, 0, 700 }, { 1, 0, 300 }, { 17, 4, 333 },
        { 40, 1, 129 }, { 5, 0, 1 }, { 63, 0, 257 }, { 12, 6, 128 }, { 58, 2, 300 },
    };
    delta_roundtrip(mix, 9, 4096);
    delta_roundtrip(mix, 9, 0);
    static const delta_phase wide[] = { { 64, 0, 20000 } }, table[] = { { 23, 3, 50000 } };
    size_t wide_bytes = delta_roundtrip(wide, 1, 0);
    size_t table_bytes = delta_roundtrip(table, 1, 0);
    assert_true(wide_bytes < 20000 * 85 / 10);
    assert_true(table_bytes < 50000 * 33 / 10);
}

/* Every EVENTS chunk is one zstd frame whose window holds the whole
 * chunk: zstd then writes it as a single segment (RFC 8878: bit 5 of the
 * frame header descriptor, the byte after the magic). A chunk bigger than
 * zstd's own window for the level (2 MiB at level 3) would otherwise make
 * it slide its window through the chunk: more work, fewer matches. The
 * chunks are walked by the layout SPEC.md 3-4 gives: a 20-byte file
 * header, then per chunk 44 bytes (kind at 4, raw_size at 8, comp_size at
 * 12) and the frame. */
static void test_chunk_window(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("window");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);   /* 4 MiB chunks */
    assert_non_null(w);
    mr_instr_def in[1] = { { 0x400000, 4 } };
    mr_access_def ac[8];
    for (int i = 0; i < 8; i++)
        ac[i] = (mr_access_def){ 0, MR_LOAD, 0, 8 };
    mr_exit_def ex[1] = { { 1, 8, MR_JUMP_BORING } };
    mr_block_def b = { 0, 0x400000, 1, in, 8, ac, 1, ex };
    assert_int_equal(mr_write_block_def(w, &b), 0);
    for (int e = 0; e < 150000; e++) {   /* random addresses: about 9 MB of streams */
        uint64_t addrs[8];
        for (int i = 0; i < 8; i++)
            addrs[i] = rnd() & 0xfffffffff8ULL;
        assert_int_equal(mr_write_exec(w, 0, 0, addrs, NULL), 0);
    }
    mr_end end = { .reason = MR_END_EXIT };
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
    size_t n;
    uint8_t *t = slurp(path, &n);
    int big = 0;
    for (size_t at = 20; at + 44 <= n;) {
        uint32_t raw, comp;
        memcpy(&raw, t + at + 8, 4);
        memcpy(&comp, t + at + 12, 4);
        if (t[at + 4] == 2 && raw > (2u << 20)) {   /* an EVENTS chunk over 2 MiB */
            big++;
            assert_true(comp > 5);
            assert_true(t[at + 44 + 4] & 0x20);   /* Single_Segment_flag */
        }
        at += 44 + (size_t)comp;
    }
    assert_true(big >= 2);
    free(t);
    unlink(path);
}

/* Modules by code address: their text, the stretch between their load
 * address and their text (a PLT), the latest definition of an id. */
static void test_modules(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("mod");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, &(mr_writer_options){ 0 }, &err);
    mr_module exe = { 0, "/bin/app", 0x401000, 0x2000, 0 };          /* not PIE */
    mr_module lib = { 1, "/lib/libx.so", 0x7000100, 0x1000, 0x7000000 };
    mr_module old = { 2, "/lib/old.so", 0x8000100, 0x100, 0x8000000 };
    mr_module moved = { 2, "/lib/new.so", 0x9000100, 0x100, 0x9000000 };
    assert_int_equal(mr_write_module(w, &exe), 0);
    assert_int_equal(mr_write_module(w, &lib), 0);
    assert_int_equal(mr_write_module(w, &old), 0);
    assert_int_equal(mr_write_module(w, &moved), 0);
    assert_int_equal(mr_writer_close(w, NULL, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    mr_event ev;
    while (mr_next(r, &ev) == 1)
        ;
    assert_string_equal(mr_reader_module(r, 0x401000)->path, "/bin/app");
    assert_string_equal(mr_reader_module(r, 0x400020)->path, "/bin/app");   /* its PLT */
    assert_null(mr_reader_module(r, 0x403000));                  /* past its text */
    assert_string_equal(mr_reader_module(r, 0x7000010)->path, "/lib/libx.so");
    assert_string_equal(mr_reader_module(r, 0x7001000)->path, "/lib/libx.so");
    assert_null(mr_reader_module(r, 0x7001100));
    assert_null(mr_reader_module(r, 0x8000100));                 /* redefined */
    assert_string_equal(mr_reader_module(r, 0x9000180)->path, "/lib/new.so");
    mr_reader_close(r);
    unlink(path);
}

static void test_symbols(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("sym");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, &(mr_writer_options){ .chunk_bytes = 300 }, &err);
    for (uint64_t a = 0x1000; a < 0x3000; a += 0x100) {
        mr_symbol s = { a, a & 0x100 ? "odd" : "even", "f.c", (uint32_t)(a >> 8) };
        assert_int_equal(mr_write_symbol(w, &s), 0);
    }
    assert_int_equal(mr_writer_close(w, NULL, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    mr_event ev;
    while (mr_next(r, &ev) == 1)
        ;
    assert_int_equal(mr_reader_truncated(r), 1);   /* closed without an end */
    const mr_symbol *s = mr_reader_symbol(r, 0x1100);
    assert_non_null(s);
    assert_string_equal(s->function, "odd");
    s = mr_reader_symbol(r, 0x1200 + 63);
    assert_non_null(s);
    assert_int_equal(s->addr, 0x1200);
    assert_string_equal(s->function, "even");
    assert_null(mr_reader_symbol(r, 0x1200 + 64));
    assert_null(mr_reader_symbol(r, 0xfff));
    assert_non_null(mr_reader_symbol(r, 0x2f00 + 10));
    mr_reader_close(r);
    unlink(path);
}

/* Nearest-symbol lookups while symbols keep arriving, chunk after chunk,
 * against a brute-force search over the symbols delivered so far. */
static void test_symbols_incremental(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("symi");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, &(mr_writer_options){ .chunk_bytes = 256 }, &err);
    uint64_t addrs[600];
    for (int i = 0; i < 600; i++) {
        addrs[i] = 0x10000 + rndn(40000);
        mr_symbol s = { addrs[i], "f", "f.c", (uint32_t)i };
        assert_int_equal(mr_write_symbol(w, &s), 0);
        if (i % 50 == 0)
            mr_write_mark(w, "m");   /* events between batches of symbols */
    }
    assert_int_equal(mr_writer_close(w, NULL, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    mr_event ev;
    size_t seen = 0;
    while (mr_next(r, &ev) == 1) {
        if (ev.kind == MR_EV_SYMBOL)
            seen++;
        for (int q = 0; q < 5; q++) {
            uint64_t a = 0x10000 - 100 + rndn(40200);
            /* Brute force: the latest symbol at the best address <= a. */
            int best = -1;
            for (size_t i = 0; i < seen; i++)
                if (addrs[i] <= a && a - addrs[i] < 64 &&
                    (best < 0 || addrs[i] >= addrs[best]))
                    best = (int)i;
            const mr_symbol *s = mr_reader_symbol(r, a);
            if (best < 0) {
                assert_null(s);
            } else {
                assert_non_null(s);
                assert_int_equal(s->addr, addrs[best]);
            }
        }
    }
    mr_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_chunks),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_default_chunks),
        cmocka_unit_test(test_no_end_record),
        cmocka_unit_test(test_background_same_bytes),
        cmocka_unit_test(test_batched_same_bytes),
        cmocka_unit_test(test_workers_same_bytes),
        cmocka_unit_test(test_workers_totals),
        cmocka_unit_test(test_batched_bad_input),
        cmocka_unit_test(test_empty_trace),
        cmocka_unit_test(test_calls_and_returns),
        cmocka_unit_test(test_repeat_then_chase),
        cmocka_unit_test(test_repeat_across_calls),
        cmocka_unit_test(test_body_then_chase),
        cmocka_unit_test(test_chain_then_body),
        cmocka_unit_test(test_delta_groups),
        cmocka_unit_test(test_chunk_window),
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_symbols),
        cmocka_unit_test(test_symbols_incremental),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
