/* cli.c: the shared command-line conventions of the trace-* commands. */
#include "base/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "trace";
static int quiet, strict;
static int progress_shown;      /* a progress line is on the terminal */
static struct timespec last_progress;
static const char *trace_path;  /* the trace being read, for messages */
static int trace_truncated;     /* cli_next() met its early end */
static uint64_t events_read;    /* for the progress line's pace */
static void (*fail_fn)(void *);
static void *fail_ctx;

void cli_init(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    prog = slash ? slash + 1 : (argv0 ? argv0 : "trace");
}

const char *cli_prog(void) { return prog; }

const char *cli_trace_name(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

const char *cli_trace(void) { return cli_trace_name(trace_path); }

void cli_on_fail(void (*fn)(void *ctx), void *ctx)
{
    fail_fn = fn;
    fail_ctx = ctx;
}

noreturn void cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    cli_progress_done();
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    /* One line, as for every error: the hint rides on it. */
    fprintf(stderr, " (try '%s --help')\n", prog);
    exit(CLI_EXIT_USAGE);
}

noreturn void cli_fail(const char *file, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    /* Format first: the cleanup may free what the message names. */
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_progress_done();
    if (fail_fn) {
        void (*fn)(void *) = fail_fn;
        fail_fn = NULL;     /* a failure inside the cleanup ends here */
        fn(fail_ctx);
    }
    if (file)
        fprintf(stderr, "%s: %s: %s\n", prog, file, msg);
    else
        fprintf(stderr, "%s: %s\n", prog, msg);
    exit(CLI_EXIT_FAILURE);
}

void cli_warn(const char *file, const char *fmt, ...)
{
    va_list ap;
    cli_progress_done();
    fprintf(stderr, "%s: ", prog);
    if (file)
        fprintf(stderr, "%s: ", file);
    fputs("warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

noreturn void cli_version(void)
{
    printf("%s (memrec) %s, trace format %d\n", prog, MR_LIBRARY_VERSION,
           MR_FORMAT_VERSION);
    exit(0);
}

uint64_t cli_parse_u64(const char *what, const char *value)
{
    char *end;
    errno = 0;
    if (!value || !*value || *value == '-')
        cli_usage_error("%s needs a non-negative number", what);
    /* Decimal, or hex with an explicit 0x: a leading zero is not octal. */
    int hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
    unsigned long long v = strtoull(value, &end, hex ? 16 : 10);
    if (errno || *end)
        cli_usage_error("%s: '%s' is not a number", what, value);
    return v;
}

mr_reader *cli_open_trace(const char *path)
{
    char *err = NULL;
    trace_path = path ? path : "-";
    trace_truncated = 0;
    mr_reader *r = mr_reader_open(trace_path, &err);
    if (!r) {
        /* Copy the message so it can be freed before exiting. */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open trace");
        mr_free_error(err);
        cli_fail(cli_trace(), "%s", msg);
    }
    return r;
}

int cli_next(mr_reader *r, mr_event *ev)
{
    int rc = mr_next(r, ev);
    if (rc > 0) {
        if ((++events_read & 0xffff) == 0)
            cli_progress(r);
        return 1;
    }
    cli_progress_done();
    if (!mr_reader_truncated(r)) {
        if (rc == 0)
            return 0;
        const char *what = mr_reader_error(r);
        cli_fail(cli_trace(), "%s", what ? what : "cannot read the trace");
    }
    const char *why = mr_reader_error(r);
    if (!why)
        why = "truncated: the trace ends early";
    if (strict)
        cli_fail(cli_trace(), "%s", why);
    if (!trace_truncated)
        cli_warn(cli_trace(), "%s; using the events before it", why);
    trace_truncated = 1;
    return 0;
}

int cli_trace_complete(void) { return !trace_truncated; }

void cli_set_quiet(int q) { quiet = q; }
int cli_quiet(void) { return quiet; }
void cli_set_strict(int s) { strict = s; }

void cli_progress(mr_reader *r)
{
    struct timespec now;
    if (quiet || !isatty(STDERR_FILENO))
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (now.tv_sec - last_progress.tv_sec) +
                (now.tv_nsec - last_progress.tv_nsec) / 1e9;
    if (dt < 0.25)
        return;
    last_progress = now;
    fprintf(stderr, "\r%s: %.1f MB read, %llu chunks ", prog,
            mr_reader_bytes(r) / 1e6, (unsigned long long)mr_reader_chunks(r));
    progress_shown = 1;
}

void cli_progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
}

void cli_flush_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write: %s", strerror(errno ? errno : EIO));
}

char *cli_join(int argc, const char *const *argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    *s = 0;
    for (int i = 0; i < argc; i++)
        p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
    return s;
}
