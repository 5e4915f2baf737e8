/* layout_split: LWPTool's Figure 1a. An array of N (argv[1], default
 * 100000) struct {int a, b, c, d} read as {a, c} in one loop and {b, d} in
 * another, argv[2] times (default 10); with a third argument the
 * loops' run time goes to stderr. Initialised byte by byte (a unit
 * stride, which tells nothing about the structure). trace-layout should
 * find strides 16, size 16, offsets 0, 4, 8, 12, FA(a,c) = FA(b,d) = 1 and
 * 0 across, and advise the split of layout_split_opt.c. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct type { int a; int b; int c; int d; };

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    struct type *arr = malloc((size_t)n * sizeof *arr);
    int *b = malloc((size_t)n * sizeof *b), *c = malloc((size_t)n * sizeof *c);
    if (!arr || !b || !c)
        return 1;
    volatile unsigned char *bytes = (unsigned char *)arr;
    for (long i = 0; i < n * (long)sizeof *arr; i++)
        bytes[i] = (unsigned char)(i * 7);
    long sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++)
            b[i] = arr[i].a + arr[i].c;
        for (long i = 0; i < n; i++)
            c[i] = arr[i].b + arr[i].d;
        sum += b[r % n] + c[(r * 7) % n];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (argc > 3)   /* "time": the loops' seconds on stderr */
        fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%ld\n", sum);
    free(arr);
    free(b);
    free(c);
    return 0;
}
