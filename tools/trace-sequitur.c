/*
 * trace-sequitur: Sequitur over any stream of unsigned integers, one per
 * line: prints the grammar (or its size, or the input back) for pipelines
 * and for checking the library against grammars known by hand.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/sequitur.h"
#include "base/cli.h"
#include "base/opts.h"

static int stats, expand;

static const opt_def options[] = {
    { "stats", 0, OPT_FLAG, &stats, NULL,
      "print one line: rules R symbols S (R counts rule 0; S the\n"
      "symbols of all right-hand sides)", 0, 0, NULL },
    { "expand", 0, OPT_FLAG, &expand, NULL,
      "print the grammar's expansion (the input back)", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "[FILE|-]",
    .summary =
    "Read one unsigned decimal integer per line (below 2^63) and build its\n"
    "Sequitur grammar (Nevill-Manning and Witten), the same grammar as the\n"
    "original implementation's.\n"
    "\n"
    "Default output: one rule per line, rule 0 first, numbered as the\n"
    "original prints them:  N -> s s s  (terminals as numbers, rules as R<n>)",
    .opts = options,
    .max_args = 1,
    .notes =
    "Exit status: 0; 1 on a bad line (named by number) or unreadable input;\n"
    "2 for bad usage.\n",
};

/* Parses one line: digits, optionally followed by spaces or a CR. */
static int parse_line(const char *s, uint64_t *v)
{
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno == ERANGE || x >= SQ_TERMINAL_LIMIT)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end)
        return -1;
    *v = x;
    return 0;
}

static sequitur *read_stream(FILE *in, const char *name)
{
    sequitur *b = sq_new();
    if (!b)
        cli_fail(NULL, "out of memory");
    char *line = NULL;
    size_t cap = 0;
    uint64_t lineno = 0, v;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) >= 0) {
        lineno++;
        if (parse_line(line, &v) < 0) {
            line[strcspn(line, "\r\n")] = 0;
            cli_fail(name, "line %" PRIu64 ": not an unsigned integer below 2^63: '%.40s'",
                     lineno, line);
        }
        if (sq_append(b, v) < 0)
            cli_fail(NULL, "out of memory");
    }
    if (ferror(in))
        cli_fail(name, "read error");
    free(line);
    return b;
}

static int print_terminal(void *ctx, uint64_t t)
{
    return fprintf(ctx, "%" PRIu64 "\n", t) < 0;
}

int main(int argc, char **argv)
{
    char **args;
    cli_init(argv[0]);
    int nargs = opts_parse(&spec, argc, argv, &args);
    if (stats && expand)
        cli_usage_error("--stats and --expand exclude each other");
    const char *path = nargs ? args[0] : "-";
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!in)
        cli_fail(path, "%s", strerror(errno));
    sequitur *b = read_stream(in, name);
    if (in != stdin)
        fclose(in);
    sq_grammar *g = sq_finish(b);
    if (!g)
        cli_fail(NULL, "out of memory");
    if (stats)
        printf("rules %" PRIu32 " symbols %" PRIu64 "\n", sq_rule_count(g), sq_symbol_count(g));
    else if (expand)
        sq_expand(g, 0, print_terminal, stdout);
    else
        sq_print(g, stdout);
    cli_flush_stdout();
    sq_grammar_free(g);
    sq_free(b);
    return 0;
}
