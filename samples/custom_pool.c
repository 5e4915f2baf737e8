/* custom_pool: two custom allocators that tell Valgrind about their blocks
 * (valgrind.h client requests): a pool carving 48-byte nodes out of one
 * malloc'd arena (CREATE_MEMPOOL, MEMPOOL_ALLOC, MEMPOOL_FREE,
 * DESTROY_MEMPOOL) and a bump allocator of 16-byte cells in a static
 * buffer (MALLOCLIKE_BLOCK, RESIZEINPLACE_BLOCK, FREELIKE_BLOCK). N of
 * each (argv[1], default 100, at most 1000); every node and cell is
 * written once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/valgrind.h>

#define NODE 48
#define CELL 16
#define MAXN 1000

static char cells[MAXN * CELL * 2];   /* the bump allocator's memory */
static size_t cells_used;

/* The pool: its arena and how much of it is carved. */
typedef struct pool {
    char *arena;
    size_t used, size;
} pool;

__attribute__((noinline)) static void *pool_alloc(pool *p)
{
    void *n = p->arena + p->used;
    p->used += NODE;
    VALGRIND_MEMPOOL_ALLOC(p, n, NODE);
    return n;
}

__attribute__((noinline)) static void pool_free(pool *p, void *n)
{
    VALGRIND_MEMPOOL_FREE(p, n);
}

__attribute__((noinline)) static void *bump_alloc(size_t n)
{
    void *c = cells + cells_used;
    cells_used += 2 * n;                       /* room to grow in place */
    VALGRIND_MALLOCLIKE_BLOCK(c, n, 0, 0);
    return c;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    if (n < 1 || n > MAXN)
        return 2;
    pool p = { malloc((size_t)n * NODE), 0, (size_t)n * NODE };
    if (!p.arena)
        return 1;
    VALGRIND_CREATE_MEMPOOL(&p, 0, 0);
    char **nodes = malloc((size_t)n * sizeof *nodes);
    char **cellv = malloc((size_t)n * sizeof *cellv);
    if (!nodes || !cellv)
        return 1;
    for (long i = 0; i < n; i++) {
        nodes[i] = pool_alloc(&p);
        memset(nodes[i], (int)i, NODE);
        cellv[i] = bump_alloc(CELL);
        memset(cellv[i], (int)i, CELL);
    }
    for (long i = 0; i < n; i += 2)               /* half the nodes go back */
        pool_free(&p, nodes[i]);
    VALGRIND_RESIZEINPLACE_BLOCK(cellv[0], CELL, 2 * CELL, 0);
    for (long i = 0; i < n; i++)
        VALGRIND_FREELIKE_BLOCK(cellv[i], 0);
    int exists = VALGRIND_MEMPOOL_EXISTS(&p);
    VALGRIND_DESTROY_MEMPOOL(&p);                 /* frees the other half */
    free(p.arena);
    free(nodes);
    free(cellv);
    printf("custom_pool: %ld nodes, %ld cells, pool %s\n", n, n,
           exists || !RUNNING_ON_VALGRIND ? "known" : "unknown");
    return 0;
}
