/* layout_regroup: LWPTool's Figure 1b. Four arrays of N doubles (argv[2],
 * default 100000) read together, argv[3] times (default 10). argv[1] picks
 * the access pattern (the paper's Figure 4):
 *   same     A1[i] + A2[i] + A3[i] + A4[i]: one regrouping, AA = 1
 *   reverse  A2 read backwards: a conflict, A2 left out
 *   halves   A2's other half read with the first halves of the others
 *   times    one loop reads A1, A3, A4 first and A2 afterwards
 * The arrays are filled together in one loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "same";
    long n = argc > 2 ? atol(argv[2]) : 100000;
    int reps = argc > 3 ? atoi(argv[3]) : 10;
    double *a1 = malloc((size_t)n * sizeof *a1), *a2 = malloc((size_t)n * sizeof *a2);
    double *a3 = malloc((size_t)n * sizeof *a3), *a4 = malloc((size_t)n * sizeof *a4);
    if (!a1 || !a2 || !a3 || !a4)
        return 1;
    for (long i = 0; i < n; i++) {
        a1[i] = (double)i;
        a2[i] = (double)(2 * i);
        a3[i] = (double)(i % 7);
        a4[i] = 1.0 / (double)(i + 1);
    }
    double sum = 0;
    for (int r = 0; r < reps; r++) {
        if (!strcmp(mode, "reverse"))
            for (long i = 0; i < n; i++)
                sum += a1[i] + a2[n - 1 - i] + a3[i] + a4[i];
        else if (!strcmp(mode, "halves"))
            for (long i = 0; i < n / 2; i++)
                sum += a1[i] + a2[i + n / 2] + a3[i] + a4[i];
        else if (!strcmp(mode, "times"))
            for (long i = 0; i < 2 * n; i++)
                sum += i < n ? a1[i] + a3[i] + a4[i] : a2[i - n];
        else
            for (long i = 0; i < n; i++)
                sum += a1[i] + a2[i] + a3[i] + a4[i];
    }
    printf("%.1f\n", sum);
    free(a1);
    free(a2);
    free(a3);
    free(a4);
    return 0;
}
