/*
 * mr_heap.c: heap records with interned call stacks, and the table of live
 * blocks a forked child starts with. The program's own allocator runs;
 * mr_alloc.c sees its calls (as mr_custom.c sees client requests and
 * mr_mmap.c the mappings) and reports them here.
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"

/* A live client block: its requested size and allocation, for a forked
 * child (mr_heap_replay_live). */
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

UInt mr_heap_stack_id(ThreadId tid)
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
    ULong w[5] = { addr, size, count, old, mr_heap_stack_id(tid) };
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

void mr_heap_allocated(ThreadId tid, UInt op, Addr addr, SizeT size, SizeT count,
                       UInt stack)
{
    heap_block *b = VG_(HT_remove)(live, (UWord)addr);
    if (!b)
        b = VG_(malloc)("mr.heap.block", sizeof *b);   /* else a block we missed the free of */
    b->key = (UWord)addr;
    b->size = op == MR_CALLOC ? size * count : size;
    b->op = (UChar)op;
    b->stack = stack;
    VG_(HT_add_node)(live, b);
    if (mr_stream_alive()) {
        ULong w[5] = { addr, size, count, 0, stack };
        mr_emit(WIRE_HEAP, op, w, 5);
    }
}

void mr_heap_freed(ThreadId tid, UInt op, Addr addr)
{
    heap_block *b = VG_(HT_remove)(live, (UWord)addr);
    if (!b)
        return;          /* not a block we saw allocated (ld.so's, or junk) */
    VG_(free)(b);
    mr_heap_record(tid, op, addr, 0, 0, 0);
}

void mr_heap_reallocated(ThreadId tid, Addr old, Addr addr, SizeT size, UInt stack)
{
    heap_block *b = VG_(HT_remove)(live, (UWord)old);
    if (!b) {            /* an unknown block grew: from now on it is known */
        mr_heap_allocated(tid, MR_MALLOC, addr, size, 0, stack);
        return;
    }
    b->key = (UWord)addr;
    b->size = size;
    b->stack = stack;
    VG_(HT_add_node)(live, b);
    if (mr_stream_alive()) {
        ULong w[5] = { addr, size, 0, old, stack };
        mr_emit(WIRE_HEAP, MR_REALLOC, w, 5);
    }
}

void mr_heap_init(void)
{
    live = VG_(HT_construct)("mr.live");
    stacks = VG_(HT_construct)("mr.stacks");
}
