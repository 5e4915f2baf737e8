/* strides_known: instructions of known stride behaviour, for trace-leap and trace-deps (tests/e2e/leap.sh). argv[1]: accesses per kernel (default 100000, at least 1000).
 *
 *   constant   one load every 16 bytes of one array: stride 16, share 1,
 *              strongly strided
 *   chase      a list of separately malloc'd nodes linked in shuffled
 *              order, walked: every step goes to another object, so no
 *              within-object stride: not strongly strided
 *   halfway    one load whose stride is 8 bytes for the first half of its
 *              executions and 24 for the second: share 0.5, not strongly
 *              strided
 *   late       the same, changing at three quarters: stride 8, share 0.75,
 *              strongly strided
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 1000000

static int arr[4 * MAXN];
static long wide[4 * MAXN];

struct node {
    long val;
    struct node *next;
};

__attribute__((noinline)) long constant(long n)
{
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += *(volatile int *)&arr[4 * i];         /* CONST_LOAD */
    return sum;
}

/* Loads wide[] with stride 8 bytes for the first half of its executions,
 * 24 bytes after. */
__attribute__((noinline)) long halfway(long n)
{
    long sum = 0, at = 0;
    for (long i = 0; i < n; i++) {
        sum += *(volatile long *)&wide[at];          /* HALF_LOAD */
        at += i < n / 2 ? 1 : 3;
    }
    return sum;
}

/* The same, the stride changing at three quarters. */
__attribute__((noinline)) long late(long n)
{
    long sum = 0, at = 0;
    for (long i = 0; i < n; i++) {
        sum += *(volatile long *)&wide[at];          /* LATE_LOAD */
        at += i < 3 * n / 4 ? 1 : 3;
    }
    return sum;
}

__attribute__((noinline)) long chase(long n)
{
    struct node **nodes = malloc(n * sizeof *nodes);
    if (!nodes)
        return -1;
    for (long i = 0; i < n; i++) {
        nodes[i] = malloc(sizeof **nodes);
        if (!nodes[i])
            return -1;
        nodes[i]->val = i;
    }
    unsigned long state = 12345;
    for (long i = n - 1; i > 0; i--) {   /* shuffle (Fisher-Yates, LCG) */
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        long j = (long)((state >> 33) % (unsigned long)(i + 1));
        struct node *t = nodes[i];
        nodes[i] = nodes[j];
        nodes[j] = t;
    }
    for (long i = 0; i < n; i++)
        nodes[i]->next = i + 1 < n ? nodes[i + 1] : NULL;
    long sum = 0;
    for (struct node *p = nodes[0]; p; p = p->next)  /* CHASE_WALK */
        sum += p->val;                               /* CHASE_LOAD */
    for (long i = 0; i < n; i++)
        free(nodes[i]);
    free(nodes);
    return sum;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (n < 1000 || n > MAXN) {
        fprintf(stderr, "strides_known: accesses must be 1000 to %d\n", MAXN);
        return 2;
    }
    long s = constant(n) + chase(n) + halfway(n) + late(n);
    printf("%ld\n", s);
    return 0;
}
