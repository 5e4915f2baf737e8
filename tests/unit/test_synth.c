/*
 * test_synth.c: synthetic traces read back through the reader hold exactly
 * what the generator says it wrote, access by access, and the same seed
 * gives the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "synth/synth.h"

/* The accesses the generator reported, in order. */
typedef struct access_log {
    synth_access *a;
    size_t n, cap;
} access_log;

static void log_access(void *ctx, const synth_access *a)
{
    access_log *log = ctx;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 1024;
        log->a = realloc(log->a, log->cap * sizeof *log->a);
        assert_non_null(log->a);
    }
    log->a[log->n++] = *a;
}

/* What the reader found in a trace. */
typedef struct seen {
    synth_truth t;           /* counted from the events */
    mr_totals end_totals;    /* the end record's totals */
    int ended;               /* an end record was read */
    uint64_t mismatches;     /* accesses that differ from the log */
    uint64_t first_mismatch; /* index of the first one */
} seen;

/* A fresh temporary file name; the file exists and is empty. */
static char *temp_path(void)
{
    char *p = strdup("/tmp/test_synth.XXXXXX");
    int fd = mkstemp(p);
    assert_true(fd >= 0);
    close(fd);
    return p;
}

static void count_tid(seen *s, uint32_t tid, uint64_t *tid_mask)
{
    if (tid != 0 && tid < 64 && !(*tid_mask & (1ull << tid))) {
        *tid_mask |= 1ull << tid;
        s->t.threads++;
    }
}

/* Compares one access of the trace with the k-th one the generator
 * reported. */
static int same_access(const mr_access *a, const synth_access *want,
                       uint32_t tid)
{
    return a->addr == want->addr && a->size == want->size &&
           a->kind == want->kind && a->has_value == want->has_value &&
           (!a->has_value || a->value == want->value) && tid == want->tid;
}

static void count_exec(seen *s, const mr_event *ev, const access_log *log)
{
    s->t.blocks++;
    s->t.instructions += ev->u.exec.ninstrs;
    for (uint32_t k = 0; k < ev->u.exec.naccesses; k++) {
        const mr_access *a = &ev->u.exec.accesses[k];
        uint64_t i = s->t.accesses++;
        s->t.loads += a->kind == MR_LOAD;
        s->t.stores += a->kind == MR_STORE;
        s->t.modifies += a->kind == MR_MODIFY;
        s->t.values += a->has_value;
        if (i >= log->n || !same_access(a, &log->a[i], ev->tid)) {
            if (!s->mismatches)
                s->first_mismatch = i;
            s->mismatches++;
        }
    }
}

/* Reads the whole trace, counting what the truth counts. */
static seen read_back(const char *path, const access_log *log)
{
    seen s;
    uint64_t tid_mask = 0;
    char *err = NULL;
    mr_event ev;
    int rc;
    memset(&s, 0, sizeof s);
    mr_reader *r = mr_reader_open(path, &err);
    if (!r)
        fail_msg("cannot open %s: %s", path, err ? err : "?");
    while ((rc = mr_next(r, &ev)) == 1) {
        count_tid(&s, ev.tid, &tid_mask);
        switch (ev.kind) {
        case MR_EV_EXEC: count_exec(&s, &ev, log); break;
        case MR_EV_CALL: s.t.calls++; break;
        case MR_EV_RETURN: s.t.returns++; break;
        case MR_EV_MARK: s.t.marks++; break;
        case MR_EV_HEAP:
            s.t.allocs += ev.u.heap.h.op == MR_MALLOC;
            s.t.frees += ev.u.heap.h.op == MR_FREE;
            break;
        case MR_EV_THREAD: count_tid(&s, ev.u.thread.tid, &tid_mask); break;
        case MR_EV_END:
            s.ended = 1;
            s.end_totals = ev.u.end->totals;
            break;
        default: break;
        }
    }
    if (rc < 0)
        fail_msg("%s: %s", path, mr_reader_error(r));
    assert_int_equal(mr_reader_truncated(r), 0);
    mr_reader_close(r);
    return s;
}

/* Writes pattern p with n accesses in small chunks (so events cross chunk
 * boundaries) and checks the reader sees exactly the truth. */
static void check_pattern(synth_pattern p, uint64_t n, uint64_t seed)
{
    access_log log = {0};
    synth_options o = {.pattern = p, .accesses = n, .seed = seed,
                       .on_access = log_access, .ctx = &log};
    mr_writer_options wo = {.chunk_bytes = 16 * 1024};
    synth_truth t;
    char *err = NULL;
    char *path = temp_path();

    if (synth_write_file(path, &o, &wo, &t, &err) < 0)
        fail_msg("%s: %s", synth_pattern_name(p), err ? err : "?");
    assert_int_equal(t.accesses, n);
    assert_int_equal(t.loads + t.stores + t.modifies, n);
    assert_int_equal(log.n, n);

    seen s = read_back(path, &log);
    if (s.mismatches)
        fail_msg("%s: %llu accesses differ, first #%llu",
                 synth_pattern_name(p), (unsigned long long)s.mismatches,
                 (unsigned long long)s.first_mismatch);
    assert_int_equal(s.t.accesses, t.accesses);
    assert_int_equal(s.t.instructions, t.instructions);
    assert_int_equal(s.t.blocks, t.blocks);
    assert_int_equal(s.t.loads, t.loads);
    assert_int_equal(s.t.stores, t.stores);
    assert_int_equal(s.t.modifies, t.modifies);
    assert_int_equal(s.t.values, t.values);
    assert_int_equal(s.t.calls, t.calls);
    assert_int_equal(s.t.returns, t.returns);
    assert_int_equal(s.t.allocs, t.allocs);
    assert_int_equal(s.t.frees, t.frees);
    assert_int_equal(s.t.marks, t.marks);
    assert_int_equal(s.t.threads, t.threads);

    /* The writer's own totals in the end record agree too. */
    assert_true(s.ended);
    assert_int_equal(s.end_totals.instructions, t.instructions);
    assert_int_equal(s.end_totals.loads, t.loads);
    assert_int_equal(s.end_totals.stores, t.stores);
    assert_int_equal(s.end_totals.modifies, t.modifies);
    assert_int_equal(s.end_totals.allocs, t.allocs);
    assert_int_equal(s.end_totals.frees, t.frees);

    unlink(path);
    free(path);
    free(log.a);
}

static void test_sequential(void **state)
{
    (void)state;
    check_pattern(SYNTH_SEQUENTIAL, 100000, 1);
    synth_truth t;
    synth_options o = {.pattern = SYNTH_SEQUENTIAL, .accesses = 1000};
    assert_int_equal(synth_write(NULL, &o, &t), 0);
    assert_int_equal(t.loads, 1000);
    assert_int_equal(t.stores + t.modifies + t.allocs + t.frees, 0);
    assert_int_equal(t.threads, 1);
}

static void test_strided(void **state)
{
    (void)state;
    check_pattern(SYNTH_STRIDED, 100000, 2);
    synth_truth t;
    synth_options o = {.pattern = SYNTH_STRIDED, .accesses = 3000};
    assert_int_equal(synth_write(NULL, &o, &t), 0);
    /* two loads and one modify per iteration */
    assert_int_equal(t.loads, 2000);
    assert_int_equal(t.modifies, 1000);
}

static void test_random(void **state)
{
    (void)state;
    check_pattern(SYNTH_RANDOM, 100000, 3);
}

/* The list is malloc'd node by node and walked with pointer values. */
static void test_chase(void **state)
{
    (void)state;
    check_pattern(SYNTH_CHASE, 100000, 4);
    synth_truth t;
    synth_options o = {.pattern = SYNTH_CHASE, .accesses = 80000};
    assert_int_equal(synth_write(NULL, &o, &t), 0);
    assert_int_equal(t.allocs, 10000);      /* a node per 8 accesses */
    assert_int_equal(t.frees, 10000);
    assert_int_equal(t.stores, 20000);      /* next and payload per node */
    assert_int_equal(t.loads, 60000);
    assert_int_equal(t.values, 10000 + 30000);  /* next pointers */
}

static void test_mixed(void **state)
{
    (void)state;
    check_pattern(SYNTH_MIXED, 100000, 5);
}

static void test_threads(void **state)
{
    (void)state;
    check_pattern(SYNTH_THREADS, 100000, 6);
    synth_truth t;
    synth_options o = {.pattern = SYNTH_THREADS, .accesses = 100};
    assert_int_equal(synth_write(NULL, &o, &t), 0);
    assert_int_equal(t.threads, 5);         /* main and four workers */
    assert_int_equal(t.allocs, 4);
    assert_int_equal(t.frees, 4);
}

/* Odd budgets end inside a block, through a side exit; still exact. */
static void test_exact_budgets(void **state)
{
    (void)state;
    static const uint64_t budgets[] = {0, 1, 2, 7, 12345};
    for (int p = 0; p < SYNTH_NPATTERNS; p++)
        for (size_t i = 0; i < sizeof budgets / sizeof *budgets; i++)
            check_pattern((synth_pattern)p, budgets[i], 7);
}

/* The objects a trace defines, to check every access falls in one. */
typedef struct object_map {
    uint64_t data_lo[16], data_hi[16];   /* static data objects */
    int ndata;
    uint64_t *heap_lo, *heap_hi;         /* heap blocks, in address order */
    uint8_t *heap_live;
    size_t nheap, cap;
} object_map;

static void add_heap_block(object_map *m, uint64_t addr, uint64_t size)
{
    if (m->nheap == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->heap_lo = realloc(m->heap_lo, m->cap * sizeof *m->heap_lo);
        m->heap_hi = realloc(m->heap_hi, m->cap * sizeof *m->heap_hi);
        m->heap_live = realloc(m->heap_live, m->cap);
        assert_true(m->heap_lo && m->heap_hi && m->heap_live);
    }
    /* The generator's malloc hands out rising addresses. */
    assert_true(m->nheap == 0 || addr >= m->heap_hi[m->nheap - 1]);
    m->heap_lo[m->nheap] = addr;
    m->heap_hi[m->nheap] = addr + size;
    m->heap_live[m->nheap++] = 1;
}

/* Index of the last heap block starting at or below addr, or -1. */
static long heap_block_at(const object_map *m, uint64_t addr)
{
    long lo = 0, hi = (long)m->nheap - 1, found = -1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (m->heap_lo[mid] <= addr) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

/* 1 if [addr, addr+size) lies inside a static object or a live heap
 * block. */
static int in_some_object(const object_map *m, uint64_t addr, uint32_t size)
{
    for (int i = 0; i < m->ndata; i++)
        if (addr >= m->data_lo[i] && addr + size <= m->data_hi[i])
            return 1;
    long h = heap_block_at(m, addr);
    return h >= 0 && m->heap_live[h] && addr + size <= m->heap_hi[h];
}

static void track_heap(object_map *m, const mr_event *ev)
{
    const mr_heap *h = &ev->u.heap.h;
    assert_non_null(ev->u.heap.stack);          /* every site is interned */
    assert_int_equal(ev->u.heap.stack->depth, 2);
    if (h->op == MR_MALLOC) {
        add_heap_block(m, h->addr, h->size);
    } else {
        long i = heap_block_at(m, h->addr);
        assert_true(i >= 0 && m->heap_lo[i] == h->addr && m->heap_live[i]);
        m->heap_live[i] = 0;
    }
}

/* Every instruction executed has a symbol in synth.c with a function and
 * a line, and every access falls inside a static data object or a live
 * heap block: what object-level analyses and symbolisation rely on. */
static void check_objects_and_symbols(synth_pattern p)
{
    synth_options o = {.pattern = p, .accesses = 200000, .seed = 11};
    char *err = NULL;
    char *path = temp_path();
    object_map m = {0};
    mr_event ev;
    uint64_t stray = 0, unsymbolised = 0;
    int rc;
    if (synth_write_file(path, &o, NULL, NULL, &err) < 0)
        fail_msg("%s", err ? err : "?");
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    while ((rc = mr_next(r, &ev)) == 1) {
        if (ev.kind == MR_EV_DATAOBJ) {
            assert_true(m.ndata < 16);
            m.data_lo[m.ndata] = ev.u.dataobj->addr;
            m.data_hi[m.ndata++] = ev.u.dataobj->addr + ev.u.dataobj->size;
        } else if (ev.kind == MR_EV_HEAP) {
            track_heap(&m, &ev);
        } else if (ev.kind == MR_EV_EXEC) {
            for (uint32_t i = 0; i < ev.u.exec.ninstrs; i++) {
                const mr_symbol *s =
                    mr_reader_symbol(r, ev.u.exec.def->instrs[i].addr);
                unsymbolised += !s || !s->function || !s->file ||
                                strcmp(s->file, "synth.c") || !s->line;
            }
            for (uint32_t k = 0; k < ev.u.exec.naccesses; k++) {
                const mr_access *a = &ev.u.exec.accesses[k];
                stray += !in_some_object(&m, a->addr, a->size);
            }
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(unsymbolised, 0);
    assert_int_equal(stray, 0);
    for (size_t i = 0; i < m.nheap; i++)
        assert_int_equal(m.heap_live[i], 0);    /* everything was freed */
    mr_reader_close(r);
    unlink(path);
    free(path);
    free(m.heap_lo);
    free(m.heap_hi);
    free(m.heap_live);
}

static void test_objects_and_symbols(void **state)
{
    (void)state;
    for (int p = 0; p < SYNTH_NPATTERNS; p++)
        check_objects_and_symbols((synth_pattern)p);
}

/* Returns the bytes of a file (and its size in *n). */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *b = malloc(size ? size : 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return b;
}

/* Writes pattern p with the seed and returns the file's bytes. */
static unsigned char *synth_bytes(synth_pattern p, uint64_t seed, size_t *n)
{
    synth_options o = {.pattern = p, .accesses = 50000, .seed = seed};
    char *err = NULL;
    char *path = temp_path();
    if (synth_write_file(path, &o, NULL, NULL, &err) < 0)
        fail_msg("%s", err ? err : "?");
    unsigned char *b = slurp(path, n);
    unlink(path);
    free(path);
    return b;
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    for (int p = 0; p < SYNTH_NPATTERNS; p++) {
        size_t n1, n2;
        unsigned char *a = synth_bytes((synth_pattern)p, 42, &n1);
        unsigned char *b = synth_bytes((synth_pattern)p, 42, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);
        free(a);
        free(b);
    }
    /* ... and the seed matters where there is randomness. */
    size_t n1, n2;
    unsigned char *a = synth_bytes(SYNTH_RANDOM, 42, &n1);
    unsigned char *b = synth_bytes(SYNTH_RANDOM, 43, &n2);
    assert_true(n1 != n2 || memcmp(a, b, n1) != 0);
    free(a);
    free(b);
}

/* A writer that fails (a full disk) stops the generator at once, with
 * the writer's message. */
static void test_writer_failure(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    for (int p = 0; p < SYNTH_NPATTERNS; p++) {
        synth_options o = {.pattern = (synth_pattern)p, .accesses = 3000000};
        synth_truth t = {.accesses = 12345};
        char *err = NULL;
        assert_int_equal(synth_write_file("/dev/full", &o, NULL, &t, &err), -1);
        assert_non_null(err);
        assert_non_null(strstr(err, "No space left"));
        assert_int_equal(t.accesses, 12345);    /* no truth on failure */
        mr_free_error(err);
    }
}

static void test_names(void **state)
{
    (void)state;
    for (int p = 0; p < SYNTH_NPATTERNS; p++)
        assert_int_equal(synth_pattern_from_name(synth_pattern_name(p)), p);
    assert_int_equal(synth_pattern_from_name("linear"), -1);
    assert_int_equal(synth_pattern_from_name(""), -1);
    assert_null(synth_pattern_name(SYNTH_NPATTERNS));
    synth_options o = {.pattern = SYNTH_NPATTERNS, .accesses = 10};
    assert_int_equal(synth_write(NULL, &o, NULL), -1);
}

/* The JSON counts a modify in loads and stores too, as trace-info does. */
static void test_truth_json(void **state)
{
    (void)state;
    synth_truth t;
    char json[1024];
    synth_options o = {.pattern = SYNTH_STRIDED, .accesses = 300};
    assert_int_equal(synth_write(NULL, &o, &t), 0);
    synth_truth_json(&t, json, sizeof json);
    assert_non_null(strstr(json, "\"loads\": 300,"));
    assert_non_null(strstr(json, "\"stores\": 100,"));
    assert_non_null(strstr(json, "\"modifies\": 100,"));
    assert_non_null(strstr(json, "\"threads\": 1,"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequential),
        cmocka_unit_test(test_strided),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_chase),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_exact_budgets),
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_objects_and_symbols),
        cmocka_unit_test(test_writer_failure),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_truth_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
