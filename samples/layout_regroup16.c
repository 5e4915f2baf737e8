/* layout_regroup16: LWPTool's Figure 1b with n = 16 arrays of N doubles
 * (argv[1], default 100000) read together argv[2] times (default 10): each
 * iteration touches 16 lines that large, page-aligned allocations put in
 * one cache set, more than a set holds. trace-layout should advise one
 * regrouping of all 16 (layout_regroup16_opt.c applies it). With a third
 * argument the loop's run time goes to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NARRAYS 16

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    size_t bytes = (size_t)n * sizeof(double);
    /* one call site each: each array is its own group (a site allocating
     * in a loop would make one group of 16 objects) */
    double *a[NARRAYS] = {
        malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes),
        malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes),
        malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes),
        malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes),
    };
    for (int k = 0; k < NARRAYS; k++)
        if (!a[k])
            return 1;
    for (long i = 0; i < n; i++)
        for (int k = 0; k < NARRAYS; k++)
            a[k][i] = (double)(i % (k + 3));
    double sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            sum += a[0][i] + a[1][i] + a[2][i] + a[3][i] + a[4][i] + a[5][i] +
                   a[6][i] + a[7][i] + a[8][i] + a[9][i] + a[10][i] + a[11][i] +
                   a[12][i] + a[13][i] + a[14][i] + a[15][i];
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (argc > 3)
        fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) +
                                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%.1f\n", sum);
    for (int k = 0; k < NARRAYS; k++)
        free(a[k]);
    return 0;
}
