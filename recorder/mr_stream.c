/*
 * mr_stream.c: the ring of raw words shared with the encoder, the pipes
 * that hand its slots back and forth, and the encoder's life (start,
 * restart after fork, finish).
 *
 * The ring is a memfd mapped by both processes: RING_SLOTS slots of
 * slot_words words (SLOT_WORDS, fewer under a small file size limit).
 * Instrumented blocks append words at mr_cursor in the current slot
 * (inline IR, no call); a block that might not fit calls
 * mr_stream_flush_full(), which hands the slot to the encoder (one 8-byte
 * message on the data pipe: slot | words << 8) and moves to the next slot,
 * waiting until the encoder has given it back (one byte on its stdout per
 * slot done). No word is copied through the kernel. Records never straddle
 * two slots. Valgrind runs one thread at a time and never switches inside a
 * block, so one ring serves all threads.
 */
#include "mr_tool.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

/* Not in 3.19's public headers, but exported by the core we link: moves a
 * descriptor out of the client's range (and sets close-on-exec), raw
 * syscalls (memfd_create, ftruncate), a shared mapping for Valgrind's own
 * use, and a non-blocking sigtimedwait to drop a SIGPIPE our write caused. */
extern Int VG_(safe_fd)(Int oldfd);
extern SysRes VG_(do_syscall)(UWord sysno, UWord a1, UWord a2, UWord a3, UWord a4,
                              UWord a5, UWord a6, UWord a7, UWord a8);
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd,
                                                      Off64T offset);
extern Int VG_(sigtimedwait_zero)(const vki_sigset_t *set, vki_siginfo_t *info);
extern Int VG_(sigemptyset)(vki_sigset_t *set);
extern Int VG_(sigaddset)(vki_sigset_t *set, Int signum);
extern Int VG_(sigfillset)(vki_sigset_t *set);

#define RING_SLOTS  4
#define SLOT_WORDS  (1u << 18)      /* 2 MiB: one message per 2 MiB of raw words */
#define SIDE_WORDS  (1u << 14)      /* records sent while collection is off */
#define MIN_SLOT_WORDS SIDE_WORDS   /* a slot must take the whole side buffer */
#define RING_FD     3               /* where the encoder finds the ring */
#define RLIMIT_FSIZE_ 1             /* RLIMIT_FSIZE (not in 3.19's vki for amd64) */

/* A slot must also take any record, as put() never splits one. The longest
 * records whose size the client sets are a string and the process record,
 * which the tool bounds (wire.h); stacks (at most 64 frames) and blocks
 * (VEX makes at most 100 instructions of one) are far shorter. */
STATIC_ASSERT(1 + (WIRE_MAX_STRING + 1 + 7) / 8 <= MIN_SLOT_WORDS);
STATIC_ASSERT(1 + 6 + WIRE_MAX_ARGS <= MIN_SLOT_WORDS);

ULong *mr_cursor;
ULong *mr_buf_start;
ULong *mr_buf_end;

static ULong *ring;                 /* RING_SLOTS slots */
static UInt slot_words = SLOT_WORDS; /* words per slot of this ring */
static SizeT ring_bytes;            /* its size, as mapped */
static UInt slot;                   /* the slot being filled */
static Bool busy[RING_SLOTS];       /* handed to the encoder, not yet back */

/* While collection is off, blocks still append to the slot (the inline IR
 * does not test a flag) but the slot is dropped instead of sent; other
 * records wait in this side buffer, so their order is kept. */
static ULong side_buf[SIDE_WORDS];
static UInt side_used;
static Bool collecting = True;

/* Every definition record ever sent, to send again to a forked child's new
 * encoder: its trace must define the blocks the child goes on running. */
static ULong *def_log;
static SizeT def_log_used, def_log_size;

static Int data_fd = -1;        /* write end of the message pipe */
static Int status_fd = -1;      /* read end of the encoder's stdout */
static Bool alive;              /* records are being sent */
static Bool reported;           /* a failure was reported once */
static HChar *trace_path;       /* the expanded output path */
static Int keeper_pid;          /* our encoder's keeper, reaped at the end */

/* A scratch slot while nothing is sent (before start, after a failure). */
static ULong scratch[SLOT_WORDS];

static void use_slot(ULong *base)
{
    mr_buf_start = base;
    mr_buf_end = base + slot_words;     /* scratch has room for any slot size */
    mr_cursor = base;
}

void mr_stream_init(void)
{
    use_slot(scratch);
}

Bool mr_stream_alive(void)
{
    return alive;
}

static void close_fd(Int *fd)
{
    if (*fd >= 0)
        VG_(close)(*fd);
    *fd = -1;
}

/* Stops sending after a failure, saying so once. */
static void give_up(const HChar *why)
{
    if (!reported)
        VG_(umsg)("memrec: %s: %s; recording stops, the program goes on\n",
                  trace_path ? trace_path : "trace", why);
    reported = True;
    alive = False;
    close_fd(&data_fd);
    use_slot(scratch);
}

/* Waits for the encoder to give a slot back. */
static void wait_for_slot(UInt s)
{
    while (alive && busy[s]) {
        UChar done;
        Int r = VG_(read)(status_fd, &done, 1);
        if (r == -VKI_EINTR)
            continue;
        if (r != 1 || done >= RING_SLOTS) {
            give_up("the encoder stopped");
            return;
        }
        busy[done] = False;
    }
}

/* Hands the filled part of the current slot to the encoder. */
static void send_slot(void)
{
    UInt words = (UInt)(mr_cursor - mr_buf_start);
    if (!alive || words == 0) {
        mr_cursor = mr_buf_start;
        return;
    }
    ULong msg = slot | (ULong)words << 8;
    Int r;
    do
        r = VG_(write)(data_fd, &msg, sizeof msg);
    while (r == -VKI_EINTR);
    if (r != sizeof msg) {
        if (r == -VKI_EPIPE) {
            /* Our write raised SIGPIPE for this thread: take it back so
             * the client does not die of the encoder's death. */
            vki_sigset_t set;
            vki_siginfo_t info;
            VG_(sigemptyset)(&set);
            VG_(sigaddset)(&set, VKI_SIGPIPE);
            VG_(sigtimedwait_zero)(&set, &info);
        }
        give_up("the encoder stopped reading");
        return;
    }
    busy[slot] = True;
    slot = (slot + 1) % RING_SLOTS;
    wait_for_slot(slot);
    if (alive)
        use_slot(ring + (SizeT)slot * slot_words);
}

/* Appends n words (whole records) to the current slot. */
static void put(const ULong *w, UInt n)
{
    tl_assert(n <= slot_words);
    if ((SizeT)(mr_buf_end - mr_cursor) < n)
        send_slot();
    VG_(memcpy)(mr_cursor, w, (SizeT)n * sizeof(ULong));
    mr_cursor += n;
}

/* Sends what waited in the side buffer; the slot holds only junk written
 * by blocks while collection was off. */
static void flush_side(void)
{
    if (side_used == 0)
        return;
    mr_cursor = mr_buf_start;
    put(side_buf, side_used);
    side_used = 0;
    send_slot();
}

void mr_stream_flush(void)
{
    if (collecting)
        send_slot();
    else
        mr_cursor = mr_buf_start;
    flush_side();
}

/* Called by inline IR: returns the cursor to continue at. */
VG_REGPARM(0) ULong *mr_stream_flush_full(void)
{
    mr_stream_flush();
    return mr_cursor;
}

/* Appends one record where records go now. */
static void append(const ULong *w, UInt n)
{
    if (collecting) {
        put(w, n);
        return;
    }
    if (SIDE_WORDS - side_used < n)
        flush_side();
    if (n > SIDE_WORDS) {                  /* a huge record: send it alone */
        mr_cursor = mr_buf_start;
        put(w, n);
        send_slot();
        return;
    }
    VG_(memcpy)(side_buf + side_used, w, (SizeT)n * sizeof(ULong));
    side_used += n;
}

void mr_emit(UInt tag, UInt aux, const ULong *payload, UInt nwords)
{
    ULong small[16];
    ULong *rec = nwords < 16 ? small : VG_(malloc)("mr.rec", (nwords + 1) * sizeof(ULong));
    rec[0] = WIRE_HEADER(tag, nwords, aux);
    if (nwords)
        VG_(memcpy)(rec + 1, payload, (SizeT)nwords * sizeof(ULong));
    append(rec, nwords + 1);
    if (rec != small)
        VG_(free)(rec);
}

static void log_words(const ULong *w, SizeT n)
{
    if (def_log_used + n > def_log_size) {
        SizeT size = def_log_size ? def_log_size : 1 << 14;
        while (size < def_log_used + n)
            size *= 2;
        def_log = VG_(realloc)("mr.deflog", def_log, size * sizeof(ULong));
        def_log_size = size;
    }
    VG_(memcpy)(def_log + def_log_used, w, n * sizeof(ULong));
    def_log_used += n;
}

void mr_emit_def(UInt tag, UInt aux, const ULong *payload, UInt nwords)
{
    ULong header = WIRE_HEADER(tag, nwords, aux);
    log_words(&header, 1);
    log_words(payload, nwords);
    mr_emit(tag, aux, payload, nwords);
}

/* Sends the logged definitions again: strings first (the process record
 * names some), or everything else. */
static void replay_defs(Bool strings)
{
    for (SizeT i = 0; i < def_log_used;) {
        UInt n = 1 + (UInt)((def_log[i] >> 8) & 0xffffff);
        if (((def_log[i] & 0xff) == WIRE_STRING) == strings)
            append(def_log + i, n);
        i += n;
    }
}

Bool mr_stream_collecting(void)
{
    return collecting;
}

void mr_stream_set_collect(Bool on)
{
    if (on == collecting)
        return;
    if (on) {
        mr_cursor = mr_buf_start;   /* drop what blocks wrote while off */
        collecting = True;
        if (side_used) {
            put(side_buf, side_used);
            side_used = 0;
        }
        mr_emit(WIRE_COLLECT, 1, NULL, 0);
    } else {
        mr_emit(WIRE_COLLECT, 0, NULL, 0);
        send_slot();
        collecting = False;
    }
}

/* ---- the encoder process ---- */

/* Reads the encoder's status line; returns NULL for success or the message. */
static HChar *read_status(void)
{
    static HChar line[512];
    Int used = 0;
    while (used < (Int)sizeof line - 1) {
        Int r = VG_(read)(status_fd, line + used, 1);
        if (r == -VKI_EINTR)
            continue;
        if (r <= 0)
            break;
        if (line[used++] == '\n')
            break;
    }
    line[used] = 0;
    if (VG_(strcmp)(line, WIRE_STATUS_OK) == 0)
        return NULL;
    if (used == 0)
        VG_(strcpy)(line, "the encoder did not start\n");
    return line;
}

/* Closes every descriptor of a process about to do nothing but wait: it
 * must hold no pipe end open (the encoder's, the client's). */
static void close_all_fds(void)
{
    SysRes r = VG_(do_syscall)(__NR_close_range, 0, ~0U, 0, 0, 0, 0, 0, 0);
    if (sr_isError(r))                  /* before Linux 5.9 */
        for (Int fd = 0; fd < 1 << 16; fd++)
            VG_(close)(fd);
}

/* Starts the encoder under a keeper process; returns the keeper's pid, or
 * -1. The keeper is a child of this process made by clone() with no exit
 * signal, which the kernel shows only to a wait with __WCLONE or __WALL:
 * the client's wait(), waitpid(-1) and SIGCHLD never see it. The keeper
 * forks the encoder, closes every descriptor, blocks every signal (it
 * shares the client's process group) and waits for the encoder, so the
 * encoder's CPU time adds to the keeper's children's, and, when
 * mr_stream_finish() reaps the keeper, to ours: `time` and
 * getrusage(RUSAGE_CHILDREN) count it. (The encoder itself cannot be that
 * child: exec gives a process SIGCHLD as its exit signal again.) The
 * encoder gets the message pipe as stdin, the status pipe as stdout and
 * the ring as descriptor 3. */
static Int spawn_encoder(const HChar *path, Int data[2], Int status[2], Int ring_fd)
{
    HChar level[16], layout[48];
    const HChar *argv[5];
    HChar *exe = VG_(malloc)("mr.exe", VG_(strlen)(VG_(libdir)) + 32);
    VG_(sprintf)(exe, "%s/memrec-encoder", VG_(libdir));
    VG_(sprintf)(level, "%d", mr_clo.compress_level);
    VG_(sprintf)(layout, "%u:%u", RING_SLOTS, slot_words);
    argv[0] = exe;
    argv[1] = path;
    argv[2] = level;
    argv[3] = layout;
    argv[4] = NULL;

    /* Flags 0: a copy of this process like fork(), exit signal none. */
    SysRes r = VG_(do_syscall)(__NR_clone, 0, 0, 0, 0, 0, 0, 0, 0);
    if (sr_isError(r)) {
        VG_(free)(exe);
        return -1;
    }
    if (sr_Res(r) == 0) {
        Int encoder = VG_(fork)();
        if (encoder == 0) {
            VG_(close)(data[1]);        /* else the encoder never sees EOF */
            VG_(close)(status[0]);
            VG_(dup2)(data[0], 0);
            VG_(dup2)(status[1], 1);
            VG_(dup2)(ring_fd, RING_FD);
            VG_(execv)(exe, argv);
            VG_(write)(1, "cannot run the encoder\n", 23);
            VG_(exit)(127);
        }
        vki_sigset_t all;
        VG_(sigfillset)(&all);
        VG_(sigprocmask)(VKI_SIG_SETMASK, &all, NULL);
        close_all_fds();
        Int st;
        while (encoder > 0 && VG_(waitpid)(encoder, &st, 0) == -VKI_EINTR)
            ;
        VG_(exit)(0);
    }
    VG_(free)(exe);
    return (Int)sr_Res(r);
}

/* wait4(pid, options) without rusage: the pid reaped, 0 or -errno. */
static Long wait_child(Int pid, UInt options)
{
    Int st;
    SysRes r = VG_(do_syscall)(__NR_wait4, (UWord)(Word)pid, (UWord)&st, options, 0, 0, 0, 0, 0);
    return sr_isError(r) ? -(Long)sr_Err(r) : (Long)sr_Res(r);
}

/* Waits for the encoder's keeper to exit (just after the encoder) and
 * reaps it. With earlier, at the end of the recording, also reaps without
 * waiting any earlier keeper that has exited: after an exec, that of the
 * program before it is our child too (it ends when its pipe closes). */
static void reap_encoders(Bool earlier)
{
    if (keeper_pid > 0) {
        while (wait_child(keeper_pid, __VKI_WCLONE) == -VKI_EINTR)
            ;
    }
    keeper_pid = 0;
    while (earlier && wait_child(-1, __VKI_WCLONE | VKI_WNOHANG) > 0)
        ;
}

/* The words per slot for a new ring. The kernel applies the file size limit
 * (RLIMIT_FSIZE, `ulimit -f`) to a memfd as to a file on disk: a ring
 * larger than the limit made ftruncate fail with EFBIG and raise SIGXFSZ,
 * whose default action killed Valgrind before the program ran. Lifting the
 * limit is no way out (bash's `ulimit -f` sets the hard limit too, and
 * raising that needs CAP_SYS_RESOURCE, which containers lack), so the ring
 * shrinks to fit: smaller slots only mean more messages. 0 when even slots
 * of MIN_SLOT_WORDS (a 512 KiB ring) do not fit. */
static UInt slot_words_for_limit(void)
{
    struct vki_rlimit lim;
    if (VG_(getrlimit)(RLIMIT_FSIZE_, &lim) != 0 || lim.rlim_cur == VKI_RLIM_INFINITY)
        return SLOT_WORDS;
    ULong fit = lim.rlim_cur / (RING_SLOTS * sizeof(ULong)) & ~511ULL;   /* 4 KiB steps */
    return fit >= SLOT_WORDS ? SLOT_WORDS : fit >= MIN_SLOT_WORDS ? (UInt)fit : 0;
}

/* A new ring: a memfd of RING_SLOTS slots mapped here; returns its
 * descriptor, or -1 with *why saying what failed. */
static Int new_ring(const HChar **why)
{
    UInt words = slot_words_for_limit();
    if (words == 0) {
        *why = "the file size limit (ulimit -f) is below the 512 KiB that the ring "
               "shared with the encoder needs\n";
        return -1;
    }
    *why = "cannot create the shared ring\n";
    slot_words = words;     /* the scratch slot, in use until the ring is, has room */
    ring_bytes = (SizeT)RING_SLOTS * slot_words * sizeof(ULong);
    SysRes r = VG_(do_syscall)(__NR_memfd_create, (UWord)"memrec-ring", 0, 0, 0, 0, 0, 0, 0);
    if (sr_isError(r))
        return -1;
    Int fd = (Int)sr_Res(r);
    r = VG_(do_syscall)(__NR_ftruncate, fd, ring_bytes, 0, 0, 0, 0, 0, 0);
    if (!sr_isError(r))
        r = VG_(am_shared_mmap_file_float_valgrind)(ring_bytes,
                                                   VKI_PROT_READ | VKI_PROT_WRITE, fd, 0);
    if (sr_isError(r)) {
        VG_(close)(fd);
        return -1;
    }
    ring = (ULong *)sr_Res(r);
    slot = 0;
    for (UInt i = 0; i < RING_SLOTS; i++)
        busy[i] = False;
    return fd;
}

/* Starts an encoder writing to path; returns NULL or the error message. */
static HChar *start_encoder(const HChar *path)
{
    Int data[2], status[2];
    const HChar *why;
    Int ring_fd = new_ring(&why);
    if (ring_fd < 0)
        return (HChar *)why;
    if (VG_(pipe)(data) < 0) {
        VG_(close)(ring_fd);
        return (HChar *)"cannot create a pipe\n";
    }
    if (VG_(pipe)(status) < 0) {
        VG_(close)(ring_fd);
        VG_(close)(data[0]);
        VG_(close)(data[1]);
        return (HChar *)"cannot create a pipe\n";
    }
    keeper_pid = spawn_encoder(path, data, status, ring_fd);
    Int failed = keeper_pid < 0;
    VG_(close)(ring_fd);                /* the mapping stays */
    VG_(close)(data[0]);
    VG_(close)(status[1]);
    data_fd = VG_(safe_fd)(data[1]);
    status_fd = VG_(safe_fd)(status[0]);
    if (failed)
        return (HChar *)"cannot fork the encoder\n";
    HChar *err = read_status();
    if (err) {
        close_fd(&data_fd);
        close_fd(&status_fd);
        reap_encoders(False);
        return err;
    }
    use_slot(ring);
    return NULL;
}

/* The output path: the option with %p and %q{VAR} expanded. When the name
 * holds %p and the file exists already, this process is a program exec'd by
 * a recorded one (same pid): ".1", ".2", ... keeps both traces. */
static HChar *choose_path(void)
{
    HChar *path = VG_(expand_file_name)("--memrec-out-file", mr_clo.out_file);
    struct vg_stat st;
    if (!VG_(strstr)(mr_clo.out_file, "%p") || sr_isError(VG_(stat)(path, &st)))
        return path;
    HChar *alt = VG_(malloc)("mr.path", VG_(strlen)(path) + 16);
    for (UInt i = 1;; i++) {
        VG_(sprintf)(alt, "%s.%u", path, i);
        if (sr_isError(VG_(stat)(alt, &st)))
            break;
    }
    VG_(free)(path);
    return alt;
}

void mr_stream_start(void)
{
    trace_path = choose_path();
    HChar *err = start_encoder(trace_path);
    if (err) {
        VG_(fmsg)("memrec: %s", err);
        VG_(exit)(1);
    }
    alive = True;
}

void mr_stream_restart_in_child(void)
{
    /* The ring is shared with the parent's encoder: leave it alone. It is
     * the parent's child, not ours. */
    keeper_pid = 0;
    close_fd(&data_fd);
    close_fd(&status_fd);
    if (ring)
        VG_(am_munmap_valgrind)((Addr)ring, ring_bytes);
    ring = NULL;
    use_slot(scratch);
    side_used = 0;
    Bool was_collecting = collecting;
    collecting = True;
    alive = False;
    reported = False;
    trace_path = choose_path();
    HChar *err = start_encoder(trace_path);
    if (err) {
        VG_(umsg)("memrec: child %d: %s", VG_(getpid)(), err);
        reported = True;
        return;
    }
    alive = True;
    replay_defs(True);
    mr_process_send_record();
    replay_defs(False);
    mr_process_forget_thread();
    if (!was_collecting)
        mr_stream_set_collect(False);
}

void mr_stream_finish(UInt reason, Int status, Int signal)
{
    ULong end[2] = { (ULong)(Long)status, (ULong)(Long)signal };
    if (!collecting)
        mr_stream_set_collect(True);
    mr_emit(WIRE_END, reason, end, 2);
    if (alive)
        send_slot();
    close_fd(&data_fd);
    alive = False;
    if (status_fd >= 0) {
        /* The encoder holds its stdout open until the trace is complete. */
        UChar c;
        Int r;
        do
            r = VG_(read)(status_fd, &c, 1);
        while (r > 0 || r == -VKI_EINTR);
        close_fd(&status_fd);
    }
    reap_encoders(True);
}
