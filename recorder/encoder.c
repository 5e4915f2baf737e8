/*
 * encoder.c: memrec-encoder, the process that writes memrec's traces.
 *
 *   memrec-encoder OUTPUT LEVEL SLOTS:WORDS   (started by the memrec tool)
 *
 * Descriptor 3 is the ring shared with the tool (SLOTS slots of WORDS
 * 64-bit words). stdin carries one 8-byte message per filled slot
 * (slot | words << 8); the slot holds whole records of the raw stream
 * (recorder/wire.h). Every record becomes a call of the trace library's
 * writer, which does the encoding and zstd compression here, on another
 * core than the instrumented program; then one byte (the slot's number) on
 * stdout gives the slot back. stdout first carries one status line ("ok"
 * once OUTPUT is open, else the reason) and stays open until the trace is
 * complete, so the tool can wait for it.
 *
 * The encoder shares the recorded program's process group, so it ignores
 * the signals a terminal or a timeout sends to the group and finishes when
 * stdin ends: after the tool's end record with a complete trace; without
 * one (the program was SIGKILLed) with reason MR_END_LOST.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "encoder.h"
#include "memrec_trace.h"
#include "wire.h"

/* The encoder's whole state. */
typedef struct encoder {
    mr_writer *w;
    const char *path;
    int failed;                  /* the writer failed: drain stdin, write nothing */
    int exec_pending;            /* the last record was WIRE_EXEC_CALL */
    int ended;                   /* the end record was written */
    char **strings;              /* by id; [0] is NULL */
    size_t nstrings;
} encoder;

static void die_oom(void)
{
    fputs("memrec-encoder: out of memory\n", stderr);
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die_oom();
    return p;
}

/* The writer failed (disk full, file size limit...): say it once, in the
 * one line the user sees about it, and keep draining stdin so the program
 * is never blocked nor killed by a broken pipe. The writer's first failure
 * sticks, so the file keeps every chunk written before it: a truncated
 * trace, readable up to there. */
static void writer_failed(encoder *e, const char *what)
{
    if (!e->failed)
        fprintf(stderr, "memrec: %s: %s; the trace is cut short\n",
                e->path, what ? what : "write failed");
    e->failed = 1;
}

static void check(encoder *e, int rc)
{
    if (rc < 0)
        writer_failed(e, mr_writer_error(e->w));
}

_Static_assert(WIRE_MAX_STRING <= 1u << 20, "format/SPEC.md section 9: a string is at most 1 MiB");

static const char *string(const encoder *e, uint64_t id)
{
    return id < e->nstrings ? e->strings[id] : NULL;
}

static void on_string(encoder *e, uint32_t id, const uint64_t *p, uint32_t n)
{
    if (id >= e->nstrings) {
        size_t cap = id + 1 > 2 * e->nstrings ? id + 1 : 2 * e->nstrings;
        e->strings = xrealloc(e->strings, cap * sizeof *e->strings);
        memset(e->strings + e->nstrings, 0, (cap - e->nstrings) * sizeof *e->strings);
        e->nstrings = cap;
    }
    free(e->strings[id]);
    /* The tool sends at most WIRE_MAX_STRING bytes; taking no more keeps
     * every string the writer gets from the tool within the format's 1 MiB. */
    e->strings[id] = strndup((const char *)p, n * 8 < WIRE_MAX_STRING ? n * 8 : WIRE_MAX_STRING);
    if (!e->strings[id])
        die_oom();
}

static void on_process(encoder *e, const uint64_t *p, uint32_t n)
{
    if (n < 6 || p[5] > n - 6) {
        writer_failed(e, "bad process record from the tool");
        return;
    }
    uint32_t argc = (uint32_t)p[5];
    const char **argv = xrealloc(NULL, (argc + 1) * sizeof *argv);
    for (uint32_t i = 0; i < argc; i++)
        argv[i] = string(e, p[6 + i]) ? string(e, p[6 + i]) : "";
    argv[argc] = NULL;
    mr_process proc = {
        .pid = (uint32_t)p[0], .ppid = (uint32_t)p[1], .start_usec = p[2],
        .exe = string(e, p[3]), .argc = argc, .argv = argv,
        .tool_options = string(e, p[4]),
    };
    check(e, mr_write_process(e->w, &proc));
    free(argv);
}

static void on_module(encoder *e, uint32_t id, const uint64_t *p, uint32_t n)
{
    if (n < 5)
        return;
    mr_module m = { .id = id, .path = string(e, p[3]), .text_addr = p[0],
                    .text_size = p[1], .bias = (int64_t)p[2] };
    check(e, mr_write_module(e->w, &m));
    if (m.path && (p[4] & WIRE_MODULE_DATA) && !e->failed)
        check(e, encoder_write_dataobjs(e->w, &m));
}

static void on_symbol(encoder *e, const uint64_t *p, uint32_t n)
{
    if (n < 3)
        return;
    mr_symbol s = { .addr = p[0], .function = string(e, p[1]),
                    .file = string(e, p[2] & 0xffffffffu), .line = (uint32_t)(p[2] >> 32) };
    check(e, mr_write_symbol(e->w, &s));
}

/* A block definition: the writer keeps its own copy, and decodes the
 * block's executions with it (mr_write_execs). */
static void on_block_def(encoder *e, uint32_t id, const uint64_t *p, uint32_t n)
{
    if (n < 4 || p[1] + p[2] + p[3] != n - 4 || p[3] == 0) {
        writer_failed(e, "bad block definition from the tool");
        return;
    }
    uint32_t ni = (uint32_t)p[1], na = (uint32_t)p[2], ne = (uint32_t)p[3];
    mr_instr_def *instrs = xrealloc(NULL, ni * sizeof *instrs);
    mr_access_def *accesses = xrealloc(NULL, na * sizeof *accesses);
    mr_exit_def *exits = xrealloc(NULL, ne * sizeof *exits);
    const uint64_t *q = p + 4;
    for (uint32_t i = 0; i < ni; i++, q++)
        instrs[i] = (mr_instr_def){ .addr = *q >> 8, .len = (uint32_t)(*q & 0xff) };
    for (uint32_t i = 0; i < na; i++, q++)
        accesses[i] = (mr_access_def){ .instr = (uint16_t)(*q & 0xffff),
                                       .kind = (uint8_t)(*q >> 16),
                                       .flags = (uint8_t)(*q >> 24),
                                       .size = (uint32_t)(*q >> 32) };
    for (uint32_t i = 0; i < ne; i++, q++)
        exits[i] = (mr_exit_def){ .ninstrs = (uint32_t)(*q & 0xffffff),
                                  .naccesses = (uint32_t)((*q >> 24) & 0xffffff),
                                  .jump = (uint8_t)(*q >> 48) };
    mr_block_def def = { .id = id, .addr = p[0], .ninstrs = ni, .instrs = instrs,
                         .naccesses = na, .accesses = accesses, .nexits = ne, .exits = exits };
    check(e, mr_write_block_def(e->w, &def));
    free(instrs);
    free(accesses);
    free(exits);
}

static void on_stack(encoder *e, uint32_t id, const uint64_t *p, uint32_t n)
{
    mr_stack s = { .id = id, .depth = n, .ips = p };
    check(e, mr_write_stack(e->w, &s));
}

static void on_heap(encoder *e, uint32_t op, const uint64_t *p, uint32_t n)
{
    if (n < 5)
        return;
    mr_heap h = { .op = (uint8_t)op, .addr = p[0], .size = p[1], .count = p[2],
                  .old_addr = p[3], .stack = (uint32_t)p[4] };
    check(e, mr_write_heap(e->w, &h));
}

static void on_thread(encoder *e, uint32_t op, const uint64_t *p, uint32_t n)
{
    if (n < 2)
        return;
    if (op == MR_THREAD_SWITCH)
        check(e, mr_write_thread_switch(e->w, (uint32_t)p[0]));
    else if (op == MR_THREAD_CREATE)
        check(e, mr_write_thread_create(e->w, (uint32_t)p[1], (uint32_t)p[0]));
    else if (op == MR_THREAD_EXIT)
        check(e, mr_write_thread_exit(e->w, (uint32_t)p[0]));
}

static void finish(encoder *e, const mr_end *end)
{
    char *err = NULL;
    if (mr_writer_close(e->w, end, &err) < 0)
        writer_failed(e, err ? err : "close failed");   /* the last chunks did not fit */
    mr_free_error(err);
    e->w = NULL;
    e->ended = 1;
}

static void on_end(encoder *e, uint32_t reason, const uint64_t *p, uint32_t n)
{
    mr_end end;
    memset(&end, 0, sizeof end);
    end.reason = (uint8_t)reason;
    end.status = n > 0 ? (int32_t)p[0] : 0;
    end.signal = n > 1 ? (int32_t)p[1] : 0;
    finish(e, &end);
}

/* The block executions at p (n words left in the slot), as many as come
 * back to back: the writer takes them in one call. Returns the words they
 * take, or 0 when the stream makes no sense any more. */
static size_t on_execs(encoder *e, const uint64_t *p, size_t n)
{
    size_t used = 0;
    if (mr_write_execs(e->w, p, n, WIRE_EXEC, &used) < 0) {
        writer_failed(e, mr_writer_error(e->w));
        return 0;
    }
    return used;
}

/* One generic record at p; like on_execs. */
static size_t on_record(encoder *e, const uint64_t *rec, size_t avail)
{
    uint64_t header = rec[0];
    uint32_t tag = header & 0xff, n = (uint32_t)((header >> 8) & 0xffffff);
    uint32_t aux = (uint32_t)(header >> 32);
    if (1 + (size_t)n > avail) {
        writer_failed(e, "a record cut short by the tool");
        return 0;
    }
    const uint64_t *p = rec + 1;
    e->exec_pending = tag == WIRE_EXEC_CALL;
    if (tag == WIRE_STRING) {
        on_string(e, aux, p, n);
        return 1 + (size_t)n;
    }
    if (e->failed || e->ended)
        return 1 + (size_t)n;
    switch (tag) {
    case WIRE_PROCESS: on_process(e, p, n); break;
    case WIRE_MODULE: on_module(e, aux, p, n); break;
    case WIRE_SYMBOL: on_symbol(e, p, n); break;
    case WIRE_BLOCK_DEF: on_block_def(e, aux, p, n); break;
    case WIRE_STACK: on_stack(e, aux, p, n); break;
    case WIRE_HEAP: on_heap(e, aux, p, n); break;
    case WIRE_THREAD: on_thread(e, aux, p, n); break;
    case WIRE_MARK: check(e, mr_write_mark(e->w, string(e, p[0]) ? string(e, p[0]) : "")); break;
    case WIRE_COLLECT: check(e, mr_write_collect(e->w, aux != 0)); break;
    case WIRE_THREAD_OS:
        if (n >= 2)
            check(e, mr_write_thread_os(e->w, (uint32_t)p[0], p[1]));
        break;
    case WIRE_EXEC_CALL: case WIRE_EXEC_FAIL: break;
    case WIRE_END: on_end(e, aux, p, n); break;
    default:
        writer_failed(e, "unknown record from the tool");
        return 0;
    }
    return 1 + (size_t)n;
}

/* The records of one slot. */
static void process_slot(encoder *e, const uint64_t *w, size_t n)
{
    size_t pos = 0;
    while (pos < n && !e->ended && !e->failed) {
        size_t used = (w[pos] & 0xff) == WIRE_EXEC ? on_execs(e, w + pos, n - pos)
                                                   : on_record(e, w + pos, n - pos);
        if (used == 0)
            return;
        pos += used;
    }
}

/* Reads exactly n bytes from stdin; 0 at end of input. */
static int read_full(void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(0, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        got += (size_t)r;
    }
    return 1;
}

/* MEMREC_ENCODER_RAW names a file that gets every slot as it came
 * (a u64 word count, then the words): the raw stream of a recording, which
 * --replay encodes again without Valgrind, for measuring the encoder. */
static FILE *raw_copy;

static void copy_slot(const uint64_t *w, uint64_t n)
{
    if (raw_copy && (fwrite(&n, 8, 1, raw_copy) != 1 || fwrite(w, 8, n, raw_copy) != n)) {
        fclose(raw_copy);
        raw_copy = NULL;
    }
}

static void run(encoder *e, const uint64_t *ring, uint32_t slots, uint32_t words)
{
    uint64_t msg;
    while (read_full(&msg, sizeof msg)) {
        uint32_t slot = (uint32_t)(msg & 0xff);
        uint64_t n = msg >> 8;
        if (slot >= slots || n > words) {
            writer_failed(e, "bad message from the tool");
            continue;
        }
        copy_slot(ring + (size_t)slot * words, n);
        if (!e->ended)
            process_slot(e, ring + (size_t)slot * words, n);
        unsigned char done = (unsigned char)slot;
        if (write(1, &done, 1) != 1)
            break;
    }
    if (!e->ended) {
        mr_end end;
        memset(&end, 0, sizeof end);
        end.reason = MR_END_EXEC;
        finish(e, e->exec_pending ? &end : NULL);
    }
}

/* For the benchmark: the encoder's max RSS (KiB) and CPU seconds (user,
 * system) into the file named by MEMREC_ENCODER_RUSAGE, since it is not a
 * child the shell can measure. */
static void report_rusage(void)
{
    const char *path = getenv("MEMREC_ENCODER_RUSAGE");
    struct rusage ru;
    if (!path || getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld %.3f %.3f\n", ru.ru_maxrss,
                ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
                ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
        fclose(f);
    }
}

/* How many threads model the executions (mr_writer_options.workers):
 * with 3 cores or more, one per core but the one the recorded program
 * runs on, at most 3: the front that walks the headers and the one
 * compression thread each take about half of what one modelling thread
 * did, so more workers would wait for them. With 2 cores or 1, none (the
 * sequential writer): parallel modelling adds a walk over every
 * execution's header and a copy of the raw stream (about a fifth more
 * CPU: sqlite3 7.7 against 6.2 CPU s, gzip 4.7 against 3.6), which two
 * cores pay in wall time whatever the load (recorder/README.md).
 * MEMREC_ENCODER_WORKERS sets the number (0: the sequential writer). The
 * trace is the same for any number >= 1. */
static int modelling_workers(void)
{
    const char *env = getenv("MEMREC_ENCODER_WORKERS");
    if (env && *env)
        return atoi(env);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 3 ? 0 : n > 4 ? 3 : (int)n - 1;
}

/* The writer's chunk size: the default, or MEMREC_ENCODER_CHUNK_BYTES
 * (tests: a small recording then makes many chunks and pieces). */
static size_t chunk_bytes(void)
{
    const char *env = getenv("MEMREC_ENCODER_CHUNK_BYTES");
    return env && *env ? (size_t)strtoull(env, NULL, 10) : 0;
}

/* memrec-encoder --replay RAW OUTPUT LEVEL: encodes a raw stream saved
 * through MEMREC_ENCODER_RAW; prints the CPU seconds it took. */
static int replay(const char *raw, const char *out, int level)
{
    FILE *f = fopen(raw, "rb");
    if (!f) {
        fprintf(stderr, "memrec-encoder: %s: %s\n", raw, strerror(errno));
        return 1;
    }
    encoder e;
    memset(&e, 0, sizeof e);
    e.path = out;
    mr_writer_options opts = { .level = level, .chunk_bytes = chunk_bytes(), .background = 1,
                               .workers = modelling_workers() };
    char *err = NULL;
    if (!(e.w = mr_writer_open(out, &opts, &err))) {
        fprintf(stderr, "memrec-encoder: %s: %s\n", out, err ? err : "cannot write");
        return 1;
    }
    uint64_t n, cap = 0, *buf = NULL;
    while (!e.ended && fread(&n, 8, 1, f) == 1) {
        if (n > cap)
            buf = xrealloc(buf, (cap = n) * 8);
        if (fread(buf, 8, n, f) != n)
            break;
        process_slot(&e, buf, n);
    }
    if (!e.ended)
        finish(&e, NULL);
    free(buf);
    fclose(f);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%.3f CPU seconds\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                                  ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    return e.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    unsigned slots = 0, words = 0;
    if (argc == 5 && !strcmp(argv[1], "--replay"))
        return replay(argv[2], argv[3], atoi(argv[4]));
    if (argc != 4 || sscanf(argv[3], "%u:%u", &slots, &words) != 2 || slots == 0 ||
        slots > 256 || words == 0) {
        fputs("usage: memrec-encoder OUTPUT LEVEL SLOTS:WORDS (started by valgrind --tool=memrec)\n",
              stderr);
        return 2;
    }
    size_t ring_bytes = (size_t)slots * words * 8;
    const uint64_t *ring = mmap(NULL, ring_bytes, PROT_READ, MAP_SHARED, 3, 0);
    if (ring == MAP_FAILED) {
        dprintf(1, "cannot map the ring shared with the tool: %s\n", strerror(errno));
        return 1;
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);       /* a file size limit: write() then fails */
    /* Descriptors inherited from the recorded program are not ours. */
    for (int fd = 4; fd < 1024; fd++)
        close(fd);

    encoder e;
    memset(&e, 0, sizeof e);
    e.path = argv[1];
    /* Chunks are compressed and written on a thread of their own (and
     * executions modelled on several, with 3 cores or more), on the cores
     * the recorded program leaves free while it waits for us. */
    mr_writer_options opts = { .level = atoi(argv[2]), .chunk_bytes = chunk_bytes(), .background = 1,
                               .workers = modelling_workers() };
    char *err = NULL;
    e.w = mr_writer_open(e.path, &opts, &err);
    if (!e.w) {
        dprintf(1, "cannot write %s: %s\n", e.path, err ? err : "failed");
        return 1;
    }
    if (write(1, WIRE_STATUS_OK, strlen(WIRE_STATUS_OK)) < 0)
        return 1;
    if (getenv("MEMREC_ENCODER_RAW"))
        raw_copy = fopen(getenv("MEMREC_ENCODER_RAW"), "wb");
    run(&e, ring, slots, words);
    if (raw_copy)
        fclose(raw_copy);
    report_rusage();
    return e.failed ? 1 : 0;
}
