/* opts.c: options from a table, and --help from the same table. */
#include "base/opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"

static int want_help, want_version, want_quiet, want_strict;

/* Options every command has; the trace readers' come first in --help. */
static const opt_def trace_opts[] = {
    { "quiet", 'q', OPT_FLAG, &want_quiet, NULL, "no progress on stderr", 0, 0, NULL },
    { "strict", 0, OPT_FLAG, &want_strict, NULL,
      "a truncated trace is an error (exit 1), not a warning", 0, 0, NULL },
    { 0 }
};
static const opt_def common_opts[] = {
    { "help", 'h', OPT_FLAG, &want_help, NULL, "this help", 0, 0, NULL },
    { "version", 0, OPT_FLAG, &want_version, NULL, "print the version", 0, 0, NULL },
    { 0 }
};

/* The tables an option is looked up in, in --help order. */
static const opt_def *tables(const cmd_spec *spec, int i)
{
    switch (i) {
    case 0: return spec->opts;
    case 1: return (spec->flags & CMD_READS_TRACE) ? trace_opts : NULL;
    case 2: return common_opts;
    default: return NULL;
    }
}
#define NTABLES 3

/* The option named by the first len bytes of name: an exact match, else
 * the only one it is a prefix of. */
static const opt_def *find_long(const cmd_spec *spec, const char *name, size_t len)
{
    const opt_def *found = NULL;
    int matches = 0;
    for (int t = 0; t < NTABLES; t++)
        for (const opt_def *o = tables(spec, t); o && o->name; o++) {
            if (strncmp(o->name, name, len) != 0)
                continue;
            if (o->name[len] == 0)
                return o;
            found = o;
            matches++;
        }
    if (matches > 1)
        cli_usage_error("option '--%.*s' is ambiguous", (int)len, name);
    if (!found)
        cli_usage_error("unknown option '--%.*s'", (int)len, name);
    return found;
}

static const opt_def *find_short(const cmd_spec *spec, char c)
{
    for (int t = 0; t < NTABLES; t++)
        for (const opt_def *o = tables(spec, t); o && o->name; o++)
            if (o->short_name && o->short_name == c)
                return o;
    cli_usage_error("unknown option '-%c'", c);
}

/* A number in [o->min, o->max] (any when both are 0), decimal or 0x hex:
 * a leading zero is not octal. */
static uint64_t number(const opt_def *o, const char *value, uint64_t type_max)
{
    char *end;
    uint64_t lo = o->min, hi = (o->min || o->max) ? o->max : type_max;
    int hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
    errno = 0;
    unsigned long long v = strtoull(value, &end, hex ? 16 : 10);
    if (!*value || *value == '-' || *value == '+' || errno || *end)
        cli_usage_error("option '--%s': '%s' is not a number", o->name, value);
    if (v < lo || v > hi)
        cli_usage_error("option '--%s': %s is not in %llu..%llu", o->name,
                        value, (unsigned long long)lo, (unsigned long long)hi);
    return v;
}

static void apply(const opt_def *o, const char *value)
{
    const char *msg;
    switch (o->kind) {
    case OPT_FLAG:
        *(int *)o->dest = 1;
        break;
    case OPT_STRING:
        if (!*value)
            cli_usage_error("option '--%s' needs a value", o->name);
        *(const char **)o->dest = value;
        break;
    case OPT_U64:
        *(uint64_t *)o->dest = number(o, value, UINT64_MAX);
        break;
    case OPT_U32:
        *(uint32_t *)o->dest = (uint32_t)number(o, value, UINT32_MAX);
        break;
    case OPT_CALL:
        if ((msg = o->fn(value)))
            cli_usage_error("option '--%s': %s", o->name, msg);
        break;
    }
    /* Acted on at once, as a user expects: mistakes before them count. */
    if (want_help) {
        opts_print_help(NULL);
        exit(0);
    }
    if (want_version)
        cli_version();
}

/* -abc: flags in a cluster; an option with a value takes the rest of the
 * word, or the next argument. Returns how many arguments it used. */
static int parse_short(const cmd_spec *spec, char **argv, int i, int argc)
{
    const char *a = argv[i];
    for (int j = 1; a[j]; j++) {
        const opt_def *o = find_short(spec, a[j]);
        if (o->kind == OPT_FLAG) {
            apply(o, NULL);
            continue;
        }
        if (a[j + 1]) {
            apply(o, a + j + 1);
            return 1;
        }
        if (i + 1 >= argc)
            cli_usage_error("option '-%c' needs a value", a[j]);
        apply(o, argv[i + 1]);
        return 2;
    }
    return 1;
}

static int parse_long(const cmd_spec *spec, char **argv, int i, int argc)
{
    const char *name = argv[i] + 2, *eq = strchr(name, '=');
    const opt_def *o = find_long(spec, name, eq ? (size_t)(eq - name) : strlen(name));
    if (o->kind == OPT_FLAG) {
        if (eq)
            cli_usage_error("option '--%s' takes no value", o->name);
        apply(o, NULL);
        return 1;
    }
    if (eq) {
        apply(o, eq + 1);
        return 1;
    }
    if (i + 1 >= argc)
        cli_usage_error("option '--%s' needs a value", o->name);
    apply(o, argv[i + 1]);
    return 2;
}

static const cmd_spec *help_spec;   /* for apply()'s --help */

int opts_parse(const cmd_spec *spec, int argc, char **argv, char ***args)
{
    /* Positional arguments, kept in a static so that it stays reachable
     * until exit (the sanitizers' leak check). */
    static char **pos;
    static char *stdin_arg[] = { "-", NULL };
    int n = 0, only_args = 0;
    help_spec = spec;
    free(pos);
    if (!(pos = calloc((size_t)argc + 1, sizeof *pos)))
        cli_fail(NULL, "out of memory");
    for (int i = 1; i < argc;) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || a[1] == 0) {
            pos[n++] = argv[i++];
        } else if (strcmp(a, "--") == 0) {
            only_args = 1;
            i++;
        } else if (a[1] == '-') {
            i += parse_long(spec, argv, i, argc);
        } else {
            i += parse_short(spec, argv, i, argc);
        }
    }
    cli_set_quiet(want_quiet);
    cli_set_strict(want_strict);
    unsigned max = spec->max_args;
    if ((spec->flags & CMD_READS_TRACE) && max == 0)
        max = 1;
    if ((unsigned)n > max)
        cli_usage_error(max == 1 && (spec->flags & CMD_READS_TRACE)
                            ? "one trace at most; extra argument '%s'"
                            : "extra argument '%s'", pos[max]);
    if ((unsigned)n < spec->min_args)
        cli_usage_error("missing argument: %s %s", cli_prog(), spec->args);
    if (n == 0 && (spec->flags & CMD_READS_TRACE)) {
        /* No trace named and a terminal on stdin: a user, not a pipeline;
         * say what is missing rather than wait for bytes that will not come. */
        if (isatty(STDIN_FILENO))
            cli_usage_error("no trace given (name a file, or pipe one in)");
        *args = stdin_arg;
        return 1;
    }
    *args = pos;
    return n;
}

/* "  -o, --output=FILE" */
static int left_part(const opt_def *o, char *buf, size_t len)
{
    char sh[8] = "    ";
    if (o->short_name)
        snprintf(sh, sizeof sh, "-%c, ", o->short_name);
    return snprintf(buf, len, "  %s--%s%s%s", sh, o->name,
                    o->value_name ? "=" : "", o->value_name ? o->value_name : "");
}

/* Help text lines under one another at column col. */
static void print_option(const opt_def *o, int col)
{
    char left[128];
    int w = left_part(o, left, sizeof left);
    fputs(left, stdout);
    if (w + 2 > col) {      /* too long: the help starts on the next line */
        putchar('\n');
        w = 0;
    }
    for (const char *h = o->help; h && *h;) {
        const char *nl = strchr(h, '\n');
        int len = nl ? (int)(nl - h) : (int)strlen(h);
        printf("%*s%.*s\n", col - w, "", len, h);
        w = 0;
        h = nl ? nl + 1 : h + len;
    }
    if (!o->help || !*o->help)
        putchar('\n');
}

void opts_print_help(const cmd_spec *spec)
{
    if (!spec)
        spec = help_spec;
    char left[128];
    int col = 0;
    for (int t = 0; t < NTABLES; t++)
        for (const opt_def *o = tables(spec, t); o && o->name; o++) {
            int w = left_part(o, left, sizeof left) + 2;
            if (w > col && w <= 24)
                col = w;
        }
    printf("Usage: %s [OPTION]... %s\n%s\n\n", cli_prog(), spec->args,
           spec->summary);
    for (int t = 0; t < NTABLES; t++)
        for (const opt_def *o = tables(spec, t); o && o->name; o++)
            print_option(o, col);
    if (spec->notes)
        printf("\n%s", spec->notes);
}
