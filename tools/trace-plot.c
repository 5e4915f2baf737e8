/*
 * trace-plot: pictures of an object profile. Runs the plot's data query
 * (sql/queries/plot_NAME.sql, compiled in) on a profile database, writes
 * the rows to a temporary file and hands it to gnuplot with the script
 * plots/NAME.gp.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cli.h"
#include "db/profiledb.h"
#include "db/sql_embedded.h"

extern char **environ;

static const char usage_text[] =
    "Usage: trace-plot NAME --db FILE [--run=N] [--group=NAME] [-o OUT.png|OUT.svg]\n"
    "Draw a picture of an object profile (trace-objects --db) with gnuplot.\n"
    "\n"
    "  lifetimes   heap object lifetimes over time, one lane per allocation site\n"
    "  offsets     sampled accesses to one group: object and offset against time\n"
    "              (a linked-list walk, an array sweep); --group picks the group\n"
    "  groups      the groups with the most traffic, loads and stores\n"
    "  leap_errors LEAP's and Connors' dependence frequency errors against the\n"
    "              exact profiler (trace-leap, trace-deps --db; Figures 6-8)\n"
    "  leap_strides LEAP's stride score per run (Figure 9)\n"
    "\n"
    "  --db FILE       the profile database\n"
    "  --run=N         the run (default: the latest)\n"
    "  --group=NAME    offsets: the group, by name as trace-db shows it\n"
    "                  (default: the hottest heap group)\n"
    "  --limit=N       lifetimes, groups: how many groups\n"
    "  -o, --output=F  the picture, .png or .svg (default NAME.png)\n"
    "  -h, --help      this help\n"
    "      --version   print the version\n"
    "\n"
    "The gnuplot scripts are found in $MEMREC_PLOTS, else in plots/ of the\n"
    "source tree the command was built in (../../plots or ../../../plots from\n"
    "the command), else in ../share/memrec/plots (installed), else ./plots.\n"
    "Exit status: 0, 1 on a database, data or gnuplot error, 2 for bad usage.\n";

static const char *db_path;
#define PLOT_NAMES "lifetimes, offsets, groups, leap_errors or leap_strides"

static char tmpdir[] = "/tmp/trace-plot.XXXXXX";
static char datafile[PATH_MAX];
static int have_tmpdir;

static void cleanup(void)
{
    if (datafile[0])
        unlink(datafile);
    if (have_tmpdir)
        rmdir(tmpdir);
}

/* A directory holding NAME.gp, or NULL. */
static const char *find_plots(const char *name, char *buf, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *env = getenv("MEMREC_PLOTS");
    const char *rel[] = {"/../../plots", "/../../../plots", "/../share/memrec/plots"};
    char cand[PATH_MAX], gp[PATH_MAX + 64];
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        snprintf(gp, sizeof gp, "%s/%s.gp", buf, name);
        return access(gp, R_OK) == 0 ? buf : NULL;
    }
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
            snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
            snprintf(gp, sizeof gp, "%s/%s.gp", cand, name);
            if (access(gp, R_OK) == 0 && realpath(cand, buf))
                return buf;
        }
    }
    snprintf(gp, sizeof gp, "plots/%s.gp", name);
    if (access(gp, R_OK) == 0 && realpath("plots", buf))
        return buf;
    return NULL;
}

/* Appends s to a gnuplot single-quoted string (a quote is doubled). */
static void gp_quote(char *out, size_t n, const char *var, const char *s)
{
    size_t used = strlen(out);
    used += (size_t)snprintf(out + used, n - used, "%s='", var);
    for (; *s && used + 3 < n; s++) {
        if (*s == '\'')
            out[used++] = '\'';
        out[used++] = *s == '\n' ? ' ' : *s;
    }
    snprintf(out + used, n - used, "'; ");
}

/* Labels as one gnuplot word each. */
static void word_of(char *dst, size_t n, const char *s)
{
    size_t i = 0;
    for (; *s && i + 1 < n; s++)
        dst[i++] = (*s == ' ' || *s == '\t' || *s == '\'' || *s == '"') ? '_' : *s;
    dst[i] = 0;
}

typedef struct labels {
    char **v;
    size_t n, cap;
    char joined[8192];
} labels;

static size_t label_index(labels *l, const char *s)
{
    char w[256];
    word_of(w, sizeof w, s);
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], w) == 0)
            return i + 1;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            cli_fail(NULL, "out of memory");
    }
    l->v[l->n++] = strdup(w);
    size_t len = strlen(l->joined);
    if (len + strlen(w) + 2 < sizeof l->joined)
        snprintf(l->joined + len, sizeof l->joined - len, "%s%s", len ? " " : "", w);
    return l->n;
}

/* Runs the query into the data file; returns the number of rows. */
static uint64_t write_data(pdb *db, const char *sql, const char *const *pn,
                           const char *const *pv, int np, labels *lab)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(pdb_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        cli_fail(db_path, "query: %s", sqlite3_errmsg(pdb_sqlite(db)));
    for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++) {
        const char *name = sqlite3_bind_parameter_name(st, i);
        for (int k = 0; name && k < np; k++)
            if (pv[k] && strcmp(name + 1, pn[k]) == 0) {
                char *end;
                long long v = strtoll(pv[k], &end, 10);
                if (*pv[k] && !*end)
                    sqlite3_bind_int64(st, i, v);
                else
                    sqlite3_bind_text(st, i, pv[k], -1, SQLITE_TRANSIENT);
            }
    }
    FILE *f = fopen(datafile, "w");
    if (!f)
        cli_fail(datafile, "%s", strerror(errno));
    int nc = sqlite3_column_count(st), label_col = -1;
    for (int c = 0; c < nc; c++) {
        fprintf(f, "%s%s", c ? "\t" : "", sqlite3_column_name(st, c));
        if (strcmp(sqlite3_column_name(st, c), "label") == 0)
            label_col = c;
    }
    fprintf(f, "%s\n", label_col >= 0 ? "\tcolor" : "");
    uint64_t rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            fprintf(f, "%s%s", c ? "\t" : "", v ? v : "");
        }
        if (label_col >= 0) {
            const char *v = (const char *)sqlite3_column_text(st, label_col);
            fprintf(f, "\t%zu", label_index(lab, v ? v : "?"));
        }
        fputc('\n', f);
        rows++;
    }
    if (rc != SQLITE_DONE)
        cli_fail(db_path, "query: %s", sqlite3_errmsg(pdb_sqlite(db)));
    sqlite3_finalize(st);
    if (fclose(f) != 0)
        cli_fail(datafile, "cannot write");
    return rows;
}

/* "run 3: prog args (trace.mr)" for the title. */
static void run_title(pdb *db, const char *run, const char *what, char *buf,
                      size_t n)
{
    sqlite3_stmt *st;
    snprintf(buf, n, "%s", what);
    if (sqlite3_prepare_v2(pdb_sqlite(db),
                           "SELECT id, coalesce(command, ''), trace FROM runs "
                           "WHERE id = coalesce(?1, (SELECT max(id) FROM runs))",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    if (run)
        sqlite3_bind_int64(st, 1, strtoll(run, NULL, 10));
    if (sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, n, "%s - run %lld: %s (%s)", what,
                 (long long)sqlite3_column_int64(st, 0),
                 (const char *)sqlite3_column_text(st, 1),
                 (const char *)sqlite3_column_text(st, 2));
    else {
        sqlite3_finalize(st);
        cli_fail(db_path, run ? "no run %s" : "no runs%s", run ? run : "");
    }
    sqlite3_finalize(st);
}

static int run_gnuplot(const char *vars, const char *script)
{
    pid_t pid;
    char *args[] = {"gnuplot", "-e", (char *)vars, (char *)script, NULL};
    int err = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
    if (err)
        cli_fail(NULL, "cannot run gnuplot: %s", strerror(err));
    int status;
    if (waitpid(pid, &status, 0) < 0)
        cli_fail(NULL, "gnuplot: %s", strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"run", required_argument, NULL, 'r'},
        {"group", required_argument, NULL, 'g'},
        {"limit", required_argument, NULL, 'l'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *run = NULL, *group = NULL, *limit = NULL, *out = NULL;
    int c;
    cli_init(argv[0]);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'r': cli_parse_u64("--run", optarg); run = optarg; break;
        case 'g': group = optarg; break;
        case 'l': cli_parse_u64("--limit", optarg); limit = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(usage_text, stdout); return 0;
        case 'V': cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        cli_usage_error("need one plot name: " PLOT_NAMES);
    const char *name = argv[optind];
    if (strcmp(name, "lifetimes") && strcmp(name, "offsets") && strcmp(name, "groups") &&
        strcmp(name, "leap_errors") && strcmp(name, "leap_strides"))
        cli_usage_error("unknown plot '%s': " PLOT_NAMES, name);
    if (!db_path)
        cli_usage_error("--db FILE is needed");
    char outbuf[PATH_MAX];
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "%s.png", name);
        out = outbuf;
    }
    size_t ol = strlen(out);
    const char *term = NULL;
    if (ol > 4 && strcmp(out + ol - 4, ".png") == 0)
        term = "png";
    else if (ol > 4 && strcmp(out + ol - 4, ".svg") == 0)
        term = "svg";
    else
        cli_usage_error("the output must end in .png or .svg: '%s'", out);

    char plotdir[PATH_MAX], script[PATH_MAX + 64];
    if (!find_plots(name, plotdir, sizeof plotdir))
        cli_fail(NULL, "cannot find the gnuplot script %s.gp (set MEMREC_PLOTS)", name);
    snprintf(script, sizeof script, "%s/%s.gp", plotdir, name);

    char qname[64];
    snprintf(qname, sizeof qname, "plot_%s", name);
    const char *sql = NULL;
    for (const mr_sql_query *q = mr_sql_queries; q->name; q++)
        if (strcmp(q->name, qname) == 0)
            sql = q->text;
    if (!sql)
        cli_fail(NULL, "no query %s compiled in", qname);

    char *err = NULL;
    pdb *db = pdb_open(db_path, PDB_READONLY, &err);
    if (!db) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(db_path, "%s", msg);
    }
    char title[1024];
    const char *what = !strcmp(name, "lifetimes") ? "Heap object lifetimes"
                       : !strcmp(name, "offsets") ? "Accesses to one group"
                       : !strcmp(name, "leap_errors") ? "Dependence frequency errors"
                       : !strcmp(name, "leap_strides") ? "LEAP stride score"
                                                  : "Groups by memory traffic";
    run_title(db, run, what, title, sizeof title);

    if (!mkdtemp(tmpdir))
        cli_fail(NULL, "cannot make a temporary directory: %s", strerror(errno));
    have_tmpdir = 1;
    atexit(cleanup);
    snprintf(datafile, sizeof datafile, "%s/data.tsv", tmpdir);
    const char *pn[] = {"run", "group", "limit"};
    const char *pv[] = {run, group, limit};
    labels lab = {0};
    uint64_t rows = write_data(db, sql, pn, pv, 3, &lab);
    pdb_close(db);
    if (!rows)
        cli_fail(db_path, "nothing to plot: %s", !strcmp(name, "lifetimes")
                     ? "no heap objects in this run"
                     : !strcmp(name, "offsets") ? (group ? "no sampled accesses to that group"
                                                         : "no sampled accesses to any group")
                                                : "no accesses in this run");
    char vars[16384] = "";
    gp_quote(vars, sizeof vars, "datafile", datafile);
    gp_quote(vars, sizeof vars, "outfile", out);
    gp_quote(vars, sizeof vars, "termtype", term);
    gp_quote(vars, sizeof vars, "plotdir", plotdir);
    gp_quote(vars, sizeof vars, "labels", lab.joined);
    if (!strcmp(name, "offsets")) {
        /* name the group in the title */
        FILE *f = fopen(datafile, "r");
        char line[4096];
        if (f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f)) {
            char *g = line;
            for (int k = 0; k < 4 && g; k++)
                g = strchr(g, '\t') ? strchr(g, '\t') + 1 : NULL;
            if (g) {
                char *tab = strchr(g, '\t');
                if (tab)
                    *tab = 0;
                size_t tl = strlen(title);
                snprintf(title + tl, sizeof title - tl, " - group %s", g);
            }
        }
        if (f)
            fclose(f);
    }
    gp_quote(vars, sizeof vars, "plottitle", title);
    for (size_t i = 0; i < lab.n; i++)
        free(lab.v[i]);
    free(lab.v);
    int rc = run_gnuplot(vars, script);
    struct stat sb;
    if (rc != 0 || stat(out, &sb) != 0 || sb.st_size == 0)
        cli_fail(out, "gnuplot failed (status %d)", rc);
    printf("%s\n", out);
    return 0;
}
