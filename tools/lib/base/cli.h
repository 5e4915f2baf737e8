/*
 * cli.h: what every trace-* command does the same way: its name in
 * messages, the exit statuses, --version, opening a trace, progress.
 *
 * Conventions (ARCHITECTURE.md): errors are "trace-NAME: FILE: what went
 * wrong" on stderr; status 1 for a failure, 2 for bad usage.
 */
#ifndef MEMREC_CLI_H
#define MEMREC_CLI_H

#include <stdint.h>
#include <stdnoreturn.h>
#include "memrec_trace.h"

#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

/* Sets the program name used in messages (basename of argv[0]). */
void cli_init(const char *argv0);
const char *cli_prog(void);

/* "prog: message (try 'prog --help')" on one line, and exit 2. */
noreturn void cli_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* "prog: file: message" and exit 1. file may be NULL. */
noreturn void cli_fail(const char *file, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "prog (memrec) VERSION" and exits 0. */
noreturn void cli_version(void);

/* Parses a non-negative decimal (or 0x-prefixed hex) option value, or exits 2
 * naming the option. */
uint64_t cli_parse_u64(const char *option, const char *value);

/* Opens a trace ("-" or NULL is stdin) or exits 1 with the reader's message. */
mr_reader *cli_open_trace(const char *path);

/* Reads the next event; on a reader error prints it and exits 1 (the
 * caller's cleanup runs through atexit if it needs any). Returns 0 at the
 * end of the trace. A truncated trace gives a warning, not an error, when
 * allow_truncated is set: the events read so far are what there is. */
int cli_next(mr_reader *r, const char *path, mr_event *ev, int allow_truncated);

/* Progress on stderr while long work runs: only when stderr is a terminal
 * and -q was not given. Call often; it prints at most a few times a second. */
void cli_set_quiet(int quiet);
void cli_progress(mr_reader *r);
void cli_progress_done(void);

/* Printable display path for a trace argument ("-" -> "<stdin>"). */
const char *cli_trace_name(const char *path);

#endif /* MEMREC_CLI_H */
