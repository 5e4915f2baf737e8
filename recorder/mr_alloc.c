/*
 * mr_alloc.c: the program's own allocator, recorded as it runs.
 *
 * Nothing is replaced and nothing is preloaded: glibc's malloc (or whatever
 * allocator the program links) runs as it does without memrec, so its
 * instructions and accesses are in the trace, the heap layout is the
 * native one and the environment is Valgrind's own (no preload changes
 * LD_PRELOAD, the stack or ld.so's work). The allocator's functions are
 * recognised by name at their first instruction (mr_instrument.c asks
 * mr_alloc_entry_op when it translates a block):
 *
 *   entry: a helper call takes the arguments and, for an allocation, the
 *          call stack; a free (free, operator delete) is recorded right
 *          there, before the allocator touches the block;
 *   return: every block that ends in a ret compares the stack pointer
 *          after it with mr_alloc_expect_sp (inline IR, a load and a
 *          compare); only the return to the caller of the pending
 *          allocation calls mr_alloc_return, which records the block with
 *          the function's result (%rax; posix_memalign's through its
 *          pointer). A tail call (operator delete jumping to free) returns
 *          the same way.
 *
 * Only the outermost allocation call of a thread counts: operator new
 * calling malloc, operator new[] jumping to operator new, or
 * realloc(NULL, n) calling malloc, is one operation. A pending call that
 * the stack has unwound past (a longjmp out of the allocator) is forgotten
 * when the next one enters from higher up the stack. A signal handler that
 * allocates while its thread is inside the allocator (which glibc does not
 * allow anyway) is not recorded.
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"

/* How an entry's arguments are read; the mr_heap_op is kept beside it. */
enum {
    ARGS_SIZE = 1,      /* malloc(size), new(size), valloc, pvalloc */
    ARGS_CALLOC,        /* calloc(count, size) */
    ARGS_REALLOC,       /* realloc(old, size) */
    ARGS_ALIGN_SIZE,    /* memalign(align, size), aligned_alloc */
    ARGS_POSIX,         /* posix_memalign(&ptr, align, size) */
    ARGS_PAGE_SIZE,     /* valloc(size), pvalloc(size): page aligned */
    ARGS_FREE           /* free(ptr), delete(ptr...) */
};

/* The allocation functions: a name after normalize() and how it is read. */
typedef struct alloc_fn {
    const HChar *name;
    Bool prefix;        /* a C++ mangled family: every overload */
    UChar op;           /* mr_heap_op */
    UChar args;
} alloc_fn;

static const alloc_fn alloc_fns[] = {
    { "malloc", False, MR_MALLOC, ARGS_SIZE },
    { "calloc", False, MR_CALLOC, ARGS_CALLOC },
    { "realloc", False, MR_REALLOC, ARGS_REALLOC },
    { "free", False, MR_FREE, ARGS_FREE },
    { "cfree", False, MR_FREE, ARGS_FREE },
    { "memalign", False, MR_MEMALIGN, ARGS_ALIGN_SIZE },
    { "aligned_alloc", False, MR_MEMALIGN, ARGS_ALIGN_SIZE },
    { "posix_memalign", False, MR_MEMALIGN, ARGS_POSIX },
    { "valloc", False, MR_MEMALIGN, ARGS_PAGE_SIZE },
    { "pvalloc", False, MR_MEMALIGN, ARGS_PAGE_SIZE },
    /* Every overload (nothrow, aligned, sized), as Valgrind names them
     * (demangled) and as --demangle=no does; "[]" is tried first. */
    { "operator new[](", True, MR_NEW_ARRAY, ARGS_SIZE },
    { "operator new(", True, MR_NEW, ARGS_SIZE },
    { "operator delete[](", True, MR_DELETE_ARRAY, ARGS_FREE },
    { "operator delete(", True, MR_DELETE, ARGS_FREE },
    { "_Znam", True, MR_NEW_ARRAY, ARGS_SIZE },
    { "_Znwm", True, MR_NEW, ARGS_SIZE },
    { "_ZdaPv", True, MR_DELETE_ARRAY, ARGS_FREE },
    { "_ZdlPv", True, MR_DELETE, ARGS_FREE },
};
#define N_ALLOC_FNS (sizeof alloc_fns / sizeof alloc_fns[0])

/* An allocation call in progress on a thread. */
typedef struct pending {
    Bool active;
    UChar fn;           /* index into alloc_fns */
    Addr sp;            /* stack pointer at entry (the return address is there) */
    UWord a0, a1, a2;   /* the arguments */
    UInt stack;         /* allocation stack id, taken at entry */
} pending;

Addr mr_alloc_expect_sp;
static pending *threads;           /* by ThreadId */
static UInt nthreads;

/* The glibc names of one function (malloc, __libc_malloc,
 * __GI___libc_malloc, __posix_memalign, malloc@@GLIBC_2.2.5) as one. */
static const HChar *normalize(const HChar *name, HChar *buf, SizeT size)
{
    if (VG_(strncmp)(name, "__GI_", 5) == 0)
        name += 5;
    if (VG_(strncmp)(name, "__libc_", 7) == 0)
        name += 7;
    else if (VG_(strcmp)(name, "__posix_memalign") == 0)
        name += 2;
    VG_(strncpy)(buf, name, size - 1);
    buf[size - 1] = 0;
    HChar *at = VG_(strchr)(buf, '@');
    if (at)
        *at = 0;
    return buf;
}

/* Index + 1 into alloc_fns of the function starting at a, 0 if none. */
static UInt entry_fn(Addr a)
{
    const HChar *name;
    HChar buf[128];
    if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name))
        return 0;
    const HChar *n = normalize(name, buf, sizeof buf);
    for (UInt i = 0; i < N_ALLOC_FNS; i++) {
        const alloc_fn *f = &alloc_fns[i];
        if (f->prefix ? VG_(strncmp)(n, f->name, VG_(strlen)(f->name)) == 0
                      : VG_(strcmp)(n, f->name) == 0)
            return i + 1;
    }
    return 0;
}

UInt mr_alloc_entry_op(Addr a)
{
    return entry_fn(a);
}

static pending *thread_pending(ThreadId tid)
{
    if (tid >= nthreads) {
        UInt n = tid + 16;
        threads = VG_(realloc)("mr.alloc.threads", threads, n * sizeof *threads);
        VG_(memset)(threads + nthreads, 0, (n - nthreads) * sizeof *threads);
        nthreads = n;
    }
    return &threads[tid];
}

Bool mr_alloc_in_progress(ThreadId tid)
{
    return tid < nthreads && threads[tid].active;
}

void mr_alloc_thread_runs(ThreadId tid)
{
    pending *p = thread_pending(tid);
    mr_alloc_expect_sp = p->active ? p->sp + sizeof(Addr) : 0;
}

/* mr_instrument.c passes the index + 1 of mr_alloc_entry_op as op. */
VG_REGPARM(0) void mr_alloc_enter(UWord op, Addr sp, UWord a0, UWord a1, UWord a2)
{
    ThreadId tid = VG_(get_running_tid)();
    pending *p = thread_pending(tid);
    if (p->active && p->sp >= sp)
        return;          /* called (or tail-called: operator new[] jumps to
                          * operator new) by the allocator: the outer call's */
    const alloc_fn *f = &alloc_fns[op - 1];
    *p = (pending){ .active = True, .fn = (UChar)(op - 1), .sp = sp,
                    .a0 = a0, .a1 = a1, .a2 = a2, .stack = 0 };
    if (f->args == ARGS_FREE) {
        if (a0)
            mr_heap_freed(tid, f->op, a0);
    } else if (!(f->args == ARGS_REALLOC && a0 && a1 == 0)) {   /* realloc(p, 0) frees */
        p->stack = mr_heap_stack_id(tid);
    }
    mr_alloc_expect_sp = sp + sizeof(Addr);
}

/* The block posix_memalign stored through its first argument. */
static Addr stored_pointer(Addr where)
{
    if (!VG_(am_is_valid_for_client)(where, sizeof(Addr), VKI_PROT_READ))
        return 0;
    return *(Addr *)where;
}

VG_REGPARM(0) void mr_alloc_return(Addr sp, UWord result)
{
    ThreadId tid = VG_(get_running_tid)();
    pending *p = thread_pending(tid);
    if (!p->active || p->sp + sizeof(Addr) != sp)
        return;
    p->active = False;
    mr_alloc_expect_sp = 0;
    const alloc_fn *f = &alloc_fns[p->fn];
    SizeT page = VKI_PAGE_SIZE;
    switch (f->args) {
    case ARGS_SIZE:
        if (result)
            mr_heap_allocated(tid, f->op, result, p->a0, 0, p->stack);
        break;
    case ARGS_CALLOC:
        if (result)
            mr_heap_allocated(tid, MR_CALLOC, result, p->a1, p->a0, p->stack);
        break;
    case ARGS_REALLOC:
        if (!p->a0) {
            if (result)
                mr_heap_allocated(tid, MR_MALLOC, result, p->a1, 0, p->stack);
        } else if (p->a1 == 0) {
            if (!result)                      /* glibc: realloc(p, 0) frees p */
                mr_heap_freed(tid, MR_FREE, p->a0);
        } else if (result) {
            mr_heap_reallocated(tid, p->a0, result, p->a1, p->stack);
        }
        break;
    case ARGS_ALIGN_SIZE:
        if (result)
            mr_heap_allocated(tid, MR_MEMALIGN, result, p->a1, p->a0, p->stack);
        break;
    case ARGS_POSIX:
        if (result == 0) {
            Addr a = stored_pointer(p->a0);
            if (a)
                mr_heap_allocated(tid, MR_MEMALIGN, a, p->a2, p->a1, p->stack);
        }
        break;
    case ARGS_PAGE_SIZE:
        if (result)
            mr_heap_allocated(tid, MR_MEMALIGN, result, p->a0, page, p->stack);
        break;
    default:
        break;                                 /* a free: recorded at entry */
    }
}
