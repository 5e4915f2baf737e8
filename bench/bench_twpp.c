/*
 * bench_twpp: one function's path traces extracted from a TWPP file
 * against extracting them from the Sequitur WPP (Tables 3.4, 3.5).
 *
 *   bench_twpp [--runs=R] TRACE FILE.twpp FUNCTION    ("-": the most called)
 *
 * The Sequitur side: TRACE's per-thread grammars are built as trace-wpp
 * builds them and serialized (sq_serialize, as trace-wpp --db stores
 * them); timed: deserializing every thread's grammar and walking its
 * expansion with a call stack (calls and returns from the exits' jump
 * kinds), keeping the blocks of every call of FUNCTION. The TWPP side,
 * timed: opening FILE.twpp, finding FUNCTION and reading its block in
 * TWPP form (its unique compacted traces as DBB -> timestamp series, its
 * dictionaries: what Table 3.4 times), counting each path's blocks from
 * them; and, apart, the same with every path expanded block by block.
 * All must find the same blocks (every call's trace for Sequitur; the
 * unique ones, weighted by their calls, for TWPP). Prints one line:
 * blocks, median milliseconds of R runs (default 5) of Sequitur and TWPP,
 * their ratio, and TWPP expanded, in CPU time; then the first two and
 * their ratio in wall clock. Exits 1 when something breaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algo/sequitur.h"
#include "base/array.h"
#include "twpp/file.h"
#include "wpp/wpp.h"

/* CPU time of the process: on a shared machine wall clock measures the
 * other processes as much as this one. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Wall clock, reported beside. */
static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_twpp: %s\n", what);
    exit(1);
}

/* The Sequitur WPP: serialized grammars and each symbol's address and jump. */
typedef struct seq_wpp {
    void **blobs;
    size_t *lens;
    uint32_t nthreads;
    uint64_t *addr;
    uint8_t *jump;
} seq_wpp;

static void build_wpp(const char *trace, seq_wpp *s)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(trace, &err);
    wpp *w = wpp_new();
    size_t cap = 0;
    mr_event ev;
    if (!r || !w)
        die(r ? "out of memory" : err ? err : "cannot open the trace");
    s->jump = NULL;
    while (mr_next(r, &ev) > 0) {
        if (ev.kind != MR_EV_EXEC)
            continue;
        uint32_t before = wpp_symbol_count(w);
        if (wpp_exec(w, ev.tid, ev.u.exec.def, ev.u.exec.exit) < 0)
            die("out of memory");
        if (wpp_symbol_count(w) > before) {     /* a new symbol: remember its jump */
            if (ARRAY_FIT(s->jump, cap, before + 1) < 0)
                die("out of memory");
            const mr_block_def *d = ev.u.exec.def;
            s->jump[before] = ev.u.exec.exit < d->nexits ? d->exits[ev.u.exec.exit].jump : 0;
        }
    }
    s->nthreads = wpp_thread_count(w);
    s->blobs = calloc(s->nthreads + 1, sizeof *s->blobs);
    s->lens = calloc(s->nthreads + 1, sizeof *s->lens);
    s->addr = calloc(wpp_symbol_count(w) + 1, sizeof *s->addr);
    for (uint32_t i = 0; i < wpp_symbol_count(w); i++)
        s->addr[i] = wpp_symbol(w, i)->addr;
    for (uint32_t t = 0; t < s->nthreads; t++) {
        sq_grammar *g = wpp_thread_grammar(w, t);
        if (!g || sq_serialize(g, &s->blobs[t], &s->lens[t]) < 0)
            die("cannot serialize a grammar");
        sq_grammar_free(g);
    }
    wpp_free(w);
    mr_reader_close(r);
}

/* Blocks of every call of the function entered at entry, from the grammars. */
static uint64_t extract_sequitur(const seq_wpp *s, uint64_t entry)
{
    char err[256];
    uint64_t found = 0;
    uint8_t *mine = NULL;       /* per open call: is it a call of entry? */
    size_t cap = 0;
    for (uint32_t t = 0; t < s->nthreads; t++) {
        sq_grammar *g = sq_deserialize(s->blobs[t], s->lens[t], err, sizeof err);
        sq_iter *it = g ? sq_iter_new(g, 0) : NULL;
        size_t depth = 0;
        int calling = 1;        /* the thread's first block opens a call */
        uint64_t sym;
        if (!it)
            die("cannot read a grammar back");
        while (sq_iter_next(it, &sym) > 0) {
            if (calling) {
                if (ARRAY_FIT(mine, cap, depth + 1) < 0)
                    die("out of memory");
                mine[depth++] = s->addr[sym] == entry;
            }
            found += mine[depth - 1];
            calling = s->jump[sym] == MR_JUMP_CALL;
            if (s->jump[sym] == MR_JUMP_RET && --depth == 0)
                calling = 1;
        }
        sq_iter_free(it);
        sq_grammar_free(g);
    }
    free(mine);
    return found;
}

/* Counts blocks of one expansion. */
static int count(void *ctx, uint32_t s)
{
    (void)s;
    ++*(uint64_t *)ctx;
    return 0;
}

/* Blocks of every call of function name, from the .twpp file alone: its
 * block read in TWPP form (twpp_load_function_lazy), each path's blocks
 * counted from its DBBs' timestamp series and dictionary chains, without
 * expanding them; expand also walks every path block by block. */
static uint64_t extract_twpp(const char *path, const char *name, int expand, uint64_t *entry)
{
    char err[256];
    twpp_file *f = twpp_open(path, err, sizeof err);
    if (!f)
        die(err);
    int64_t i = strcmp(name, "-") ? twpp_find_function(f, name) : 0;   /* "-": the most called */
    if (i < 0 || (expand ? twpp_load_function(f, (uint32_t)i, err, sizeof err)
                         : twpp_load_function_lazy(f, (uint32_t)i, err, sizeof err)) < 0)
        die(i < 0 ? "no such function" : err);
    const twpp_function *fn = &twpp_file_model(f)->functions[i];
    uint64_t total = 0;
    for (uint32_t p = 0; p < fn->npaths; p++) {
        uint64_t n = 0;
        if (expand)
            twpp_expand_path(&fn->traces[fn->paths[p].trace], &fn->dicts[fn->paths[p].dict], count, &n);
        else
            n = twpp_path_blocks(fn, p);
        total += n * fn->paths[p].calls;
    }
    *entry = fn->entry;
    twpp_close(f);
    return total;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = 5, a = 1;
    if (argc > 1 && !strncmp(argv[1], "--runs=", 7))
        runs = atoi(argv[a++] + 7);
    if (argc - a != 3 || runs < 1 || runs > 100)
        die("usage: bench_twpp [--runs=R] TRACE FILE.twpp FUNCTION");
    seq_wpp s;
    build_wpp(argv[a], &s);
    double ts[100], tq[100], tx[100], ws[100], wq[100];
    uint64_t entry = 0, nt = 0, nq = 0, nx = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now(), w0 = wall();
        nt = extract_twpp(argv[a + 1], argv[a + 2], 0, &entry);
        double t1 = now(), w1 = wall();
        nq = extract_sequitur(&s, entry);
        double t2 = now(), w2 = wall();
        ws[r] = (w1 - w0) * 1e3;
        wq[r] = (w2 - w1) * 1e3;
        nx = extract_twpp(argv[a + 1], argv[a + 2], 1, &entry);
        double t3 = now();
        ts[r] = (t1 - t0) * 1e3;
        tq[r] = (t2 - t1) * 1e3;
        tx[r] = (t3 - t2) * 1e3;
    }
    if (nt != nq || nx != nq) {
        fprintf(stderr, "bench_twpp: TWPP found %llu blocks (%llu expanded), Sequitur %llu\n",
                (unsigned long long)nt, (unsigned long long)nx, (unsigned long long)nq);
        return 1;
    }
    qsort(ts, (size_t)runs, sizeof *ts, cmp_double);
    qsort(tq, (size_t)runs, sizeof *tq, cmp_double);
    qsort(tx, (size_t)runs, sizeof *tx, cmp_double);
    qsort(ws, (size_t)runs, sizeof *ws, cmp_double);
    qsort(wq, (size_t)runs, sizeof *wq, cmp_double);
    printf("%s blocks %llu sequitur_ms %.3f twpp_ms %.3f speedup %.1f expanded_ms %.3f"
           " wall: sequitur_ms %.3f twpp_ms %.3f speedup %.1f\n", argv[a + 2],
           (unsigned long long)nt, tq[runs / 2], ts[runs / 2], tq[runs / 2] / ts[runs / 2], tx[runs / 2],
           wq[runs / 2], ws[runs / 2], wq[runs / 2] / ws[runs / 2]);
    return 0;
}
