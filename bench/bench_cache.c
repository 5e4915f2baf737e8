/*
 * bench_cache: the speed of the cache model and of exact stack distances on
 * a synthetic stream held in memory (so that only the algorithm is timed),
 * and SHARDS' error on it. One line per measurement, "name value", for
 * bench/cache.sh:
 *   sim_maps        M accesses/s through a three-level data hierarchy
 *                   (lwptool preset's D1, L2, L3; no fetches)
 *   sim_cg_maps     M accesses/s in the Cachegrind-compatible model
 *   stackdist_maps  M accesses/s of exact stack distances (64 B lines)
 *   shards_maps     M accesses/s of SHARDS at rate 0.01
 *   shards_mae      mean absolute error of SHARDS' curve against exact,
 *                   over powers of two from 16 lines to the distinct lines
 *   distinct_lines  distinct lines of the stream
 *   d1_miss_ratio   the stream's D1 miss ratio in the three-level run
 * Usage: bench_cache [ACCESSES]   (default 20000000)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "algo/cache.h"
#include "algo/cache_config.h"
#include "algo/stackdist.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);   /* CPU time: the machine is shared */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A stream like a program's: 70% sequential walks over four 16 MiB arrays
 * of 8-byte elements in turn (a D1 miss every 8th), 27% reuse of a hot
 * 16 KiB region (the stack, small structures) and 3% random accesses over
 * 256 MiB (pointer chasing: misses at every level). A quarter are stores.
 * Its D1 miss ratio, about 12%, is printed as d1_miss_ratio. */
static void make_stream(uint64_t *addr, uint8_t *write, size_t n)
{
    uint64_t x = 88172645463325252ull, walk[4] = { 0 };
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd(&x), k = r % 100;
        if (k < 70) {            /* four arrays of 16 MiB, walked in turn */
            uint64_t a = i & 3;
            addr[i] = (1ull << 32) + (a << 24) + (walk[a] = (walk[a] + 8) % (16u << 20));
        } else if (k < 97) {    /* a hot 16 KiB region */
            addr[i] = (2ull << 32) + (r >> 8) % (16 << 10);
        } else {                /* random over 256 MiB */
            addr[i] = (3ull << 32) + ((r >> 8) % (256u << 20) & ~7ull);
        }
        write[i] = (r >> 60) < 4;
    }
}

static double d1_miss_ratio;   /* of the last time_sim */

static double time_sim(const cache_config *cfg, const uint64_t *addr,
                       const uint8_t *write, size_t n)
{
    cache_sim *c = cache_new(cfg);
    if (!c) {
        fprintf(stderr, "bench_cache: bad configuration\n");
        exit(1);
    }
    unsigned sink = 0;
    double t = now();
    for (size_t i = 0; i < n; i++)
        sink += cache_access(c, addr[i], 8, write[i] ? CACHE_WRITE : CACHE_READ);
    t = now() - t;
    if (sink == 0)
        fprintf(stderr, "(no misses)\n");
    const cache_level_stats *st = cache_stats(c, 0);
    d1_miss_ratio = (double)(st->misses[CACHE_READ] + st->misses[CACHE_WRITE]) /
                    (double)n;
    cache_free(c);
    return (double)n / t / 1e6;
}

static double time_sd(stackdist *s, const uint64_t *addr, size_t n)
{
    uint64_t sink = 0;
    double t = now();
    for (size_t i = 0; i < n; i++)
        sink += sd_access(s, addr[i], 8);
    t = now() - t;
    if (sink == 1)
        fprintf(stderr, "(?)\n");
    if (sd_failed(s)) {
        fprintf(stderr, "bench_cache: out of memory\n");
        exit(1);
    }
    return (double)n / t / 1e6;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
    uint64_t *addr = malloc(n * sizeof *addr);
    uint8_t *write = malloc(n);
    if (!addr || !write || !n) {
        fprintf(stderr, "bench_cache: out of memory\n");
        return 1;
    }
    make_stream(addr, write, n);

    cache_config cfg;
    char err[200];
    if (cache_preset("lwptool", &cfg, err, sizeof err))
        return 1;
    cfg.i1.size = 0;
    printf("sim_maps %.1f\n", time_sim(&cfg, addr, write, n));
    printf("d1_miss_ratio %.4f\n", d1_miss_ratio);
    cache_preset("lwptool", &cfg, err, sizeof err);
    cache_config_cachegrind(&cfg);
    printf("sim_cg_maps %.1f\n", time_sim(&cfg, addr, write, n));

    stackdist *exact = sd_new(64, 1), *sampled = sd_new(64, 0.01);
    if (!exact || !sampled)
        return 1;
    printf("stackdist_maps %.1f\n", time_sd(exact, addr, n));
    printf("shards_maps %.1f\n", time_sd(sampled, addr, n));
    double err_sum = 0;
    int points = 0;
    for (uint64_t lines = 16; lines <= sd_distinct(exact); lines *= 2, points++)
        err_sum += fabs(sd_miss_ratio(exact, lines) - sd_miss_ratio(sampled, lines));
    printf("shards_mae %.4f\n", points ? err_sum / points : 0);
    printf("distinct_lines %llu\n", (unsigned long long)sd_distinct(exact));
    sd_free(exact);
    sd_free(sampled);
    free(addr);
    free(write);
    return 0;
}
