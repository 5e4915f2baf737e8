/*
 * trace-synth: writes a synthetic trace with a known memory behaviour.
 *
 *   trace-synth --pattern=NAME --accesses=N [--seed=S] [--chunk-bytes=B]
 *               [--level=L] [--truth=FILE] [-o FILE|-]
 *
 * The trace goes to stdout unless -o names a file, so trace-synth can stand
 * at the head of a pipeline. The generator is tools/lib/synth.c.
 */
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli.h"
#include "synth/synth.h"

static void usage(void)
{
    printf("Usage: %s --pattern=NAME --accesses=N [OPTION]...\n"
           "Write a synthetic memrec trace whose memory accesses follow a "
           "known pattern.\n\n"
           "  --pattern=NAME     %s\n"
           "  --accesses=N       exact number of memory accesses\n"
           "  --seed=S           seed of every random choice (default 1)\n"
           "  --chunk-bytes=B    raw bytes per chunk (default: the library's)\n"
           "  --level=L          zstd level (default: the library's)\n"
           "  --truth=FILE       also write what the trace holds as JSON\n"
           "                     (the keys of trace-info --json)\n"
           "  -o, --output=FILE  write the trace to FILE ('-': stdout, the "
           "default)\n"
           "      --help         show this help\n"
           "      --version      show the version\n\n"
           "Patterns (tools/lib/synth.h has the details):\n"
           "  sequential  one 8-byte load walking a static array\n"
           "  strided     c[i][j] += a[i][j] + bt[j][i] over 256x256 int64 "
           "arrays\n"
           "  random      8-byte loads at uniform random addresses of 64 "
           "MiB\n"
           "  chase       a malloc'd linked list in shuffled order, linked, "
           "then walked\n"
           "              (pointer values recorded), then freed\n"
           "  mixed       the four above taking turns, a marker per phase\n"
           "  threads     four worker threads, each walking its malloc'd "
           "buffer\n\n"
           "The same options always give the same bytes.\n",
           cli_prog(), synth_pattern_list());
    exit(0);
}

/* What the command line asked for. */
typedef struct args {
    synth_options synth;
    mr_writer_options writer;
    const char *output;         /* "-" for stdout */
    const char *truth_path;     /* NULL: no truth file */
    int have_pattern, have_accesses;
} args;

/* Long options; the values past 255 stand for options without a short
 * form. */
enum { OPT_PATTERN = 256, OPT_ACCESSES, OPT_SEED, OPT_CHUNK, OPT_LEVEL,
       OPT_TRUTH, OPT_HELP, OPT_VERSION };

static const struct option long_options[] = {
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"accesses", required_argument, NULL, OPT_ACCESSES},
    {"seed", required_argument, NULL, OPT_SEED},
    {"chunk-bytes", required_argument, NULL, OPT_CHUNK},
    {"level", required_argument, NULL, OPT_LEVEL},
    {"truth", required_argument, NULL, OPT_TRUTH},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Handles one parsed option. */
static void take_option(args *a, int c, const char *arg, const char *bad)
{
    switch (c) {
    case OPT_PATTERN: {
        int p = synth_pattern_from_name(arg);
        if (p < 0)
            cli_usage_error("unknown pattern '%s' (one of: %s)", arg,
                            synth_pattern_list());
        a->synth.pattern = (synth_pattern)p;
        a->have_pattern = 1;
        break;
    }
    case OPT_ACCESSES:
        a->synth.accesses = cli_parse_u64("--accesses", arg);
        a->have_accesses = 1;
        break;
    case OPT_SEED: a->synth.seed = cli_parse_u64("--seed", arg); break;
    case OPT_CHUNK:
        a->writer.chunk_bytes = (size_t)cli_parse_u64("--chunk-bytes", arg);
        break;
    case OPT_LEVEL: {
        uint64_t level = cli_parse_u64("--level", arg);
        if (level > 22)
            cli_usage_error("option '--level': %s is not a zstd level (1-22)",
                            arg);
        a->writer.level = (int)level;
        break;
    }
    case OPT_TRUTH: a->truth_path = arg; break;
    case 'o': a->output = arg; break;
    case OPT_HELP: usage(); break;
    case OPT_VERSION: cli_version(); break;
    case ':': cli_usage_error("option '%s' needs a value", bad); break;
    default: cli_usage_error("unknown option '%s'", bad); break;
    }
}

static void parse_args(args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->synth.seed = 1;
    a->output = "-";
    opterr = 0;                 /* our own messages, in our format */
    for (;;) {
        int prev = optind;
        int c = getopt_long(argc, argv, ":o:", long_options, NULL);
        if (c == -1)
            break;
        /* The offending word, for messages about unknown options. */
        const char *bad = argv[prev < argc ? prev : argc - 1];
        take_option(a, c, optarg, bad);
    }
    if (optind < argc)
        cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (!a->have_pattern)
        cli_usage_error("--pattern is required (one of: %s)",
                        synth_pattern_list());
    if (!a->have_accesses)
        cli_usage_error("--accesses is required");
    if (strcmp(a->output, "-") == 0 && isatty(STDOUT_FILENO))
        cli_usage_error("will not write a binary trace to a terminal; "
                        "use -o FILE or a pipe");
}

/* Writes the truth JSON to path, or exits 1 naming it. */
static void write_truth(const char *path, const synth_truth *t)
{
    char json[1024];
    FILE *f = fopen(path, "w");
    if (!f)
        cli_fail(path, "cannot create: %m");
    fprintf(f, "%s\n", synth_truth_json(t, json, sizeof json));
    if (fclose(f) != 0)
        cli_fail(path, "cannot write: %m");
}

/* Exits 1 with the message err (the library's, freed here; NULL: out of
 * memory), first removing the output file when this run created it. */
static void fail_output(const args *a, const char *name, char *err,
                        int remove_output)
{
    char msg[512];
    /* Copy the message so it can be freed before exiting. */
    snprintf(msg, sizeof msg, "%s", err ? err : "out of memory");
    mr_free_error(err);
    /* No half-written trace left behind; but only a regular file goes
     * (-o /dev/full must not remove the device). */
    struct stat st;
    if (remove_output && strcmp(a->output, "-") != 0 &&
        lstat(a->output, &st) == 0 && S_ISREG(st.st_mode))
        unlink(a->output);
    cli_fail(name, "%s", msg);
}

/* 1 when stdout is a pipe whose reader has gone: the consumer has what
 * it wanted (trace-dump --to=..., head), which is no error of ours. On
 * Linux a pipe's write end polls POLLERR once no reader is left. */
static int stdout_reader_gone(void)
{
    struct pollfd p = {.fd = STDOUT_FILENO, .events = 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int main(int argc, char **argv)
{
    args a;
    synth_truth truth;
    char *err = NULL;

    cli_init(argv[0]);
    parse_args(&a, argc, argv);
    const char *name = strcmp(a.output, "-") == 0 ? "<stdout>" : a.output;
    mr_writer *w = mr_writer_open(a.output, &a.writer, &err);
    if (!w)
        fail_output(&a, name, err, 0);
    int rc = synth_write(w, &a.synth, &truth);
    mr_end end = synth_end();
    if (rc < 0)
        end.reason = MR_END_ERROR;
    /* When the writer failed (a full disk, a closed pipe), closing
     * returns its message; otherwise a failure was the generator's own
     * memory. */
    if (mr_writer_close(w, &end, &err) < 0 || rc < 0) {
        if (strcmp(a.output, "-") == 0 && stdout_reader_gone()) {
            mr_free_error(err);
            return 0;           /* quietly, as `yes | head` ends */
        }
        fail_output(&a, name, err, 1);
    }
    if (a.truth_path)
        write_truth(a.truth_path, &truth);
    return 0;
}
