/*
 * opts.h: a command's options as one table, from which both the parser and
 * the --help text are made, so that every command answers the same mistake
 * with the same message and its help cannot drift from what it accepts.
 *
 *     static const char *db; static uint64_t top = 15; static int sym;
 *     static const opt_def options[] = {
 *         { "db", 0, OPT_STRING, &db, "FILE", "also store the result in FILE" },
 *         { "top", 0, OPT_U64, &top, "N", "rows listed (default 15)", 1, 1000 },
 *         { "symbolize", 0, OPT_FLAG, &sym, NULL, "add function:line" },
 *         { 0 }
 *     };
 *     static const cmd_spec spec = { .args = "[TRACE|-]", .opts = options,
 *         .summary = "What it does.", .flags = CMD_READS_TRACE };
 *     char **args; int nargs = opts_parse(&spec, argc, argv, &args);
 *
 * Long options take their value as --name=V or --name V, and may be
 * shortened to any unique prefix; short ones as -oV or -o V, and flags may
 * be grouped (-qh). "--" ends the options. Every command gets -h/--help and
 * --version; one that reads a trace (CMD_READS_TRACE) also -q/--quiet (no
 * progress) and --strict (a truncated trace is an error, not a warning), and
 * with no trace named and a terminal on stdin it fails instead of waiting.
 * Mistakes exit 2 through cli_usage_error() with one line.
 */
#ifndef MEMREC_OPTS_H
#define MEMREC_OPTS_H

#include <stdint.h>

/* What an option does with its value. */
typedef enum opt_kind {
    OPT_FLAG = 1,   /* no value: *(int *)dest = 1 */
    OPT_STRING,     /* *(const char **)dest = the value (non-empty) */
    OPT_U64,        /* *(uint64_t *)dest = a number in [min, max] */
    OPT_U32,        /* *(uint32_t *)dest = a number in [min, max] */
    OPT_CALL        /* fn(value) is called; it returns NULL or a message */
} opt_kind;

/* One option of a command. */
typedef struct opt_def {
    const char *name;           /* long name without "--" */
    char short_name;            /* 'o' for -o, or 0 */
    uint8_t kind;               /* opt_kind */
    void *dest;                 /* where the value goes (not OPT_CALL) */
    const char *value_name;     /* "FILE", "N": shown in --help */
    const char *help;           /* help text; '\n' starts another line */
    uint64_t min, max;          /* OPT_U64, OPT_U32: the accepted range;
                                 * both 0 means any (up to the type's max) */
    const char *(*fn)(const char *value);  /* OPT_CALL */
} opt_def;

/* cmd_spec.flags */
#define CMD_READS_TRACE 0x1     /* -q and --strict; a trace argument */

/* What a command is, for the parser and its help. */
typedef struct cmd_spec {
    const char *args;           /* the usage line after "[OPTION]...",
                                 * e.g. "[TRACE|-]" */
    const char *summary;        /* what it does: lines after the usage line */
    const opt_def *opts;            /* the command's own options, ended by {0} */
    const char *notes;          /* text after the options (may be NULL) */
    unsigned flags;             /* CMD_* */
    unsigned min_args, max_args;/* positional arguments accepted; a
                                 * CMD_READS_TRACE command with max_args 0
                                 * means one trace at most */
} cmd_spec;

/* Parses argv into the table's destinations; prints help or the version
 * and exits 0 when asked; exits 2 on a mistake. Returns the number of
 * positional arguments and points *args at them (argv order). For a
 * CMD_READS_TRACE command with no trace named, *args holds "-" (and it is a
 * usage error if stdin is a terminal). Call cli_init() first. */
int opts_parse(const cmd_spec *spec, int argc, char **argv, char ***args);

/* Prints the --help text of spec to stdout. */
void opts_print_help(const cmd_spec *spec);

#endif /* MEMREC_OPTS_H */
