/* layout_split_opt: layout_split.c with trace-layout's advice applied by
 * hand (LWPTool's Figure 1a, after): struct {a, b, c, d} split into
 * {a, c} and {b, d}, each in its own array. Same arguments, same output
 * (and the loops' time on stderr with a third argument). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct type1 { int a; int c; };
struct type2 { int b; int d; };

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    struct type1 *arr1 = malloc((size_t)n * sizeof *arr1);
    struct type2 *arr2 = malloc((size_t)n * sizeof *arr2);
    int *b = malloc((size_t)n * sizeof *b), *c = malloc((size_t)n * sizeof *c);
    if (!arr1 || !arr2 || !b || !c)
        return 1;
    /* the same byte values as layout_split.c's, field by field */
    for (long i = 0; i < n * 16; i++) {
        unsigned char v = (unsigned char)(i * 7);
        long e = i / 16, f = i % 16;
        unsigned char *dst = f < 4 ? (unsigned char *)&arr1[e].a + f
                           : f < 8 ? (unsigned char *)&arr2[e].b + (f - 4)
                           : f < 12 ? (unsigned char *)&arr1[e].c + (f - 8)
                           : (unsigned char *)&arr2[e].d + (f - 12);
        *(volatile unsigned char *)dst = v;
    }
    long sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++)
            b[i] = arr1[i].a + arr1[i].c;
        for (long i = 0; i < n; i++)
            c[i] = arr2[i].b + arr2[i].d;
        sum += b[r % n] + c[(r * 7) % n];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (argc > 3)   /* "time": the loops' seconds on stderr */
        fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%ld\n", sum);
    free(arr1);
    free(arr2);
    free(b);
    free(c);
    return 0;
}
