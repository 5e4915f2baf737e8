/*
 * mr_tool.h: what the parts of the memrec Valgrind tool share.
 *
 * The tool lives inside Valgrind: no libc, only the VG_(...) API. It
 * instruments code so that block executions append raw words to one buffer
 * (mr_stream.c), and sends everything else (definitions, heap operations,
 * threads, markers) through the same buffer in program order. The encoder
 * process turns the words into a trace (see wire.h).
 */
#ifndef MEMREC_TOOL_H
#define MEMREC_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "libvex_ir.h"
#include "wire.h"

/* ---- options (mr_options.c) ---- */
typedef enum { MR_VALUES_NONE, MR_VALUES_POINTERS, MR_VALUES_ALL } mr_values_mode;

/* The parsed command line options of the tool. */
/* How many --alloc-fn options are kept (Massif takes any number; a
 * program has a few allocation wrappers). */
#define MR_MAX_ALLOC_FNS 32

typedef struct mr_options {
    const HChar *out_file;      /* --memrec-out-file, not yet expanded */
    Bool trace_mem;             /* --trace-mem */
    mr_values_mode values;      /* --values */
    UInt stack_depth;           /* --stack-depth */
    const HChar *toggle_fn;     /* --toggle-collect, or NULL */
    Int compress_level;         /* --compress-level (0: the library's default) */
    Bool collect_atstart;       /* --collect-atstart */
    const HChar *alloc_fns[MR_MAX_ALLOC_FNS];   /* --alloc-fn, as given */
    UInt n_alloc_fns;
} mr_options;

extern mr_options mr_clo;
Bool mr_process_option(const HChar *arg);
void mr_print_usage(void);
void mr_print_debug_usage(void);
/* The options as one string, for the trace's process record. */
const HChar *mr_options_string(void);

/* ---- the buffer and the pipe (mr_stream.c) ---- */
/* Where inline IR appends the next word. Kept in memory so that IR can load
 * it at each block entry and store it back at each exit; mr_buf_end too, as
 * the slot changes. */
extern ULong *mr_cursor;
extern ULong *mr_buf_start;     /* the slot being filled */
extern ULong *mr_buf_end;       /* one past its last word */

void mr_stream_init(void);
/* Starts the encoder on the expanded --memrec-out-file; on failure prints
 * why and exits (the client has not started yet). */
void mr_stream_start(void);
/* Writes out everything buffered. */
void mr_stream_flush(void);
/* Called by inline IR when a block might not fit: hands the slot over and
 * returns the cursor to go on with. */
VG_REGPARM(0) ULong *mr_stream_flush_full(void);
/* Appends one generic record (see wire.h); a definition record (strings,
 * symbols, modules, blocks, stacks) is also kept to be sent again after fork. */
void mr_emit(UInt tag, UInt aux, const ULong *payload, UInt nwords);
void mr_emit_def(UInt tag, UInt aux, const ULong *payload, UInt nwords);
/* Turns collection of block executions on or off (records WIRE_COLLECT). */
void mr_stream_set_collect(Bool on);
Bool mr_stream_collecting(void);
/* Sends the end record, waits for the encoder to finish the trace. */
void mr_stream_finish(UInt reason, Int status, Int signal);
/* In a forked child: drop the parent's data, start a new trace. */
void mr_stream_restart_in_child(void);
/* Whether records are still sent (false after the encoder died). */
Bool mr_stream_alive(void);

/* ---- definitions: strings, modules, symbols, blocks (mr_defs.c) ---- */
void mr_defs_init(void);
/* Id of a string, sending it the first time. NULL gives 0. */
ULong mr_string_id(const HChar *s);
/* Sends modules whose debug information appeared since the last call. */
void mr_defs_scan_modules(void);
/* Sends function/file/line of each address not sent before. */
void mr_defs_symbolize(const Addr *addrs, UInt n);

/* The id of a block with exactly this definition, sending it when new. */
UInt mr_defs_block_id(const ULong *payload, UInt nwords);

/* ---- instrumentation (mr_instrument.c) ---- */
IRSB *mr_instrument(VgCallbackClosure *closure, IRSB *sb_in,
                    const VexGuestLayout *layout,
                    const VexGuestExtents *vge,
                    const VexArchInfo *archinfo,
                    IRType gWordTy, IRType hWordTy);

/* ---- heap (mr_heap.c) ---- */
void mr_heap_init(void);
/* Sends a heap record (wire.h, WIRE_HEAP) with tid's current call stack;
 * returns the stack's id (0 when nothing is sent). */
UInt mr_heap_record(ThreadId tid, UInt op, Addr addr, SizeT size, SizeT count, Addr old);
/* The id of tid's current call stack (--stack-depth frames, --alloc-fn
 * frames left out), sending it the first time. */
UInt mr_heap_stack_id(ThreadId tid);
/* The program's allocator (mr_alloc.c) allocated, freed or moved a block:
 * the heap record, and the table of live blocks kept up to date. A free
 * of a block never seen allocated is not recorded. size is calloc's
 * element size, count its element count (memalign: the alignment). */
void mr_heap_allocated(ThreadId tid, UInt op, Addr addr, SizeT size, SizeT count, UInt stack);
void mr_heap_freed(ThreadId tid, UInt op, Addr addr);
void mr_heap_reallocated(ThreadId tid, Addr old, Addr addr, SizeT size, UInt stack);
/* A forked child's trace starts with what it inherited: a heap record per
 * live block (mr_heap.c) and per reported mapping (mr_mmap.c), each with
 * the stack of its allocation. */
void mr_heap_replay_live(void);
void mr_mmap_replay(void);

/* ---- the program's allocator, seen at its functions' entries and returns (mr_alloc.c) ---- */
/* Which allocation function (malloc, free, operator new...) has its first
 * instruction at a: a number for mr_alloc_enter's op, 0 if none. */
UInt mr_alloc_entry_op(Addr a);
/* Where the running thread's pending allocation call returns to: the
 * stack pointer after its ret (0: none). Inline IR at every return
 * compares the stack pointer with it. */
extern Addr mr_alloc_expect_sp;
/* Called by inline IR at the entry of an allocation function and at a
 * return that reaches mr_alloc_expect_sp. */
VG_REGPARM(0) void mr_alloc_enter(UWord op, Addr sp, UWord a0, UWord a1, UWord a2);
VG_REGPARM(0) void mr_alloc_return(Addr sp, UWord result);
/* The running thread changed (mr_process.c). */
void mr_alloc_thread_runs(ThreadId tid);
/* Whether tid is inside an allocation function (its mmaps are the
 * allocator's: mr_mmap.c leaves them out). */
Bool mr_alloc_in_progress(ThreadId tid);

/* ---- custom allocators' client requests (mr_custom.c) ---- */
void mr_custom_init(void);
/* Handles Valgrind's MALLOCLIKE/FREELIKE/RESIZEINPLACE and MEMPOOL
 * requests (valgrind.h); False for any other request. */
Bool mr_custom_request(ThreadId tid, UWord *arg, UWord *ret);

/* ---- the client's anonymous mappings (mr_mmap.c) ---- */
void mr_mmap_init(void);
/* Called by the syscall wrappers of mr_process.c around every syscall. */
void mr_mmap_pre_syscall(ThreadId tid, UInt sysno, const UWord *args);
void mr_mmap_post_syscall(ThreadId tid, UInt sysno, const UWord *args, SysRes res);

/* ---- threads, processes, client requests (mr_process.c) ---- */
void mr_process_init(void);
void mr_process_post_clo_init(void);
void mr_process_fini(void);
/* Sends the process record (pid, command line, options). */
void mr_process_send_record(void);
/* The toggle-collect helpers called from instrumented code. */
VG_REGPARM(1) void mr_toggle_enter(Addr sp);
VG_REGPARM(1) void mr_toggle_check_return(Addr sp);
/* Forgets the last thread so the next one is announced again. */
void mr_process_forget_thread(void);

/* ---- the fatal signal (mr_signal.c) ---- */
/* The signal that is killing the process, 0 if unknown. Valgrind 3.19 tells
 * tools no more than "fini"; the core keeps the number in its thread state. */
Int mr_fatal_signal(void);

#endif /* MEMREC_TOOL_H */
