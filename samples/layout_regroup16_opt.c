/* layout_regroup16_opt: layout_regroup16.c with trace-layout's advice
 * applied by hand: the 16 arrays interleaved into one array of structures
 * (LWPTool's Figure 1b, after). Same arguments, same output. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NARRAYS 16

struct group { double a[NARRAYS]; };

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    struct group *g = malloc((size_t)n * sizeof *g);
    if (!g)
        return 1;
    for (long i = 0; i < n; i++)
        for (int k = 0; k < NARRAYS; k++)
            g[i].a[k] = (double)(i % (k + 3));
    double sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            sum += g[i].a[0] + g[i].a[1] + g[i].a[2] + g[i].a[3] + g[i].a[4] +
                   g[i].a[5] + g[i].a[6] + g[i].a[7] + g[i].a[8] + g[i].a[9] +
                   g[i].a[10] + g[i].a[11] + g[i].a[12] + g[i].a[13] + g[i].a[14] +
                   g[i].a[15];
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (argc > 3)
        fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) +
                                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%.1f\n", sum);
    free(g);
    return 0;
}
