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
static int quiet;
static int progress_shown;      /* a progress line is on the terminal */
static struct timespec last_progress;

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
    cli_progress_done();
    fprintf(stderr, "%s: ", prog);
    if (file)
        fprintf(stderr, "%s: ", file);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(CLI_EXIT_FAILURE);
}

noreturn void cli_version(void)
{
    printf("%s (memrec) %s, trace format %d\n", prog, MR_LIBRARY_VERSION,
           MR_FORMAT_VERSION);
    exit(0);
}

uint64_t cli_parse_u64(const char *option, const char *value)
{
    char *end;
    errno = 0;
    if (!value || !*value || *value == '-')
        cli_usage_error("option '%s' needs a non-negative number", option);
    /* Decimal, or hex with an explicit 0x: a leading zero is not octal. */
    int hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
    unsigned long long v = strtoull(value, &end, hex ? 16 : 10);
    if (errno || *end)
        cli_usage_error("option '%s': '%s' is not a number", option, value);
    return v;
}

mr_reader *cli_open_trace(const char *path)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(path ? path : "-", &err);
    if (!r) {
        /* Copy the message so it can be freed before exiting. */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open trace");
        mr_free_error(err);
        cli_fail(cli_trace_name(path), "%s", msg);
    }
    return r;
}

int cli_next(mr_reader *r, const char *path, mr_event *ev, int allow_truncated)
{
    int rc = mr_next(r, ev);
    if (rc >= 0)
        return rc;
    if (allow_truncated && mr_reader_truncated(r)) {
        cli_progress_done();
        fprintf(stderr, "%s: %s: warning: %s; using the events before it\n",
                prog, cli_trace_name(path), mr_reader_error(r));
        return 0;
    }
    cli_fail(cli_trace_name(path), "%s", mr_reader_error(r));
}

void cli_set_quiet(int q) { quiet = q; }

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
