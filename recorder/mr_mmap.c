/*
 * mr_mmap.c: the client's anonymous mappings (ld.so's own allocator, the
 * TLS block, custom allocators, big buffers), recorded as heap records
 * MR_MMAP and MR_MUNMAP with the call stack of the thread that made them.
 *
 * Valgrind tells tools of every mapping a client syscall makes or removes
 * (track_new_mem_mmap, track_die_mem_munmap), after its address space
 * manager has updated its segments. Only those callbacks report, so
 * Valgrind's own mappings (its arenas, memrec's ring) and what was mapped
 * before the client started (the executable, ld.so, the stack: told
 * through track_new_mem_startup) never are. Of the client's, a mapping is
 * reported when its segment is anonymous (SkAnonC, private or shared) or
 * SysV shared memory (SkShmC), except
 *   - a thread stack (MAP_STACK or MAP_GROWSDOWN): the stack rule of the
 *     tools covers it, and the thread's TLS block at its top;
 *   - an anonymous MAP_FIXED mapping over one of the client's file
 *     mappings: ld.so zero-filling a loaded module's .bss, whose bytes are
 *     the module's static data objects;
 *   - a mapping made inside malloc and friends (mr_alloc.c): glibc maps
 *     big blocks and thread arenas; the blocks it hands out are heap
 *     records of their own, and a block inside a mapping object would be
 *     an object inside an object. (Nor is the break, where malloc's main
 *     arena grows: the allocator's chunk headers and free lists there,
 *     like those in its mappings, are no object.)
 * The callbacks run inside the syscall, under the big lock, between the
 * tool's pre and post syscall hooks (mr_process.c), which see the flags.
 *
 * The ranges reported and not yet unmapped are kept here, so that an
 * munmap is reported only when it unmaps some of them (not the client's
 * file mappings), and a MAP_FIXED mapping over one first reports its
 * unmapping. mremap of a reported mapping is reported as the munmap of the
 * old range and the mmap of the new one, from the syscall's result (the
 * callbacks Valgrind makes for it are ignored).
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

/* Linux's mmap flags for stacks (amd64 values; not in Valgrind's vki). */
#define MR_MAP_GROWSDOWN 0x100
#define MR_MAP_STACK     0x20000

/* A range reported by MR_MMAP and not yet unmapped, [start, end). */
typedef struct range {
    Addr start, end;
    UInt stack;           /* stack id of the mmap that made it */
} range;

/* The reported ranges, sorted by start, disjoint. */
static range *ranges;
static UInt nranges, capranges;

/* What the syscall in progress is, as the pre hook saw it. */
typedef enum { SC_OTHER, SC_MMAP, SC_MMAP_SKIP, SC_MREMAP } sc_kind;
static sc_kind sc_current = SC_OTHER;
static ThreadId sc_tid = VG_INVALID_THREADID;   /* the thread making it */

/* Index of the first range ending after a. */
static UInt first_after(Addr a)
{
    UInt lo = 0, hi = nranges;
    while (lo < hi) {
        UInt mid = lo + (hi - lo) / 2;
        if (ranges[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Makes room at index i for one more range. */
static void open_slot(UInt i)
{
    if (nranges == capranges) {
        capranges = capranges ? 2 * capranges : 64;
        ranges = VG_(realloc)("mr.mmap.ranges", ranges, capranges * sizeof *ranges);
    }
    VG_(memmove)(ranges + i + 1, ranges + i, (nranges - i) * sizeof *ranges);
    nranges++;
}

static void close_slot(UInt i)
{
    VG_(memmove)(ranges + i, ranges + i + 1, (nranges - i - 1) * sizeof *ranges);
    nranges--;
}

/* Cuts [a, e) out of the reported ranges; True if it overlapped any. */
static Bool cut(Addr a, Addr e)
{
    Bool hit = False;
    UInt i = first_after(a);
    while (i < nranges && ranges[i].start < e) {
        range r = ranges[i];
        hit = True;
        if (r.start < a && r.end > e) {         /* a hole in the middle */
            open_slot(i + 1);
            ranges[i].end = a;
            ranges[i + 1] = (range){ e, r.end, r.stack };
            return True;
        }
        if (r.start < a) {                      /* the tail goes */
            ranges[i++].end = a;
        } else if (r.end > e) {                 /* the head goes */
            ranges[i].start = e;
            return True;
        } else {
            close_slot(i);                      /* all of it goes */
        }
    }
    return hit;
}

/* Remembers [a, e), which overlaps no reported range (cut first). */
static void add(Addr a, Addr e, UInt stack)
{
    UInt i = first_after(a);
    open_slot(i);
    ranges[i] = (range){ a, e, stack };
}

static void report_munmap(ThreadId tid, Addr a, SizeT len)
{
    if (len && cut(a, a + len))
        mr_heap_record(tid, MR_MUNMAP, a, len, 0, 0);
}

static void report_mmap(ThreadId tid, Addr a, SizeT len)
{
    report_munmap(tid, a, len);     /* a fixed mapping replaced a reported one */
    add(a, a + len, mr_heap_record(tid, MR_MMAP, a, len, 0, 0));
}

void mr_mmap_replay(void)
{
    if (!mr_stream_alive())
        return;
    for (UInt i = 0; i < nranges; i++) {
        ULong w[5] = { ranges[i].start, ranges[i].end - ranges[i].start, 0, 0, ranges[i].stack };
        mr_emit(WIRE_HEAP, MR_MMAP, w, 5);
    }
}

/* Is the syscall in progress one whose callbacks are ignored? */
static Bool ignored_now(ThreadId tid)
{
    return tid == sc_tid && (sc_current == SC_MMAP_SKIP || sc_current == SC_MREMAP);
}

static void new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
    (void)rr; (void)ww; (void)xx; (void)di;
    ThreadId tid = VG_(get_running_tid)();
    if (!len || ignored_now(tid) || mr_alloc_in_progress(tid))
        return;
    NSegment const *seg = VG_(am_find_nsegment)(a);
    if (!seg || !(seg->kind == SkAnonC || seg->kind == SkShmC) || seg->isCH)
        return;
    report_mmap(tid, a, len);
}

static void die_mem_munmap(Addr a, SizeT len)
{
    ThreadId tid = VG_(get_running_tid)();
    if (!ignored_now(tid))
        report_munmap(tid, a, len);
}

/* Is a in one of the client's file mappings? */
static Bool client_file_at(Addr a)
{
    NSegment const *seg = VG_(am_find_nsegment)(a);
    return seg && seg->kind == SkFileC;
}

void mr_mmap_pre_syscall(ThreadId tid, UInt sysno, const UWord *args)
{
    sc_tid = tid;
    sc_current = SC_OTHER;
    if (sysno == __NR_mmap) {
        UWord flags = args[3];
        Bool stack = (flags & (MR_MAP_STACK | MR_MAP_GROWSDOWN)) != 0;
        Bool bss = (flags & VKI_MAP_FIXED) && client_file_at(args[0]);
        sc_current = stack || bss ? SC_MMAP_SKIP : SC_MMAP;
    } else if (sysno == __NR_mremap) {
        sc_current = SC_MREMAP;
    }
}

/* mremap(old, old_len, new_len, ...) returned new: a reported mapping
 * moves or changes size; others (a file mapping) stay unreported. */
static void post_mremap(ThreadId tid, const UWord *args, SysRes res)
{
    if (sr_isError(res))
        return;
    Addr old = args[0];
    SizeT old_len = VG_PGROUNDUP(args[1]), new_len = VG_PGROUNDUP(args[2]);
    UInt i = first_after(old);
    if (!old_len || i == nranges || ranges[i].start >= old + old_len)
        return;                             /* none of it was reported */
    report_munmap(tid, old, old_len);
    report_mmap(tid, sr_Res(res), new_len);
}

void mr_mmap_post_syscall(ThreadId tid, UInt sysno, const UWord *args, SysRes res)
{
    if (tid != sc_tid)
        return;         /* a blocking syscall ending after another began */
    if (sysno == __NR_mremap && sc_current == SC_MREMAP)
        post_mremap(tid, args, res);
    sc_current = SC_OTHER;
    sc_tid = VG_INVALID_THREADID;
}

void mr_mmap_init(void)
{
    VG_(track_new_mem_mmap)(new_mem_mmap);
    VG_(track_die_mem_munmap)(die_mem_munmap);
}
