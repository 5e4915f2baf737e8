/* deps_known: memory dependences of known frequency, for trace-leap and trace-deps (tests/e2e/leap.sh). argv[1]: iterations (default 100000, at least 1000).
 *
 *   two_stores    the load on the DEP_LOAD line reads buf[i] right after
 *                 store_a wrote it (i % 10 == 0: 10% of its executions)
 *                 or store_b did (90%)
 *   far           far[i] is stored, then FAR_GAP other stores happen,
 *                 then far[i] is loaded: a 100% dependence whose distance
 *                 is longer than Connors' window (32 stores by default)
 *   read_twice    two loads of each element of a table the program never
 *                 writes: a read after a read, no dependence at all
 *
 * store_a and store_b are out of line and alike, so that every iteration
 * makes the same accesses (call, store, return, load) whichever runs: the
 * load's (object, offset, time) stream stays one LMAD. */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 4000000   /* 16 MB: room for a run long enough to amortise ld.so's startup (bench/leap.sh) */
#define FAR_N 4096
#define FAR_GAP 4096

static int buf[MAXN];
static long far[FAR_N];
static long gap[FAR_GAP];
static const long table[FAR_N] = { 1, 2, 3 };   /* never written at run time */

__attribute__((noinline)) void store_a(int *p, int v)
{
    *p = v;                                          /* DEP_STORE_A */
}

__attribute__((noinline)) void store_b(int *p, int v)
{
    *p = v + 1;                                      /* DEP_STORE_B */
}

__attribute__((noinline)) long two_stores(int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++) {
        if (i % 10 == 0)
            store_a(&buf[i], i);
        else
            store_b(&buf[i], i);
        sum += *(volatile int *)&buf[i];             /* DEP_LOAD */
    }
    return sum;
}

__attribute__((noinline)) long far_dependence(void)
{
    long sum = 0;
    for (int i = 0; i < FAR_N; i++)
        *(volatile long *)&far[i] = i;               /* FAR_STORE */
    for (int j = 0; j < FAR_GAP; j++)
        *(volatile long *)&gap[j] = j;               /* GAP_STORE */
    for (int i = 0; i < FAR_N; i++)
        sum += *(volatile long *)&far[i];            /* FAR_LOAD */
    return sum;
}

__attribute__((noinline)) long read_twice(void)
{
    long sum = 0;
    for (int i = 0; i < FAR_N; i++) {
        sum += *(volatile const long *)&table[i];    /* RAR_LOAD1 */
        sum += *(volatile const long *)&table[i];    /* RAR_LOAD2 */
    }
    return sum;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (n < 1000 || n > MAXN) {
        fprintf(stderr, "deps_known: iterations must be 1000 to %d\n", MAXN);
        return 2;
    }
    long s = two_stores((int)n) + far_dependence() + read_twice();
    printf("%ld\n", s);
    return 0;
}
