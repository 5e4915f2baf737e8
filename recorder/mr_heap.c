/*
 * mr_heap.c: malloc and friends replaced (with the vgpreload_memrec
 * preload), each operation recorded with its interned call stack (as are
 * the mappings of mr_mmap.c).
 *
 * The preload turns the client's calls into client requests, so these run
 * between blocks, in program order with the block executions.
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"

/* A live client block: its requested size (for realloc and usable_size). */
typedef struct heap_block {
    struct heap_block *next;
    UWord key;            /* the address */
    SizeT size;
    UInt stack;           /* stack id of its allocation (or latest realloc) */
    UChar op;             /* mr_heap_op that allocated it */
} heap_block;

/* An interned call stack: key is its hash. */
typedef struct stack_node {
    struct stack_node *next;
    UWord key;
    UInt depth;
    UInt id;
    Addr *ips;
} stack_node;

static VgHashTable *live, *stacks;
static UInt next_stack_id = 1;

/* Used while looking a stack up, before it is copied into a node. */
static const Addr *probe_ips;
static UInt probe_depth;

static Word cmp_stack(const void *a, const void *b)
{
    const stack_node *x = a, *y = b;
    const Addr *xi = x->ips ? x->ips : probe_ips, *yi = y->ips ? y->ips : probe_ips;
    UInt xn = x->ips ? x->depth : probe_depth, yn = y->ips ? y->depth : probe_depth;
    if (xn != yn)
        return 1;
    return VG_(memcmp)(xi, yi, xn * sizeof(Addr)) != 0;
}

/*
 * The code addresses of tid's call stack, innermost first, at most max.
 * Valgrind's amd64 unwinder, once neither CFI nor the frame pointer works
 * (past _start, whose CFI marks the return address undefined and whose
 * %rbp is 0), takes the words at the stack pointer as return addresses
 * (there: the stack pointer and %rax that _start pushed, less one). The
 * stack ends at the first address that is not in the client's executable
 * memory, where that guessing began.
 */
static UInt take_stack(ThreadId tid, Addr *ips, UInt max)
{
    UInt depth = VG_(get_StackTrace)(tid, ips, max, NULL, NULL, 0);
    for (UInt i = 0; i < depth; i++)
        if (!VG_(am_is_valid_for_client)(ips[i], 1, VKI_PROT_EXEC))
            return i;
    return depth;
}

/* Whether the code at ip belongs to a function named by --alloc-fn. */
static Bool in_alloc_fn(Addr ip)
{
    const HChar *name;
    if (!VG_(get_fnname)(VG_(current_DiEpoch)(), ip, &name))
        return False;
    for (UInt i = 0; i < mr_clo.n_alloc_fns; i++)
        if (VG_(strcmp)(name, mr_clo.alloc_fns[i]) == 0)
            return True;
    return False;
}

/* The allocation stack of tid (at most max frames, of 64): the frames of
 * --alloc-fn functions right above the innermost one (malloc, mmap...)
 * are left out, so that the next frame is the allocation's real site. */
static UInt alloc_stack(ThreadId tid, Addr *ips, UInt max)
{
    if (mr_clo.n_alloc_fns == 0)
        return take_stack(tid, ips, max);
    UInt depth = take_stack(tid, ips, 64);
    UInt skip = 0;
    while (1 + skip < depth && in_alloc_fn(ips[1 + skip]))
        skip++;
    if (skip) {
        VG_(memmove)(ips + 1, ips + 1 + skip, (depth - 1 - skip) * sizeof *ips);
        depth -= skip;
    }
    return depth < max ? depth : max;
}

/* The id of the current call stack of tid, sending it the first time. */
static UInt stack_id(ThreadId tid)
{
    Addr ips[64];
    UInt depth = alloc_stack(tid, ips, mr_clo.stack_depth);
    ULong h = 0xcbf29ce484222325ULL;
    for (UInt i = 0; i < depth; i++)
        h = (h ^ ips[i]) * 0x100000001b3ULL;
    stack_node probe = { NULL, (UWord)h, depth, 0, NULL };
    probe_ips = ips;
    probe_depth = depth;
    stack_node *n = VG_(HT_gen_lookup)(stacks, &probe, cmp_stack);
    if (n)
        return n->id;
    n = VG_(malloc)("mr.stack", sizeof *n);
    n->key = probe.key;
    n->depth = depth;
    n->id = next_stack_id++;
    n->ips = VG_(malloc)("mr.stack.ips", (depth ? depth : 1) * sizeof(Addr));
    VG_(memcpy)(n->ips, ips, depth * sizeof(Addr));
    VG_(HT_add_node)(stacks, n);
    ULong w[64];
    for (UInt i = 0; i < depth; i++)
        w[i] = ips[i];
    mr_emit_def(WIRE_STACK, n->id, w, depth);
    return n->id;
}

UInt mr_heap_record(ThreadId tid, UInt op, Addr addr, SizeT size, SizeT count, Addr old)
{
    if (!mr_stream_alive())
        return 0;
    ULong w[5] = { addr, size, count, old, stack_id(tid) };
    mr_emit(WIRE_HEAP, op, w, 5);
    return (UInt)w[4];
}

void mr_heap_replay_live(void)
{
    if (!mr_stream_alive())
        return;
    VG_(HT_ResetIter)(live);
    heap_block *b;
    while ((b = VG_(HT_Next)(live))) {
        /* new and new[] stay themselves (delete pairs with them); the rest
         * is a malloc of the block's bytes. */
        UInt op = b->op == MR_NEW || b->op == MR_NEW_ARRAY ? b->op : MR_MALLOC;
        ULong w[5] = { b->key, b->size, 0, 0, b->stack };
        mr_emit(WIRE_HEAP, op, w, 5);
    }
}

static void *alloc(ThreadId tid, UInt op, SizeT align, SizeT size, SizeT count)
{
    SizeT bytes = op == MR_CALLOC ? size * count : size;
    if (op == MR_CALLOC && count && bytes / count != size)
        return NULL;                         /* nmemb * size overflows */
    void *p = VG_(cli_malloc)(align, bytes);
    if (!p)
        return NULL;
    if (op == MR_CALLOC)
        VG_(memset)(p, 0, bytes);
    heap_block *b = VG_(malloc)("mr.heap.block", sizeof *b);
    b->key = (UWord)p;
    b->size = bytes;
    b->op = (UChar)op;
    VG_(HT_add_node)(live, b);
    b->stack = mr_heap_record(tid, op, (Addr)p, size, op == MR_MEMALIGN ? align : count, 0);
    return p;
}

static void release(ThreadId tid, UInt op, void *p)
{
    heap_block *b = VG_(HT_remove)(live, (UWord)p);
    if (!b)
        return;                              /* not ours: ignore, as free() of junk */
    VG_(free)(b);
    mr_heap_record(tid, op, (Addr)p, 0, 0, 0);
    VG_(cli_free)(p);
}

static void *mr_malloc(ThreadId tid, SizeT n)
{
    return alloc(tid, MR_MALLOC, VG_(clo_alignment), n, 0);
}

static void *mr_new(ThreadId tid, SizeT n)
{
    return alloc(tid, MR_NEW, VG_(clo_alignment), n, 0);
}

static void *mr_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
    return alloc(tid, MR_NEW, align, n, 0);
}

static void *mr_vec_new(ThreadId tid, SizeT n)
{
    return alloc(tid, MR_NEW_ARRAY, VG_(clo_alignment), n, 0);
}

static void *mr_vec_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
    return alloc(tid, MR_NEW_ARRAY, align, n, 0);
}

static void *mr_memalign(ThreadId tid, SizeT align, SizeT n)
{
    return alloc(tid, MR_MEMALIGN, align, n, 0);
}

static void *mr_calloc(ThreadId tid, SizeT nmemb, SizeT size)
{
    return alloc(tid, MR_CALLOC, VG_(clo_alignment), size, nmemb);
}

static void mr_free(ThreadId tid, void *p)
{
    release(tid, MR_FREE, p);
}

static void mr_delete(ThreadId tid, void *p)
{
    release(tid, MR_DELETE, p);
}

static void mr_delete_aligned(ThreadId tid, void *p, SizeT align)
{
    (void)align;
    release(tid, MR_DELETE, p);
}

static void mr_vec_delete(ThreadId tid, void *p)
{
    release(tid, MR_DELETE_ARRAY, p);
}

static void mr_vec_delete_aligned(ThreadId tid, void *p, SizeT align)
{
    (void)align;
    release(tid, MR_DELETE_ARRAY, p);
}

/* realloc keeps object identity in the trace: one record, old and new. */
static void *mr_realloc(ThreadId tid, void *old, SizeT size)
{
    heap_block *b = VG_(HT_remove)(live, (UWord)old);
    if (!b)
        return NULL;
    void *p = VG_(cli_malloc)(VG_(clo_alignment), size);
    if (!p) {
        VG_(HT_add_node)(live, b);
        return NULL;
    }
    VG_(memcpy)(p, old, b->size < size ? b->size : size);
    VG_(cli_free)(old);
    b->key = (UWord)p;
    b->size = size;
    VG_(HT_add_node)(live, b);
    b->stack = mr_heap_record(tid, MR_REALLOC, (Addr)p, size, 0, (Addr)old);
    return p;
}

static SizeT mr_usable_size(ThreadId tid, void *p)
{
    (void)tid;
    heap_block *b = VG_(HT_lookup)(live, (UWord)p);
    return b ? b->size : 0;
}

void mr_heap_init(void)
{
    live = VG_(HT_construct)("mr.live");
    stacks = VG_(HT_construct)("mr.stacks");
    VG_(needs_malloc_replacement)(mr_malloc, mr_new, mr_new_aligned, mr_vec_new,
                                  mr_vec_new_aligned, mr_memalign, mr_calloc,
                                  mr_free, mr_delete, mr_delete_aligned,
                                  mr_vec_delete, mr_vec_delete_aligned,
                                  mr_realloc, mr_usable_size, 0);
}
