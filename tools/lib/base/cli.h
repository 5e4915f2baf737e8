/*
 * cli.h: what every trace-* command does the same way: its name in
 * messages, the exit statuses, --version, opening a trace and the one rule
 * for reading its next event, progress, cleanup on failure. Options and
 * --help come from a table (base/opts.h).
 *
 * Conventions: errors are "trace-NAME: FILE: what went wrong" on stderr,
 * one line; status 1 for a failure, 2 for bad usage. Only mains (and this
 * skeleton on their behalf) exit; library code returns errors.
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

/* "prog: file: message" and exit 1 (after the cleanup, see cli_on_fail).
 * file may be NULL. */
noreturn void cli_fail(const char *file, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "prog: file: warning: message" on one line; the command goes on. */
void cli_warn(const char *file, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What cli_fail() runs before exiting, so that a failure leaves no
 * half-written output: a database writer rolls its transaction back.
 * One at a time; fn NULL removes it. */
void cli_on_fail(void (*fn)(void *ctx), void *ctx);

/* Prints "prog (memrec) VERSION" and exits 0. */
noreturn void cli_version(void);

/* Parses a non-negative decimal (or 0x-prefixed hex) number, or exits 2
 * naming what it is for. */
uint64_t cli_parse_u64(const char *what, const char *value);

/* Opens a trace ("-" or NULL is stdin) or exits 1 with the reader's
 * message. The skeleton keeps its name for the messages of cli_next(). */
mr_reader *cli_open_trace(const char *path);

/* The one rule for reading a trace: 1 and *ev filled; 0 at the end of the
 * events. A corrupt or unreadable trace is an error (exit 1). A trace that
 * ends early, cut off (the reader's -1) or closed without its end record
 * (the reader's 0 with truncation reported), gives one warning line
 * "prog: FILE: warning: truncated: ...; using the events before it" and
 * ends the events, or with --strict is an error. Shows progress. */
int cli_next(mr_reader *r, mr_event *ev);

/* 0 once cli_next() met a truncated trace: what was made of it covers
 * part of the run (a profile records that). */
int cli_trace_complete(void);

/* Quiet: no progress (-q). Strict: truncation is an error (--strict). */
void cli_set_quiet(int quiet);
int cli_quiet(void);            /* 1 after -q: no summary lines either */
void cli_set_strict(int strict);

/* Progress on stderr while long work runs: only when stderr is a terminal
 * and -q was not given; at most a few lines a second. cli_next() calls it. */
void cli_progress(mr_reader *r);
void cli_progress_done(void);

/* Printable display path for a trace argument ("-" -> "<stdin>"). */
const char *cli_trace_name(const char *path);

/* The trace's display name, as cli_open_trace() was given it. */
const char *cli_trace(void);

/* Writes to stdout are checked at the end: flushes and exits 1 with
 * "prog: <stdout>: cannot write: ..." when output failed. */
void cli_flush_stdout(void);

/* Words joined by spaces (a command line, for the record); malloc'd, NULL
 * when out of memory. */
char *cli_join(int argc, const char *const *argv);

#endif /* MEMREC_CLI_H */
