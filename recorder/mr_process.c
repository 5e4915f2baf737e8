/*
 * mr_process.c: the process around the recorded code: its record (pid,
 * command line), threads, fork, exec, exit, client requests (memrec.h) and
 * --toggle-collect.
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "memrec.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

static ThreadId last_tid = VG_INVALID_THREADID;   /* thread of the last records */
static Bool exit_seen;                            /* exit_group was called */
static Int exit_status;
static ULong start_usec;

/* --toggle-collect: the thread inside the function, and its stack pointer
 * at entry (pointing at the return address). */
static Bool in_toggle_fn;
static ThreadId toggle_tid;
static Addr toggle_sp;

/* Sends the process record. Of a command line longer than WIRE_MAX_ARGS
 * arguments, the first WIRE_MAX_ARGS - 1 are sent and then one saying how
 * many more there were (wire.h says why). */
void mr_process_send_record(void)
{
    XArray *args = VG_(args_for_client);
    UInt argc = 1 + (UInt)VG_(sizeXA)(args);
    UInt sent = argc <= WIRE_MAX_ARGS ? argc : WIRE_MAX_ARGS;
    ULong *w = VG_(malloc)("mr.process", (6 + sent) * sizeof(ULong));
    w[0] = (ULong)VG_(getpid)();
    w[1] = (ULong)VG_(getppid)();
    w[2] = start_usec;
    w[3] = mr_string_id(VG_(args_the_exename));
    w[4] = mr_string_id(mr_options_string());
    w[5] = sent;
    w[6] = mr_string_id(VG_(args_the_exename));
    for (UInt i = 1; i < sent; i++)
        w[6 + i] = mr_string_id(*(HChar **)VG_(indexXA)(args, i - 1));
    if (sent < argc) {
        HChar more[48];
        VG_(sprintf)(more, "... %u more arguments", argc - sent + 1);
        w[6 + sent - 1] = mr_string_id(more);
    }
    mr_emit(WIRE_PROCESS, 0, w, 6 + sent);
    VG_(free)(w);
}

void mr_process_forget_thread(void)
{
    last_tid = VG_INVALID_THREADID;
}

/* Whether thread tid's OS thread id was sent, by tid. */
static Bool *os_tid_sent;
static UInt n_os_tid_sent;

/* Sends tid's OS thread id once per thread. Called as tid starts running:
 * Valgrind runs each client thread on a kernel thread of its own, the one
 * calling us, so gettid() is tid's. */
static void send_os_tid(ThreadId tid)
{
    if (tid >= n_os_tid_sent) {
        UInt n = tid + 16;
        os_tid_sent = VG_(realloc)("mr.ostid", os_tid_sent, n * sizeof *os_tid_sent);
        VG_(memset)(os_tid_sent + n_os_tid_sent, 0, (n - n_os_tid_sent) * sizeof *os_tid_sent);
        n_os_tid_sent = n;
    }
    if (os_tid_sent[tid])
        return;
    os_tid_sent[tid] = True;
    ULong w[2] = { tid, (ULong)VG_(gettid)() };
    mr_emit(WIRE_THREAD_OS, 0, w, 2);
}

/* A thread switch record only when the running thread changes. */
static void start_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    mr_alloc_thread_runs(tid);
    if (tid == last_tid || !mr_stream_alive())
        return;
    send_os_tid(tid);
    ULong w[2] = { tid, 0 };
    mr_emit(WIRE_THREAD, MR_THREAD_SWITCH, w, 2);
    last_tid = tid;
}

static void thread_create(ThreadId parent, ThreadId child)
{
    ULong w[2] = { child, parent };
    if (parent != VG_INVALID_THREADID && mr_stream_alive())
        mr_emit(WIRE_THREAD, MR_THREAD_CREATE, w, 2);
}

static void thread_exit(ThreadId tid)
{
    ULong w[2] = { tid, 0 };
    if (tid < n_os_tid_sent)
        os_tid_sent[tid] = False;    /* a later thread may get this id */
    if (mr_stream_alive())
        mr_emit(WIRE_THREAD, MR_THREAD_EXIT, w, 2);
}

static Bool is_exec(UInt sysno)
{
    return sysno == __NR_execve || sysno == __NR_execveat;
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
    (void)nargs;
    mr_mmap_pre_syscall(tid, sysno, args);
    if (sysno == __NR_exit_group) {
        exit_seen = True;
        exit_status = (Int)args[0];
    } else if (is_exec(sysno) && mr_stream_alive()) {
        /* If the exec succeeds, our pipe closes (close-on-exec) right after
         * this record and the encoder ends the trace with MR_END_EXEC. */
        mr_emit(WIRE_EXEC_CALL, 0, NULL, 0);
        mr_stream_flush();
    }
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
    (void)nargs;
    mr_mmap_post_syscall(tid, sysno, args, res);
    if (is_exec(sysno) && sr_isError(res) && mr_stream_alive())
        mr_emit(WIRE_EXEC_FAIL, 0, NULL, 0);
}

static void fork_child(ThreadId tid)
{
    exit_seen = False;
    mr_stream_restart_in_child();
    if (os_tid_sent)                 /* the child's one thread is a new one */
        VG_(memset)(os_tid_sent, 0, n_os_tid_sent * sizeof *os_tid_sent);
    /* The child's one thread, then what it inherited, before it runs. */
    start_client_code(tid, 0);
    mr_heap_replay_live();
    mr_mmap_replay();
}

VG_REGPARM(1) void mr_toggle_enter(Addr sp)
{
    if (in_toggle_fn)
        return;                     /* recursion: the outermost call counts */
    in_toggle_fn = True;
    toggle_tid = VG_(get_running_tid)();
    toggle_sp = sp;
    mr_stream_set_collect(True);
}

VG_REGPARM(1) void mr_toggle_check_return(Addr sp)
{
    if (in_toggle_fn && VG_(get_running_tid)() == toggle_tid && sp > toggle_sp) {
        in_toggle_fn = False;
        mr_stream_set_collect(False);
    }
}

/* The client's NUL-terminated string at a, as far as it is readable: a
 * name the client cannot read itself is recorded as "", one that runs into
 * unreadable memory without a NUL up to there. At most WIRE_MAX_STRING + 1
 * bytes are copied, one more than a string sent can hold, so that
 * mr_string_id sees a longer name and marks the cut. */
static const HChar *client_name(Addr a)
{
    static HChar name[WIRE_MAX_STRING + 2];
    SizeT n = 0;
    while (a && n <= WIRE_MAX_STRING) {
        Addr page_end = ((a + n) | (VKI_PAGE_SIZE - 1)) + 1;
        SizeT run = page_end - (a + n);     /* readable or not as a whole */
        if (run > WIRE_MAX_STRING + 1 - n)
            run = WIRE_MAX_STRING + 1 - n;
        if (!VG_(am_is_valid_for_client)(a + n, run, VKI_PROT_READ))
            break;
        const HChar *p = (const HChar *)(a + n);
        SizeT len = VG_(strnlen)(p, run);
        VG_(memcpy)(name + n, p, len);
        n += len;
        if (len < run)
            break;                          /* the NUL */
    }
    name[n] = 0;
    return name;
}

static Bool client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    if (mr_custom_request(tid, arg, ret))
        return True;
    if (!VG_IS_TOOL_USERREQ('M', 'R', arg[0]))
        return False;
    *ret = 0;
    switch (arg[0]) {
    case MEMREC_USERREQ_START:
        mr_stream_set_collect(True);
        return True;
    case MEMREC_USERREQ_STOP:
        mr_stream_set_collect(False);
        return True;
    case MEMREC_USERREQ_MARK: {
        ULong w = mr_string_id(client_name((Addr)arg[1]));
        mr_emit(WIRE_MARK, 0, &w, 1);
        return True;
    }
    default:
        return False;
    }
}

void mr_process_init(void)
{
    VG_(needs_client_requests)(client_request);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(track_start_client_code)(start_client_code);
    VG_(track_pre_thread_ll_create)(thread_create);
    VG_(track_pre_thread_ll_exit)(thread_exit);
    VG_(atfork)(NULL, NULL, fork_child);
}

void mr_process_post_clo_init(void)
{
    struct vki_timeval tv;
    VG_(gettimeofday)(&tv, NULL);
    start_usec = (ULong)tv.tv_sec * 1000000ULL + (ULong)tv.tv_usec;
    mr_process_send_record();
    if (mr_clo.toggle_fn || !mr_clo.collect_atstart)
        mr_stream_set_collect(False);
}

void mr_process_fini(void)
{
    if (exit_seen)
        mr_stream_finish(MR_END_EXIT, exit_status, 0);
    else
        mr_stream_finish(MR_END_SIGNAL, 0, mr_fatal_signal());
}
