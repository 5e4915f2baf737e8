/*
 * mr_custom.c: custom allocators, told to Valgrind by the client requests
 * of valgrind.h that Memcheck and DHAT honour, recorded as heap operations
 * with the call stack of the request (so the objects of one allocation
 * site form one group, also inside a pool):
 *
 *   MALLOCLIKE_BLOCK(addr, size)            MR_MALLOC
 *   FREELIKE_BLOCK(addr)                    MR_FREE
 *   RESIZEINPLACE_BLOCK(addr, old, new)     MR_REALLOC of addr to the new size
 *   CREATE_MEMPOOL(pool)                    nothing: the pool is remembered
 *   MEMPOOL_ALLOC(pool, addr, size)         MR_MALLOC
 *   MEMPOOL_FREE(pool, addr)                MR_FREE
 *   MEMPOOL_CHANGE(pool, old, new, size)    MR_REALLOC
 *   MEMPOOL_TRIM(pool, addr, size)          MR_FREE of each chunk outside
 *                                           [addr, addr+size), MR_REALLOC of
 *                                           each one cut by its bounds
 *   DESTROY_MEMPOOL(pool)                   MR_FREE of each chunk left
 *   MOVE_MEMPOOL(old, new)                  nothing: the pool is renamed
 *   MEMPOOL_EXISTS(pool)                    nothing (answers the client)
 *
 * A pool's own memory (a block from malloc or a mapping) is recorded as
 * what it is, so the chunks lie inside it: objects within their pool.
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "pub_tool_clreq.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

/* A pool the client created; key is its anchor address. */
typedef struct pool {
    struct pool *next;
    UWord key;
} pool;

/* A chunk of a pool: key is its address. */
typedef struct chunk {
    struct chunk *next;
    UWord key;
    SizeT size;
    Addr pool;
} chunk;

static VgHashTable *pools, *chunks;

void mr_custom_init(void)
{
    pools = VG_(HT_construct)("mr.pools");
    chunks = VG_(HT_construct)("mr.chunks");
}

static void chunk_alloc(ThreadId tid, Addr pool_addr, Addr addr, SizeT size)
{
    chunk *c = VG_(HT_remove)(chunks, addr);   /* a chunk never freed: replaced */
    if (!c)
        c = VG_(malloc)("mr.chunk", sizeof *c);
    c->key = addr;
    c->size = size;
    c->pool = pool_addr;
    VG_(HT_add_node)(chunks, c);
    mr_heap_record(tid, MR_MALLOC, addr, size, 0, 0);
}

static void chunk_free(ThreadId tid, Addr addr)
{
    chunk *c = VG_(HT_remove)(chunks, addr);
    if (c)
        VG_(free)(c);
    mr_heap_record(tid, MR_FREE, addr, 0, 0, 0);
}

/* The chunks of a pool, in a malloc'd array (*n of them; NULL if none). */
static chunk **pool_chunks(Addr pool_addr, UInt *n)
{
    UInt all = 0, k = 0;
    VgHashNode **nodes = VG_(HT_to_array)(chunks, &all);
    chunk **mine = all ? VG_(malloc)("mr.chunks.pool", all * sizeof *mine) : NULL;
    for (UInt i = 0; i < all; i++)
        if (((chunk *)nodes[i])->pool == pool_addr)
            mine[k++] = (chunk *)nodes[i];
    if (nodes)
        VG_(free)(nodes);
    *n = k;
    return mine;
}

static void pool_destroy(ThreadId tid, Addr pool_addr)
{
    UInt n;
    chunk **mine = pool_chunks(pool_addr, &n);
    for (UInt i = 0; i < n; i++)
        chunk_free(tid, mine[i]->key);
    if (mine)
        VG_(free)(mine);
    pool *p = VG_(HT_remove)(pools, pool_addr);
    if (p)
        VG_(free)(p);
}

/* Keeps what of each chunk lies in [lo, lo + size): Memcheck's trim. */
static void pool_trim(ThreadId tid, Addr pool_addr, Addr lo, SizeT size)
{
    Addr hi = lo + size;
    UInt n;
    chunk **mine = pool_chunks(pool_addr, &n);
    for (UInt i = 0; i < n; i++) {
        Addr a = mine[i]->key, e = a + mine[i]->size;
        if (a >= lo && e <= hi)
            continue;                                  /* wholly inside */
        if (e <= lo || a >= hi || (mine[i]->size == 0 && (a < lo || a >= hi))) {
            chunk_free(tid, a);                        /* wholly outside */
            continue;
        }
        Addr na = a > lo ? a : lo, ne = e < hi ? e : hi;
        chunk *c = VG_(HT_remove)(chunks, a);
        c->key = na;
        c->size = ne - na;
        VG_(HT_add_node)(chunks, c);
        mr_heap_record(tid, MR_REALLOC, na, ne - na, 0, a);
    }
    if (mine)
        VG_(free)(mine);
}

static void pool_move(Addr from, Addr to)
{
    pool *p = VG_(HT_remove)(pools, from);
    if (!p)
        return;
    p->key = to;
    VG_(HT_add_node)(pools, p);
    UInt n;
    chunk **mine = pool_chunks(from, &n);
    for (UInt i = 0; i < n; i++)
        mine[i]->pool = to;
    if (mine)
        VG_(free)(mine);
}

Bool mr_custom_request(ThreadId tid, UWord *arg, UWord *ret)
{
    switch (arg[0]) {
    case VG_USERREQ__MALLOCLIKE_BLOCK:
        mr_heap_record(tid, MR_MALLOC, arg[1], arg[2], 0, 0);
        break;
    case VG_USERREQ__FREELIKE_BLOCK:
        mr_heap_record(tid, MR_FREE, arg[1], 0, 0, 0);
        break;
    case VG_USERREQ__RESIZEINPLACE_BLOCK:
        mr_heap_record(tid, MR_REALLOC, arg[1], arg[3], 0, arg[1]);
        break;
    case VG_USERREQ__CREATE_MEMPOOL:
        if (!VG_(HT_lookup)(pools, arg[1])) {
            pool *p = VG_(malloc)("mr.pool", sizeof *p);
            p->key = arg[1];
            VG_(HT_add_node)(pools, p);
        }
        break;
    case VG_USERREQ__DESTROY_MEMPOOL:
        pool_destroy(tid, arg[1]);
        break;
    case VG_USERREQ__MEMPOOL_ALLOC:
        chunk_alloc(tid, arg[1], arg[2], arg[3]);
        break;
    case VG_USERREQ__MEMPOOL_FREE:
        chunk_free(tid, arg[2]);
        break;
    case VG_USERREQ__MEMPOOL_TRIM:
        pool_trim(tid, arg[1], arg[2], arg[3]);
        break;
    case VG_USERREQ__MOVE_MEMPOOL:
        pool_move(arg[1], arg[2]);
        break;
    case VG_USERREQ__MEMPOOL_CHANGE: {
        chunk *c = VG_(HT_remove)(chunks, arg[2]);
        if (!c)
            c = VG_(malloc)("mr.chunk", sizeof *c);
        c->key = arg[3];
        c->size = arg[4];
        c->pool = arg[1];
        VG_(HT_add_node)(chunks, c);
        mr_heap_record(tid, MR_REALLOC, arg[3], arg[4], 0, arg[2]);
        break;
    }
    case VG_USERREQ__MEMPOOL_EXISTS:
        *ret = VG_(HT_lookup)(pools, arg[1]) != NULL;
        return True;
    default:
        return False;
    }
    *ret = 0;
    return True;
}
