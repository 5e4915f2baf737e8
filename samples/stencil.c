/* stencil: Himeno-style 3-D Jacobi (19-point stencil over p with coefficient arrays a0..a3, b0..b2, c0..c2, bnd, wrk1, wrk2); argv: grid size I (J = I, K = 2I-1; default 65, Himeno's S grid 65x65x129) and iterations (default 80): about 0.2 s natively on a 2-core 2026 VM. */
#include <stdio.h>
#include <stdlib.h>

static int I, J, K;
#define AT(i, j, k) (((long)(i) * J + (j)) * K + (k))

/* Every array of the benchmark, each I*J*K floats. */
static float *p, *a0, *a1, *a2, *a3, *b0, *b1, *b2, *c0, *c1, *c2, *bnd, *wrk1, *wrk2;

static float *grid(float value)
{
    float *g = malloc((size_t)I * J * K * sizeof *g);
    if (!g)
        exit(1);
    for (long n = 0; n < (long)I * J * K; n++)
        g[n] = value;
    return g;
}

static float jacobi(int iterations)
{
    const float omega = 0.8f;
    float gosa = 0;
    for (int it = 0; it < iterations; it++) {
        gosa = 0;
        for (int i = 1; i < I - 1; i++)
            for (int j = 1; j < J - 1; j++)
                for (int k = 1; k < K - 1; k++) {
                    float s0 = a0[AT(i, j, k)] * p[AT(i + 1, j, k)]
                             + a1[AT(i, j, k)] * p[AT(i, j + 1, k)]
                             + a2[AT(i, j, k)] * p[AT(i, j, k + 1)]
                             + b0[AT(i, j, k)] * (p[AT(i + 1, j + 1, k)] - p[AT(i + 1, j - 1, k)]
                                                - p[AT(i - 1, j + 1, k)] + p[AT(i - 1, j - 1, k)])
                             + b1[AT(i, j, k)] * (p[AT(i, j + 1, k + 1)] - p[AT(i, j - 1, k + 1)]
                                                - p[AT(i, j + 1, k - 1)] + p[AT(i, j - 1, k - 1)])
                             + b2[AT(i, j, k)] * (p[AT(i + 1, j, k + 1)] - p[AT(i - 1, j, k + 1)]
                                                - p[AT(i + 1, j, k - 1)] + p[AT(i - 1, j, k - 1)])
                             + c0[AT(i, j, k)] * p[AT(i - 1, j, k)]
                             + c1[AT(i, j, k)] * p[AT(i, j - 1, k)]
                             + c2[AT(i, j, k)] * p[AT(i, j, k - 1)]
                             + wrk1[AT(i, j, k)];
                    float ss = (s0 * a3[AT(i, j, k)] - p[AT(i, j, k)]) * bnd[AT(i, j, k)];
                    gosa += ss * ss;
                    wrk2[AT(i, j, k)] = p[AT(i, j, k)] + omega * ss;
                }
        for (int i = 1; i < I - 1; i++)
            for (int j = 1; j < J - 1; j++)
                for (int k = 1; k < K - 1; k++)
                    p[AT(i, j, k)] = wrk2[AT(i, j, k)];
    }
    return gosa;
}

int main(int argc, char **argv)
{
    I = argc > 1 ? atoi(argv[1]) : 65;
    int iterations = argc > 2 ? atoi(argv[2]) : 80;
    if (I < 3)
        I = 3;
    J = I;
    K = 2 * I - 1;
    a0 = grid(1); a1 = grid(1); a2 = grid(1); a3 = grid(1.0f / 6);
    b0 = grid(0); b1 = grid(0); b2 = grid(0);
    c0 = grid(1); c1 = grid(1); c2 = grid(1);
    bnd = grid(1); wrk1 = grid(0); wrk2 = grid(0);
    p = grid(0);
    for (int i = 0; i < I; i++)            /* Himeno's initial pressure */
        for (int j = 0; j < J; j++)
            for (int k = 0; k < K; k++)
                p[AT(i, j, k)] = (float)(i * i) / (float)((I - 1) * (I - 1));
    float gosa = jacobi(iterations);
    printf("stencil: %dx%dx%d, %d iterations, gosa %g\n", I, J, K, iterations, gosa);
    float *all[] = { p, a0, a1, a2, a3, b0, b1, b2, c0, c1, c2, bnd, wrk1, wrk2 };
    for (unsigned n = 0; n < sizeof all / sizeof *all; n++)
        free(all[n]);
    return 0;
}
