/*
 * bench_format: speed and size of the trace format on synthetic streams,
 * against the targets of issue 2.
 *
 *   bench_format [--accesses=N] [--runs=R] [--dir=DIR] [STREAM...]
 *
 * For each stream (default: sequential strided random chase) of N memory
 * accesses (default 20 million) it measures, as medians of R runs
 * (default 3):
 *   encode   accesses per second through mr_write_* (the generator's own
 *            time included; the "gen" column is the generator alone)
 *   decode   accesses per second of mr_next over the whole file, one core
 *   size     trace bytes per memory access
 *   plain    the same accesses as plain 16-byte records (u64 address, u32
 *            instruction id, u16 size, u16 kind) compressed by `zstd -3`:
 *            bytes per access, and how many times smaller the trace is
 * It prints one table, then one line per target with PASS or FAIL. It
 * exits 0 when the targets fail (it reports) and 1 when something breaks:
 * a write or read error, a trace that does not hold the accesses written,
 * zstd missing or failing.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memrec_trace.h"
#include "synth/synth.h"

/* The targets of issue 2. */
#define TARGET_DECODE_PER_SEC 100e6   /* accesses decoded per second */
#define TARGET_STRIDED_BYTES 0.1      /* bytes per access, strided stream */
#define TARGET_PLAIN_RATIO 5.0        /* times smaller than zstd -3 plain */

#define MAX_RUNS 15
#define MAX_STREAMS 8

/* One stream's measurements. */
typedef struct result {
    synth_pattern pattern;
    uint64_t accesses;
    double gen_rate;          /* generator alone, accesses/s (median) */
    double encode_rate;       /* accesses/s (median) */
    double decode_rate;       /* accesses/s (median) */
    double decode_wall_rate;  /* the same by the wall clock */
    uint64_t trace_bytes;
    uint64_t plain_bytes;     /* zstd -3 of the 16-byte records */
} result;

/* The settings of this run. */
typedef struct config {
    uint64_t accesses;
    int runs;
    const char *dir;
    int nstreams;
    synth_pattern streams[MAX_STREAMS];
} config;

static const char *prog = "bench_format";

/* The private working directory, removed with whatever is left in it when
 * the program ends, however it ends (atexit). */
static char workdir[1024];

static void remove_workdir(void)
{
    char path[1200];
    if (!workdir[0])
        return;
    for (int p = 0; p < SYNTH_NPATTERNS; p++) {
        snprintf(path, sizeof path, "%s/%s.mrt", workdir, synth_pattern_name(p));
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/plain.zst", workdir);
    unlink(path);
    rmdir(workdir);
}

/* Something broke: say what and exit 1. */
static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

/* Elapsed time of a job: rates come from the CPU time of this process
 * (one core: neither the writer nor the reader starts threads), because
 * the machine is shared and the wall clock counts time given to others;
 * the wall clock is shown beside the decode rate. */
typedef struct elapsed {
    double cpu, wall;
} elapsed;

static elapsed clock_now(void)
{
    struct timespec cpu, wall;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    clock_gettime(CLOCK_MONOTONIC, &wall);
    elapsed e = {cpu.tv_sec + cpu.tv_nsec / 1e9,
                 wall.tv_sec + wall.tv_nsec / 1e9};
    return e;
}

static elapsed clock_since(elapsed t0)
{
    elapsed t = clock_now();
    t.cpu -= t0.cpu;
    t.wall -= t0.wall;
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        die("%s: %s", path, strerror(errno));
    return (uint64_t)st.st_size;
}

/* ---- the three timed jobs ---- */

/* Seconds to run the generator alone. */
static elapsed time_generator(const synth_options *o)
{
    elapsed t0 = clock_now();
    if (synth_write(NULL, o, NULL) < 0)
        die("%s: %s", synth_pattern_name(o->pattern), "generator failed");
    return clock_since(t0);
}

/* Seconds to generate and write the trace to path. */
static elapsed time_encode(const synth_options *o, const char *path)
{
    char *err = NULL;
    elapsed t0 = clock_now();
    if (synth_write_file(path, o, NULL, NULL, &err) < 0)
        die("%s: %s", path, err ? err : "cannot write");
    return clock_since(t0);
}

/* Seconds to read the whole trace with mr_next; checks that it holds
 * exactly the accesses written. */
static elapsed time_decode(const char *path, uint64_t want)
{
    char *err = NULL;
    mr_event ev;
    uint64_t n = 0, sum = 0;
    int rc;
    elapsed t0 = clock_now();
    mr_reader *r = mr_reader_open(path, &err);
    if (!r)
        die("%s: %s", path, err ? err : "cannot open");
    while ((rc = mr_next(r, &ev)) == 1) {
        if (ev.kind != MR_EV_EXEC)
            continue;
        /* Touch every address, as any consumer would. */
        for (uint32_t k = 0; k < ev.u.exec.naccesses; k++)
            sum += ev.u.exec.accesses[k].addr;
        n += ev.u.exec.naccesses;
    }
    elapsed t = clock_since(t0);
    if (rc < 0)
        die("%s: %s", path, mr_reader_error(r));
    mr_reader_close(r);
    if (n != want || sum == 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "read %llu accesses, wrote %llu",
                 (unsigned long long)n, (unsigned long long)want);
        die("%s: %s", path, msg);
    }
    return t;
}

/* ---- the baseline: plain records through zstd -3 ---- */

/* One plain record, as a naive tracer would write it. */
typedef struct __attribute__((packed)) plain_record {
    uint64_t addr;
    uint32_t instr;
    uint16_t size;
    uint16_t kind;
} plain_record;

/* Buffered output of plain records into the zstd pipe. */
typedef struct plain_sink {
    FILE *pipe;
    plain_record buf[4096];
    size_t n;
    int failed;
} plain_sink;

static void plain_flush(plain_sink *s)
{
    if (s->n && fwrite(s->buf, sizeof *s->buf, s->n, s->pipe) != s->n)
        s->failed = 1;
    s->n = 0;
}

static void plain_add(void *ctx, const synth_access *a)
{
    plain_sink *s = ctx;
    plain_record *r = &s->buf[s->n++];
    r->addr = a->addr;
    r->instr = a->instr_id;
    r->size = a->size;
    r->kind = a->kind;
    if (s->n == sizeof s->buf / sizeof *s->buf)
        plain_flush(s);
}

/* Bytes of `zstd -3` of the stream's accesses as plain records. */
static uint64_t plain_zstd_bytes(const synth_options *o, const char *dir)
{
    char path[4096], cmd[4200];
    if (snprintf(path, sizeof path, "%s/plain.zst", dir) >= (int)sizeof path)
        die("%s: %s", dir, "path too long");
    snprintf(cmd, sizeof cmd, "zstd -3 -q -c > '%s'", path);
    plain_sink *s = calloc(1, sizeof *s);
    if (!s)
        die("%s%s", "out of memory", "");
    s->pipe = popen(cmd, "w");
    if (!s->pipe)
        die("cannot run '%s': %s", cmd, strerror(errno));
    synth_options po = *o;
    po.on_access = plain_add;
    po.ctx = s;
    if (synth_write(NULL, &po, NULL) < 0)
        die("%s: %s", synth_pattern_name(o->pattern), "generator failed");
    plain_flush(s);
    int status = pclose(s->pipe);
    if (s->failed || status == -1 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        die("'%s' failed%s (is zstd installed?)", cmd, "");
    free(s);
    uint64_t bytes = file_size(path);
    unlink(path);
    return bytes;
}

/* ---- one stream ---- */

static result measure(const config *c, synth_pattern p)
{
    result r = {.pattern = p, .accesses = c->accesses};
    synth_options o = {.pattern = p, .accesses = c->accesses, .seed = 1};
    char path[4096];
    double gen[MAX_RUNS], enc[MAX_RUNS], dec[MAX_RUNS], wall[MAX_RUNS];
    if (snprintf(path, sizeof path, "%s/%s.mrt", c->dir,
                 synth_pattern_name(p)) >= (int)sizeof path)
        die("%s: %s", c->dir, "path too long");
    for (int i = 0; i < c->runs; i++) {
        gen[i] = c->accesses / time_generator(&o).cpu;
        enc[i] = c->accesses / time_encode(&o, path).cpu;
        elapsed d = time_decode(path, c->accesses);
        dec[i] = c->accesses / d.cpu;
        wall[i] = c->accesses / d.wall;
    }
    r.gen_rate = median(gen, c->runs);
    r.encode_rate = median(enc, c->runs);
    r.decode_rate = median(dec, c->runs);
    r.decode_wall_rate = median(wall, c->runs);
    r.trace_bytes = file_size(path);
    unlink(path);
    r.plain_bytes = plain_zstd_bytes(&o, c->dir);
    return r;
}

/* ---- report ---- */

static double per_access(uint64_t bytes, const result *r)
{
    return r->accesses ? (double)bytes / r->accesses : 0;
}

static void print_table(const result *res, int n, const config *c)
{
    printf("trace format on synthetic streams: %llu accesses each, median "
           "of %d runs, one core\n\n",
           (unsigned long long)c->accesses, c->runs);
    printf("%-11s %8s %8s %8s %8s %11s %9s %9s %8s\n", "stream", "gen",
           "encode", "decode", "(wall)", "trace B", "B/access", "zstd-3",
           "smaller");
    for (int i = 0; i < n; i++) {
        const result *r = &res[i];
        double ours = per_access(r->trace_bytes, r);
        double plain = per_access(r->plain_bytes, r);
        printf("%-11s %8.1f %8.1f %8.1f %8.1f %11llu %9.4f %9.4f %7.1fx\n",
               synth_pattern_name(r->pattern), r->gen_rate / 1e6,
               r->encode_rate / 1e6, r->decode_rate / 1e6,
               r->decode_wall_rate / 1e6,
               (unsigned long long)r->trace_bytes, ours, plain,
               plain / ours);
    }
    printf("\ngen, encode, decode: million accesses per second of CPU time "
           "(the generator alone;\n  generator and writer; mr_next over the "
           "file); (wall): decode by the wall clock\n"
           "B/access: trace bytes per memory access; zstd-3: bytes per access "
           "of the same\n  accesses as plain 16-byte records compressed by "
           "zstd -3; smaller: zstd-3 / B/access\n\n");
}

/* One line per target: PASS or FAIL, with every stream's value. */
static void print_targets(const result *res, int n)
{
    char detail[512];
    size_t len;
    int ok;

    ok = 1, len = 0, detail[0] = 0;
    for (int i = 0; i < n; i++) {
        ok &= res[i].decode_rate >= TARGET_DECODE_PER_SEC;
        len += snprintf(detail + len, sizeof detail - len, "%s%s %.1f",
                        i ? ", " : "", synth_pattern_name(res[i].pattern),
                        res[i].decode_rate / 1e6);
    }
    printf("%s  decode >= %.0f M accesses/s on one core (%s)\n",
           ok ? "PASS" : "FAIL", TARGET_DECODE_PER_SEC / 1e6, detail);

    for (int i = 0; i < n; i++) {
        if (res[i].pattern != SYNTH_STRIDED)
            continue;
        double b = per_access(res[i].trace_bytes, &res[i]);
        printf("%s  strided <= %.1f byte/access (%.4f)\n",
               b <= TARGET_STRIDED_BYTES ? "PASS" : "FAIL",
               TARGET_STRIDED_BYTES, b);
    }

    ok = 1, len = 0, detail[0] = 0;
    for (int i = 0; i < n; i++) {
        double ratio = (double)res[i].plain_bytes / res[i].trace_bytes;
        ok &= ratio >= TARGET_PLAIN_RATIO;
        len += snprintf(detail + len, sizeof detail - len, "%s%s %.1fx",
                        i ? ", " : "", synth_pattern_name(res[i].pattern),
                        ratio);
    }
    printf("%s  every stream >= %.0fx smaller than zstd -3 of plain records "
           "(%s)\n", ok ? "PASS" : "FAIL", TARGET_PLAIN_RATIO, detail);
    for (int i = 0; i < n; i++) {
        if (res[i].pattern != SYNTH_RANDOM)
            continue;
        /* Uniform addresses carry log2(region / alignment) random bits
         * each: no encoding can go below that. */
        double bits = log2((double)SYNTH_RANDOM_BYTES / SYNTH_RANDOM_ALIGN);
        double plain = per_access(res[i].plain_bytes, &res[i]);
        printf("      (random: %.0f random bits per address, so no encoding "
               "is below %.3f B/access;\n       against zstd-3's %.3f the "
               "most possible is %.1fx)\n", bits, bits / 8, plain,
               plain / (bits / 8));
    }
}

/* ---- command line ---- */

static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\nusage: %s [--accesses=N] [--runs=R] "
            "[--dir=DIR] [STREAM...]\n", prog, what, arg, prog);
    exit(2);
}

static uint64_t parse_number(const char *arg, const char *value)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (errno || end == value || *end || *value == '-')
        usage_error("not a number:", arg);
    return v;
}

static void parse_args(config *c, int argc, char **argv)
{
    c->accesses = 20000000;
    c->runs = 3;
    c->dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--accesses=", 11) == 0) {
            c->accesses = parse_number(a, a + 11);
        } else if (strncmp(a, "--runs=", 7) == 0) {
            c->runs = (int)parse_number(a, a + 7);
            if (c->runs < 1 || c->runs > MAX_RUNS)
                usage_error("runs must be 1 to 15:", a);
        } else if (strncmp(a, "--dir=", 6) == 0) {
            c->dir = a + 6;
        } else if (a[0] == '-') {
            usage_error("unknown option", a);
        } else {
            int p = synth_pattern_from_name(a);
            if (p < 0)
                usage_error("unknown stream", a);
            if (c->nstreams == MAX_STREAMS)
                usage_error("too many streams at", a);
            c->streams[c->nstreams++] = (synth_pattern)p;
        }
    }
    if (c->accesses == 0)
        usage_error("needs at least one access:", "--accesses=0");
    if (c->nstreams == 0) {
        static const synth_pattern all[] = {SYNTH_SEQUENTIAL, SYNTH_STRIDED,
                                            SYNTH_RANDOM, SYNTH_CHASE};
        memcpy(c->streams, all, sizeof all);
        c->nstreams = 4;
    }
}

int main(int argc, char **argv)
{
    config c = {0};
    result res[MAX_STREAMS];
    parse_args(&c, argc, argv);
    /* A failed zstd must become a message, not a silent death by SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    /* A directory of our own: others may run benchmarks at the same time. */
    if (snprintf(workdir, sizeof workdir, "%s/bench_format.XXXXXX", c.dir) >=
            (int)sizeof workdir || !mkdtemp(workdir)) {
        workdir[0] = 0;
        die("%s: %s", c.dir, strerror(errno));
    }
    atexit(remove_workdir);
    c.dir = workdir;
    for (int i = 0; i < c.nstreams; i++) {
        fprintf(stderr, "%s: %s...\n", prog, synth_pattern_name(c.streams[i]));
        res[i] = measure(&c, c.streams[i]);
    }
    print_table(res, c.nstreams, &c);
    print_targets(res, c.nstreams);
    return 0;
}
