/*
 * trace-slice: dynamic slices (seed 001, section 5.3): the precise slice
 * of Agrawal and Horgan computed on demand over TWPP+ as Figure 5.7 does,
 * and the two approximate ones (executed nodes, executed edges) for
 * comparison, as source lines. Control flow from FILE.twpp; instruction
 * bytes from the module files; memory dependences and the criterion's
 * point from the trace FILE.twpp was built from. What the slice covers at
 * machine level: docs/trace-slice.md. Code: tools/lib/slice/.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/opts.h"
#include "db/session.h"
#include "slice/cfg.h"
#include "slice/plus.h"
#include "slice/report.h"
#include "slice/run.h"
#include "slice/slice.h"
#include "slice/store.h"

static const char *at, *var, *trace_path, *db_path, *edges_from = "twpp";
static int precise_only, startup;

static const opt_def options[] = {
    { "at", 0, OPT_STRING, &at, "FUNCTION:LINE[#N]",
      "the criterion's point: the N-th time (default 1) the\n"
      "line was entered, before its first instruction; or\n"
      "0xADDR[#N], the N-th run of the instruction at ADDR\n"
      "(for code without line information)", 0, 0, NULL },
    { "var", 0, OPT_STRING, &var, "WHAT",
      "what the slice is on: a data object NAME[+OFFSET][:SIZE],\n"
      "an address 0xADDR[:SIZE] (default 8 bytes), or a register\n"
      "(rax, eax, xmm0, ...)", 0, 0, NULL },
    { "trace", 0, OPT_STRING, &trace_path, "TRACE",
      "the trace FILE.twpp was built from (default: FILE.twpp\n"
      "without .twpp, trace-twpp's default name)", 0, 0, NULL },
    { "edges", 0, OPT_STRING, &edges_from, "FROM",
      "memory dependences from 'twpp' (the file's TWPP+ edges,\n"
      "8-byte granules; the default) or 'trace' (the trace's\n"
      "last writers, byte by byte)", 0, 0, NULL },
    { "db", 0, OPT_STRING, &db_path, "FILE",
      "also store the request and the slices by line in the\n"
      "profile database FILE (created if missing; one request\n"
      "per run: a new one replaces it)", 0, 0, NULL },
    { "startup", 0, OPT_FLAG, &startup, NULL,
      "also follow dependences into the program's startup (the\n"
      "dynamic loader and libc's initialisation before main)", 0, 0, NULL },
    { "precise-only", 0, OPT_FLAG, &precise_only, NULL,
      "skip the two approximate slices", 0, 0, NULL },
    { 0 }
};

static const cmd_spec spec = {
    .args = "--at FUNCTION:LINE[#N]|0xADDR[#N] --var WHAT FILE.twpp",
    .summary =
    "Dynamic slices: the source lines whose execution affected WHAT at the\n"
    "criterion's point. The precise slice (Agrawal and Horgan's approach 3)\n"
    "with, per line, how many of its instances are in the slice; then the\n"
    "slices of approach 2 (executed edges) and 1 (executed nodes).",
    .opts = options,
    .flags = CMD_READS_TRACE,
    .min_args = 1,
    .max_args = 1,
    .notes =
    "Exit status: 0; 1 on a bad .twpp file or trace, a line that never ran\n"
    "or has no such instance, or a --var that names nothing; 2 for bad usage.\n",
};

static slice_run run;
static slice_criterion crit;
static pdb_session db;

/* FUNCTION:LINE[#N] into crit. */
static void parse_at(char *s)
{
    char *hash = strchr(s, '#'), *colon, *end;
    crit.instance = 1;
    if (hash) {
        *hash = 0;
        crit.instance = strtoull(hash + 1, &end, 10);
        if (!isdigit((unsigned char)hash[1]) || *end || crit.instance == 0)
            cli_usage_error("--at: instance '%s' is not a number from 1", hash + 1);
    }
    if (s[0] == '0' && s[1] == 'x') {          /* an instruction address */
        crit.insn_addr = strtoull(s, &end, 16);
        if (*end || !s[2])
            cli_usage_error("--at: '%s' is not 0xADDR", s);
        return;
    }
    if (!(colon = strrchr(s, ':')) || colon == s)
        cli_usage_error("--at: '%s' is not FUNCTION:LINE", s);
    *colon = 0;
    unsigned long line = strtoul(colon + 1, &end, 10);
    if (!isdigit((unsigned char)colon[1]) || *end || line == 0 || line > UINT32_MAX)
        cli_usage_error("--at: line '%s' is not a number from 1", colon + 1);
    crit.function = s;
    crit.line = (uint32_t)line;
}

/* --var: a register, an address, or a name resolved by the pass. */
static void parse_var(const char *path)
{
    char *end;
    crit.var = var;
    crit.reg = slice_reg_parse(var);
    if (crit.reg >= 0)
        return;
    if (isdigit((unsigned char)var[0])) {
        crit.addr = strtoull(var, &end, 0);
        crit.size = 8;
        if (*end == ':' && isdigit((unsigned char)end[1]))
            crit.size = strtoull(end + 1, &end, 0);
        if (*end || crit.size == 0 || crit.size > 4096)
            cli_fail(path, "--var %s: not 0xADDR[:SIZE] (SIZE 1 to 4096)", var);
        return;
    }
    size_t n = strspn(var, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$@");
    if (n == 0 || (var[n] && var[n] != '+' && var[n] != ':'))
        cli_fail(path, "--var %s: not a register, an address or NAME[+OFFSET][:SIZE]", var);
}

static int next_event(void *reader, mr_event *ev)
{
    return cli_next(reader, ev);
}

int main(int argc, char **argv)
{
    char **args, err[512];
    cli_init(argv[0]);
    opts_parse(&spec, argc, argv, &args);
    if (!at || !var)
        cli_usage_error("--at and --var are both needed");
    if (strcmp(edges_from, "twpp") && strcmp(edges_from, "trace"))
        cli_usage_error("--edges: '%s' is neither twpp nor trace", edges_from);
    char *at_copy = strdup(at), *default_trace = NULL;
    const char *twpp_path = args[0];
    if (!at_copy)
        cli_fail(NULL, "out of memory");
    parse_at(at_copy);
    parse_var(twpp_path);
    if (!trace_path) {
        size_t n = strlen(twpp_path);
        if (n <= 5 || strcmp(twpp_path + n - 5, ".twpp"))
            cli_usage_error("%s: not named TRACE.twpp: say which trace with --trace", twpp_path);
        if (!(default_trace = strndup(twpp_path, n - 5)))
            cli_fail(NULL, "out of memory");
        trace_path = default_trace;
        /* Said here, not as the reader's bare "No such file": the user
         * never typed this name. */
        if (access(trace_path, F_OK) != 0)
            cli_fail(trace_path, "no such trace (by default the name of %s without .twpp): "
                     "say which trace it was built from with --trace", twpp_path);
    }
    if (db_path)
        pdb_session_start(&db, db_path);
    if (slice_run_open(&run, twpp_path, err, sizeof err) < 0)
        cli_fail(twpp_path, "%s", err);
    mr_reader *reader = cli_open_trace(trace_path);
    if (slice_run_pass(&run, reader, next_event, &crit, err, sizeof err) < 0)
        cli_fail(trace_path, "%s", err);
    if (!startup)
        run.main_step = slice_main_step(&run);
    if (!strcmp(edges_from, "twpp") && !(run.plus = slice_plus_open(&run, err, sizeof err)))
        cli_fail(twpp_path, "%s", err);
    slice_cfg *g = slice_cfg_new(&run);
    slice_set precise = {0}, edges = {0}, nodes = {0};
    if (!g)
        cli_fail(NULL, "out of memory");
    if (slice_precise(&run, g, &crit, &precise, err, sizeof err) < 0 ||
        (!precise_only && (slice_edges(&run, g, &crit, &edges, err, sizeof err) < 0 ||
                           slice_nodes(&run, g, &crit, &nodes, err, sizeof err) < 0)))
        cli_fail(twpp_path, "%s", slice_plus_error(&run) ? slice_plus_error(&run) : err);
    if (slice_report(stdout, &run, &crit, &precise, precise_only ? NULL : &edges,
                     precise_only ? NULL : &nodes) < 0)
        cli_fail(NULL, "out of memory");
    if (db_path &&
        (pdb_session_begin(&db, "slice", SLICE_TABLES, reader, trace_path, argc, argv) < 0 ||
         slice_store(db.db, db.run, &run, &crit, at, edges_from, &precise, precise_only ? NULL : &edges,
                     precise_only ? NULL : &nodes) < 0 ||
         pdb_session_commit(&db) < 0))
        cli_fail(db_path, "%s", pdb_session_error(&db));
    cli_flush_stdout();
    slice_set_free(&precise);
    slice_set_free(&edges);
    slice_set_free(&nodes);
    slice_cfg_free(g);
    slice_plus_free(run.plus);
    free(crit.writers);
    slice_run_close(&run);
    mr_reader_close(reader);
    free(default_trace);
    free(at_copy);
    return 0;
}
