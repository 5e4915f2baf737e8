/* xmalloc: allocates through an xmalloc-style wrapper (and a second wrapper
 * calling it) from two sites, N blocks each (argv[1], default 100), to test
 * --alloc-fn: with it, the allocation stacks name the sites, not the
 * wrappers. */
#include <stdio.h>
#include <stdlib.h>

/* Dies instead of returning NULL, as GNU programs' xmalloc does. */
__attribute__((noinline)) static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

/* A wrapper of the wrapper: both must be left out of the stacks. */
__attribute__((noinline)) static void *xzalloc(size_t n)
{
    char *p = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = 0;
    return p;
}

__attribute__((noinline)) static void *site_small(void)
{
    return xmalloc(24);
}

__attribute__((noinline)) static void *site_big(void)
{
    return xzalloc(4096);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    void **keep = calloc((size_t)n * 2, sizeof *keep);
    if (!keep)
        return 1;
    for (long i = 0; i < n; i++) {
        keep[2 * i] = site_small();
        keep[2 * i + 1] = site_big();
    }
    for (long i = 0; i < 2 * n; i++)
        free(keep[i]);
    free(keep);
    printf("xmalloc: %ld blocks from each site\n", n);
    return 0;
}
