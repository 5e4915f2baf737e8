/* segfault: sums an array of N longs (argv[1], default 10000), then writes through a bad pointer and dies of SIGSEGV. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    long *a = malloc((size_t)n * sizeof *a);
    if (!a)
        return 1;
    long sum = 0;
    for (long i = 0; i < n; i++)
        a[i] = i;
    for (long i = 0; i < n; i++)
        sum += a[i];
    printf("segfault: sum %ld, now writing through a bad pointer\n", sum);
    fflush(stdout);
    volatile long *bad = (long *)(sum & 0xff);   /* an address in the unmapped first page */
    *bad = sum;
    return 0;
}
