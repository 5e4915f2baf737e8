/*
 * bench_sequitur: speed and memory of the Sequitur builder (algo/sequitur.h)
 * against issue 11's targets, on one core.
 *
 *   bench_sequitur [--runs=R] NAME FILE     symbols from FILE, one per line
 *                                           (decimal or 0x hex)
 *   bench_sequitur [--runs=R] NAME --random=N
 *                                           N symbols with little repetition:
 *                                           uniform over 2^20 values
 *
 * Prints one line: NAME, symbols, median seconds of R runs (default 3) of
 * feeding every symbol through sq_append, million symbols per second, the
 * grammar's rules and symbols, the builder's bytes per grammar symbol
 * without and with the digram table, and the median CPU seconds and the
 * rate they give (the figure to compare on a shared machine). Reading the file is not timed.
 * Exits 1 when something breaks (unreadable file, a bad line, no memory).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algo/sequitur.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of this process: on a shared machine the elapsed time
 * measures the other jobs too. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t *load_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_sequitur: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 20, len = 0;
    uint64_t *v = malloc(cap * sizeof *v);
    char line[128];
    while (v && fgets(line, sizeof line, f)) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(line, &end, 0);
        if (end == line || errno || x >= SQ_TERMINAL_LIMIT) {
            fprintf(stderr, "bench_sequitur: %s: line %zu: not a number\n", path, len + 1);
            exit(1);
        }
        if (len == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        if (v)
            v[len++] = x;
    }
    fclose(f);
    if (!v) {
        fprintf(stderr, "bench_sequitur: out of memory\n");
        exit(1);
    }
    *n = len;
    return v;
}

static uint64_t *random_stream(size_t n)
{
    uint64_t *v = malloc(n * sizeof *v), x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; v && i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = x >> 44;         /* 20 bits */
    }
    if (!v) {
        fprintf(stderr, "bench_sequitur: out of memory\n");
        exit(1);
    }
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int runs = 3, argi = 1;
    if (argi < argc && strncmp(argv[argi], "--runs=", 7) == 0)
        runs = atoi(argv[argi++] + 7);
    if (argc - argi != 2 || runs < 1 || runs > 99) {
        fprintf(stderr, "usage: bench_sequitur [--runs=R] NAME FILE|--random=N\n");
        return 1;
    }
    const char *name = argv[argi], *src = argv[argi + 1];
    size_t n;
    uint64_t *v = strncmp(src, "--random=", 9) == 0
                      ? random_stream(n = strtoull(src + 9, NULL, 10))
                      : load_file(src, &n);
    double times[99], cpu[99];
    sq_stats st = { 0 };
    for (int r = 0; r < runs; r++) {
        sequitur *b = sq_new();
        double t0 = now(), c0 = cpu_now();
        for (size_t i = 0; i < n; i++)
            if (sq_append(b, v[i]) < 0) {
                fprintf(stderr, "bench_sequitur: out of memory at symbol %zu\n", i);
                return 1;
            }
        times[r] = now() - t0;
        cpu[r] = cpu_now() - c0;
        sq_builder_stats(b, &st);
        sq_free(b);
    }
    qsort(times, runs, sizeof *times, cmp_double);
    qsort(cpu, runs, sizeof *cpu, cmp_double);
    double t = times[runs / 2], c = cpu[runs / 2];
    double per = st.symbols ? (double)(st.bytes - st.table_bytes) / st.symbols : 0;
    double per_all = st.symbols ? (double)st.bytes / st.symbols : 0;
    printf("%-24s %10zu symbols %8.3f s %7.2f M symbols/s  rules %u symbols %llu  "
           "%.1f B/grammar symbol (%.1f with the digram table)  cpu %.3f s %.2f M/s\n",
           name, n, t, n / t / 1e6, st.rules, (unsigned long long)st.symbols, per, per_all,
           c, n / c / 1e6);
    free(v);
    return 0;
}
