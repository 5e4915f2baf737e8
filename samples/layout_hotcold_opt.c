/* layout_hotcold_opt: layout_hotcold.c with trace-layout's advice applied
 * by hand: the hot fields (position, velocity) in one array, the cold ones
 * (id, name) in another. Same arguments, same output. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct hot { double x, y, z, vx, vy, vz; };
struct cold { long id; char name[64]; };

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50000;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    struct hot *h = calloc((size_t)n, sizeof *h);
    struct cold *c = calloc((size_t)n, sizeof *c);
    if (!h || !c)
        return 1;
    for (long i = 0; i < n; i++) {
        h[i].vx = 0.001 * (double)(i % 13);
        h[i].vy = 0.002 * (double)(i % 7);
        h[i].vz = -0.001 * (double)(i % 5);
        c[i].id = i * 3;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++)
        for (long i = 0; i < n; i++) {
            h[i].x += h[i].vx;
            h[i].y += h[i].vy;
            h[i].z += h[i].vz;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ids = 0;
    for (long i = 0; i < n; i++)
        ids += c[i].id;
    if (argc > 3)
        fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) +
                                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%.3f %ld\n", h[n - 1].x + h[n / 2].y + h[0].z, ids);
    free(h);
    free(c);
    return 0;
}
