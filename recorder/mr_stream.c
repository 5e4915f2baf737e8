/*
 * mr_stream.c: the buffer of raw words, the pipe to the encoder, and the
 * encoder's life (start, restart after fork, finish).
 *
 * Instrumented blocks append words at mr_cursor (inline IR, no call); a
 * block that might not fit calls mr_stream_flush_full() first. Everything
 * else goes through mr_emit(). Valgrind runs one thread at a time and never
 * switches threads inside a block, so one buffer serves all threads.
 */
#include "mr_tool.h"
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
 * descriptor out of the client's range (and sets close-on-exec), fcntl,
 * and a non-blocking sigtimedwait to drop a SIGPIPE our own write caused. */
extern Int VG_(safe_fd)(Int oldfd);
extern Int VG_(fcntl)(Int fd, Int cmd, Addr arg);
extern Int VG_(sigtimedwait_zero)(const vki_sigset_t *set, vki_siginfo_t *info);
extern Int VG_(sigemptyset)(vki_sigset_t *set);
extern Int VG_(sigaddset)(vki_sigset_t *set, Int signum);

#define BUF_WORDS   (1u << 19)     /* 4 MiB: one write() per 4 MiB of trace */
#define SIDE_WORDS  (1u << 14)     /* records sent while collection is off */
#define PIPE_BYTES  (1 << 20)      /* asked-for pipe capacity */
#define F_SETPIPE_SZ_CMD 1031      /* Linux F_SETPIPE_SZ */

ULong *mr_cursor;
ULong *mr_buf_start;
ULong *mr_buf_end;

/* While collection is off, blocks still append to the buffer (the inline IR
 * does not test a flag) but the buffer is dropped instead of written; other
 * records wait in this side buffer, so their order is kept. */
static ULong *side_buf;
static UInt side_used;
static Bool collecting = True;

/* Every definition record ever sent, to send again to a forked child's new
 * encoder: its trace must define the blocks the child goes on running. */
static ULong *def_log;
static SizeT def_log_used, def_log_size;

static Int data_fd = -1;        /* write end of the data pipe */
static Int status_fd = -1;      /* read end of the encoder's status pipe */
static Bool alive;              /* records are being sent */
static Bool reported;           /* the failure was reported once */
static HChar *trace_path;       /* the expanded output path */

void mr_stream_init(void)
{
    mr_buf_start = VG_(malloc)("mr.buf", BUF_WORDS * sizeof(ULong));
    mr_buf_end = mr_buf_start + BUF_WORDS;
    mr_cursor = mr_buf_start;
    side_buf = VG_(malloc)("mr.side", SIDE_WORDS * sizeof(ULong));
}

Bool mr_stream_alive(void)
{
    return alive;
}

/* Stops sending after a failure, saying so once. */
static void give_up(const HChar *why)
{
    if (!reported)
        VG_(umsg)("memrec: %s: %s; recording stops, the program goes on\n",
                  trace_path ? trace_path : "trace", why);
    reported = True;
    alive = False;
    if (data_fd >= 0)
        VG_(close)(data_fd);
    data_fd = -1;
}

/* write() all of [p, p+n), retrying short writes. */
static void write_all(const void *p, SizeT n)
{
    const UChar *b = p;
    while (alive && n > 0) {
        Int chunk = n > (1 << 30) ? (1 << 30) : (Int)n;
        Int r = VG_(write)(data_fd, b, chunk);
        if (r == -VKI_EINTR)
            continue;
        if (r <= 0) {
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
        b += r;
        n -= (SizeT)r;
    }
}

static void flush_side(void)
{
    write_all(side_buf, side_used * sizeof(ULong));
    side_used = 0;
}

void mr_stream_flush(void)
{
    if (collecting)
        write_all(mr_buf_start, (SizeT)(mr_cursor - mr_buf_start) * sizeof(ULong));
    mr_cursor = mr_buf_start;
    flush_side();
}

VG_REGPARM(0) void mr_stream_flush_full(void)
{
    mr_stream_flush();
}

/* Appends n words where records go now: the buffer, or the side buffer
 * while collection is off. */
static void append(const ULong *w, UInt n)
{
    if (collecting) {
        if ((SizeT)(mr_buf_end - mr_cursor) < n)
            mr_stream_flush();
        if ((SizeT)(mr_buf_end - mr_cursor) < n) {   /* bigger than the buffer */
            write_all(w, (SizeT)n * sizeof(ULong));
            return;
        }
        VG_(memcpy)(mr_cursor, w, (SizeT)n * sizeof(ULong));
        mr_cursor += n;
    } else {
        if (SIDE_WORDS - side_used < n)
            flush_side();
        if (SIDE_WORDS - side_used < n) {
            write_all(w, (SizeT)n * sizeof(ULong));
            return;
        }
        VG_(memcpy)(side_buf + side_used, w, (SizeT)n * sizeof(ULong));
        side_used += n;
    }
}

void mr_emit(UInt tag, UInt aux, const ULong *payload, UInt nwords)
{
    ULong header = WIRE_HEADER(tag, nwords, aux);
    append(&header, 1);
    if (nwords)
        append(payload, nwords);
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
        flush_side();
        collecting = True;
        mr_emit(WIRE_COLLECT, 1, NULL, 0);
    } else {
        mr_emit(WIRE_COLLECT, 0, NULL, 0);
        mr_stream_flush();
        collecting = False;
    }
}

/* ---- the encoder process ---- */

static void close_fd(Int *fd)
{
    if (*fd >= 0)
        VG_(close)(*fd);
    *fd = -1;
}

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

/* Forks twice so that the encoder is not the client's child (a client's
 * wait() must never reap it); the middle process is reaped at once. */
static Int spawn_encoder(const HChar *path, Int data_rd, Int data_wr, Int status_rd,
                         Int status_wr)
{
    HChar level[16];
    const HChar *argv[4];
    HChar *exe = VG_(malloc)("mr.exe", VG_(strlen)(VG_(libdir)) + 32);
    VG_(sprintf)(exe, "%s/memrec-encoder", VG_(libdir));
    VG_(sprintf)(level, "%d", mr_clo.compress_level);
    argv[0] = exe;
    argv[1] = path;
    argv[2] = level;
    argv[3] = NULL;

    Int middle = VG_(fork)();
    if (middle < 0)
        return -1;
    if (middle == 0) {
        if (VG_(fork)() == 0) {
            VG_(close)(data_wr);        /* else the encoder never sees EOF */
            VG_(close)(status_rd);
            VG_(dup2)(data_rd, 0);
            VG_(dup2)(status_wr, 1);
            VG_(execv)(exe, argv);
            VG_(write)(1, "cannot run the encoder\n", 23);
            VG_(exit)(127);
        }
        VG_(exit)(0);
    }
    Int st;
    while (VG_(waitpid)(middle, &st, 0) == -VKI_EINTR)
        ;
    VG_(free)(exe);
    return 0;
}

/* Starts an encoder writing to path; returns NULL or the error message. */
static HChar *start_encoder(const HChar *path)
{
    Int data[2], status[2];
    if (VG_(pipe)(data) < 0)
        return (HChar *)"cannot create a pipe\n";
    if (VG_(pipe)(status) < 0) {
        VG_(close)(data[0]);
        VG_(close)(data[1]);
        return (HChar *)"cannot create a pipe\n";
    }
    Int failed = spawn_encoder(path, data[0], data[1], status[0], status[1]);
    VG_(close)(data[0]);
    VG_(close)(status[1]);
    data_fd = VG_(safe_fd)(data[1]);
    status_fd = VG_(safe_fd)(status[0]);
    if (failed)
        return (HChar *)"cannot fork the encoder\n";
    VG_(fcntl)(data_fd, F_SETPIPE_SZ_CMD, PIPE_BYTES);
    HChar *err = read_status();
    if (err) {
        close_fd(&data_fd);
        close_fd(&status_fd);
    }
    return err;
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

void mr_stream_start(const HChar *unused)
{
    (void)unused;
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
    close_fd(&data_fd);
    close_fd(&status_fd);
    mr_cursor = mr_buf_start;          /* the parent's data is the parent's */
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
    mr_process_send_record();
    append(def_log, (UInt)def_log_used);
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
    mr_stream_flush();
    close_fd(&data_fd);
    alive = False;
    if (status_fd >= 0) {
        /* The encoder holds its stdout open until the trace is complete. */
        HChar c;
        Int r;
        do
            r = VG_(read)(status_fd, &c, 1);
        while (r > 0 || r == -VKI_EINTR);
        close_fd(&status_fd);
    }
}
