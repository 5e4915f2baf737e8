/* matrix: an N x N matrix of doubles (argv[1], default 512) summed by rows (unit stride) then by columns (stride N*8), argv[2] times (default 4); marks "rows" and "columns" (memrec.h) before each walk. */
#include <stdio.h>
#include <stdlib.h>

#include "../recorder/memrec.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 512;
    int reps = argc > 2 ? atoi(argv[2]) : 4;
    double *m = malloc((size_t)(n * n) * sizeof *m);
    if (!m)
        return 1;
    for (long i = 0; i < n * n; i++)
        m[i] = (double)(i % 1000);
    double rows = 0, cols = 0;
    for (int r = 0; r < reps; r++) {
        MEMREC_MARK("rows");
        for (long i = 0; i < n; i++)          /* by rows */
            for (long j = 0; j < n; j++)
                rows += m[i * n + j];
        MEMREC_MARK("columns");
        for (long j = 0; j < n; j++)          /* by columns */
            for (long i = 0; i < n; i++)
                cols += m[i * n + j];
    }
    printf("matrix: %ld x %ld, %.0f %.0f\n", n, n, rows, cols);
    free(m);
    return 0;
}
