/*
 * mr_signal.c: which fatal signal is ending the process.
 *
 * Valgrind 3.19 calls the tool's fini after a fatal signal but does not pass
 * the signal; the core keeps it in its (private) thread state. This file
 * mirrors the start of 3.19's amd64-linux ThreadState up to
 * os_state.fatalsig (coregrind/pub_core_threadstate.h) and checks the
 * mirror against the live array before trusting it: on any mismatch the
 * answer is 0, "unknown".
 */
#include "mr_tool.h"
#include "libvex_guest_amd64.h"
#include "pub_tool_vki.h"
#include "pub_tool_threadstate.h"

/* The guest state areas, aligned as the core declares them. */
typedef struct core_arch_state {
    VexGuestAMD64State vex __attribute__((aligned(16)));
    VexGuestAMD64State shadow1 __attribute__((aligned(16)));
    VexGuestAMD64State shadow2 __attribute__((aligned(16)));
    UChar spill[4096] __attribute__((aligned(16)));
} core_arch_state;

/* The prefix of ThreadState we read. */
typedef struct core_thread_prefix {
    ThreadId tid;                 /* == its index in the array */
    Int status;                   /* ThreadStatus */
    Int exitreason;               /* VgSchedReturnCode; 3 is VgSrc_FatalSig */
    core_arch_state arch;
    vki_sigset_t sig_mask, tmp_sig_mask;
    void *sig_queue;
    SizeT client_stack_szB;
    Addr client_stack_highest_byte;
    vki_stack_t altstack;
    struct {
        Int lwpid, threadgroup;
        ThreadId parent;
        Addr stack_base, stack_init_sp;
        UWord stk_id;
        Word exitcode;
        Int fatalsig;
    } os_state;
} core_thread_prefix;

#define FATAL_SIG_REASON 3
#define MAX_THREADS_SCANNED 500

extern UChar *VG_(threads);

/* The array's stride: the distance at which the next slot's tid field
 * holds the next index (the core numbers every slot at start-up). */
static SizeT find_stride(void)
{
    const SizeT prefix = sizeof(core_thread_prefix);
    for (SizeT s = prefix; s < prefix + 4096; s += 16) {
        const core_thread_prefix *t1 = (const void *)(VG_(threads) + s);
        const core_thread_prefix *t2 = (const void *)(VG_(threads) + 2 * s);
        if (t1->tid == 1 && t2->tid == 2)
            return s;
    }
    return 0;
}

Int mr_fatal_signal(void)
{
    if (!VG_(threads))
        return 0;
    SizeT stride = find_stride();
    if (stride == 0)
        return 0;
    for (UInt i = 1; i < MAX_THREADS_SCANNED; i++) {
        const core_thread_prefix *t = (const void *)(VG_(threads) + i * stride);
        if (t->tid != i)
            break;
        if (t->exitreason == FATAL_SIG_REASON && t->os_state.fatalsig > 0 &&
            t->os_state.fatalsig <= 64)
            return t->os_state.fatalsig;
    }
    return 0;
}
