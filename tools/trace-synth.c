/*
 * trace-synth: writes a synthetic trace with a known memory behaviour.
 *
 *   trace-synth --pattern=NAME --accesses=N [--seed=S] [--chunk-bytes=B]
 *               [--level=L] [--truth=FILE] [-o FILE|-]
 *
 * The trace goes to stdout unless -o names a file, so trace-synth can stand
 * at the head of a pipeline. The generator is tools/lib/synth/synth.c.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/opts.h"
#include "synth/synth.h"

/* What the command line asked for. */
static synth_options synth = { .seed = 1 };
static uint64_t accesses = UINT64_MAX;     /* UINT64_MAX: not given */
static uint64_t chunk_bytes;
static uint32_t level;
static const char *output = "-";            /* "-" for stdout */
static const char *truth_path;              /* NULL: no truth file */
static int have_pattern;

static const char *set_pattern(const char *v)
{
    int p = synth_pattern_from_name(v);
    if (p < 0)
        return "unknown pattern (see --help)";
    synth.pattern = (synth_pattern)p;
    have_pattern = 1;
    return NULL;
}

static const opt_def options[] = {
    { "pattern", 0, OPT_CALL, NULL, "NAME",
      "sequential, strided, random, chase, mixed, threads", 0, 0, set_pattern },
    { "accesses", 0, OPT_U64, &accesses, "N", "exact number of memory accesses",
      0, UINT64_MAX - 1, NULL },
    { "seed", 0, OPT_U64, &synth.seed, "S",
      "seed of every random choice (default 1)", 0, 0, NULL },
    { "chunk-bytes", 0, OPT_U64, &chunk_bytes, "B",
      "raw bytes per chunk (default: the library's)", 0, 0, NULL },
    { "level", 0, OPT_U32, &level, "L", "zstd level (default: the library's)",
      1, 22, NULL },
    { "truth", 0, OPT_STRING, &truth_path, "FILE",
      "also write what the trace holds as JSON\n"
      "(the keys of trace-info --json)", 0, 0, NULL },
    { "output", 'o', OPT_STRING, &output, "FILE",
      "write the trace to FILE ('-': stdout, the default)", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "--pattern=NAME --accesses=N",
    .summary = "Write a synthetic memrec trace whose memory accesses follow a known pattern.",
    .opts = options,
    .notes =
    "Patterns (tools/lib/synth/synth.h has the details):\n"
    "  sequential  one 8-byte load walking a static array\n"
    "  strided     c[i][j] += a[i][j] + bt[j][i] over 256x256 int64 arrays\n"
    "  random      8-byte loads at uniform random addresses of 64 MiB\n"
    "  chase       a malloc'd linked list in shuffled order, linked, then walked\n"
    "              (pointer values recorded), then freed\n"
    "  mixed       the four above taking turns, a marker per phase\n"
    "  threads     four worker threads, each walking its malloc'd buffer\n"
    "\n"
    "The same options always give the same bytes.\n",
};

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
static void fail_output(const char *name, char *err, int remove_output)
{
    char msg[512];
    /* Copy the message so it can be freed before exiting. */
    snprintf(msg, sizeof msg, "%s", err ? err : "out of memory");
    mr_free_error(err);
    /* No half-written trace left behind; but only a regular file goes
     * (-o /dev/full must not remove the device). */
    struct stat st;
    if (remove_output && strcmp(output, "-") != 0 &&
        lstat(output, &st) == 0 && S_ISREG(st.st_mode))
        unlink(output);
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
    synth_truth truth;
    char *err = NULL, **args;

    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (!have_pattern)
        cli_usage_error("--pattern is required (one of: %s)",
                        synth_pattern_list());
    if (accesses == UINT64_MAX)
        cli_usage_error("--accesses is required");
    if (strcmp(output, "-") == 0 && isatty(STDOUT_FILENO))
        cli_usage_error("will not write a binary trace to a terminal; "
                        "use -o FILE or a pipe");
    synth.accesses = accesses;
    mr_writer_options wo = { .level = (int)level, .chunk_bytes = (size_t)chunk_bytes };
    const char *name = strcmp(output, "-") == 0 ? "<stdout>" : output;
    mr_writer *w = mr_writer_open(output, &wo, &err);
    if (!w)
        fail_output(name, err, 0);
    int rc = synth_write(w, &synth, &truth);
    mr_end end = synth_end();
    if (rc < 0)
        end.reason = MR_END_ERROR;
    /* When the writer failed (a full disk, a closed pipe), closing
     * returns its message; otherwise a failure was the generator's own
     * memory. */
    if (mr_writer_close(w, &end, &err) < 0 || rc < 0) {
        if (strcmp(output, "-") == 0 && stdout_reader_gone()) {
            mr_free_error(err);
            return 0;           /* quietly, as `yes | head` ends */
        }
        fail_output(name, err, 1);
    }
    if (truth_path)
        write_truth(truth_path, &truth);
    return 0;
}
