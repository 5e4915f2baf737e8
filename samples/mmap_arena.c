/* mmap_arena: maps an anonymous private region of 65536 bytes in arena_map(), stores argv[1] longs (default 4096, at most 8192) at its start and loads them back in arena_use(), then unmaps it: argv[1] stores and argv[1] loads in the region, one mmap and one munmap of 65536 bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ARENA_BYTES 65536       /* 16 pages */

/* One access of lvalue x, exactly as written: the optimiser may neither
 * drop, merge nor split it, so the trace holds the counts stated above. */
#define V(x) (*(volatile __typeof__(x) *)&(x))

/* The region, as a custom allocator would get it. */
__attribute__((noinline)) static long *arena_map(void)
{
    void *p = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* n stores, then n loads. */
__attribute__((noinline)) static long arena_use(long *a, int n)
{
    for (int i = 0; i < n; i++)
        V(a[i]) = i * 3;
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += V(a[i]);
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    if (n < 0 || n > ARENA_BYTES / (int)sizeof(long))
        return 2;
    long *a = arena_map();
    if (!a)
        return 1;
    long sum = arena_use(a, n);
    if (munmap(a, ARENA_BYTES) != 0)
        return 1;
    printf("%ld\n", sum);
    return 0;
}
