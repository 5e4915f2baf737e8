/*
 * slice_fig56: the program of Figure 5.6 (seed 001, section 5.3), the
 * example of dynamic slicing with TWPP+. Input N = 3, X = {0, -1, 1};
 * statement (12), illegible in the source, is an assignment nothing in
 * the slice reads. Every statement is on its own line, marked with its
 * number, so that tests/e2e/slice_fig56.sh maps statements to lines. The
 * variables are globals so that `--var Z` names one; the slice request
 * (16) prints Z. Built with -O0 (see the Makefile) so that lines map.
 *
 * Slices for Z at (16): precise {2,3,4,6,7,8,9,11,13,14,15,16}; executed
 * nodes: all but 12; executed edges: all but 5 and 12.
 */
#include <stdio.h>

long P[2], N, I, J, X, Y, Z, W;  /* 8 bytes each: TWPP+ edges are 8-byte granular */

static const long input[] = { 3, 0, -1, 1 };    /* N, then X per iteration */
static int next_input;

/* The program's input, one number per call. */
static long inout(void)
{
    return input[next_input++];
}

/* Y for a negative X. */
static long f2(long x)
{
    return -x;
}

/* Z from Y. */
static long f3(long y)
{
    return y + 1;
}

int main(void)
{
    P[0] = 2;                   /* (1) */
    P[1] = 4;                   /* (2) */
    N = inout();                /* (3) */
    I = 1;                      /* (4) */
    J = 0;                      /* (5) */
    while (I <= N) {            /* (6) */
        X = inout();            /* (7) */
        if (X >= 0)             /* (8) */
            Y = P[X];           /* (9) */
        else
            Y = f2(X);          /* (10) */
        Z = f3(Y);              /* (11) */
        W = Y + Z;              /* (12) */
        J = 1;                  /* (13) */
        I = I + 1;              /* (14) */
    }
    Z = Z + J;                  /* (15) */
    printf("%ld\n", Z);          /* (16) */
    return W == 0;
}
