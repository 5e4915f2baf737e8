/* plot.c: profile database to gnuplot pictures; see plot.h. */
#include "plot/plot.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/array.h"

extern char **environ;

/* The distinct labels of a query's rows, in order of first appearance. */
typedef struct labels {
    char **v;                   /* the full labels (told apart by these) */
    uint64_t *rows;             /* rows of each */
    size_t n, cap, caprows;
    char joined[16384];         /* shortened, space-separated, for the script */
} labels;

/* Labels in the legend at most: the ten colours of common.gp. */
#define PLOT_KEY_MAX 10

/* What the script's header says (plot.h). */
typedef struct gp_header {
    char title[256], empty[256], subtitle[64];
} gp_header;

/* A directory holding NAME.gp, or NULL. */
const char *plot_find_dir(const char *name, char *buf, size_t n)
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
void plot_gp_var(char *out, size_t n, const char *var, const char *s)
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

const char *plot_short_label(const char *s, char *out, size_t n)
{
    size_t len = strlen(s), head = (PLOT_LABEL_MAX - 3) / 2;
    size_t tail = PLOT_LABEL_MAX - 3 - head;
    if (len <= PLOT_LABEL_MAX || n <= PLOT_LABEL_MAX)
        snprintf(out, n, "%s", s);
    else    /* the head names it, the tail keeps its line number */
        snprintf(out, n, "%.*s...%s", (int)head, s, s + len - tail);
    return out;
}

/* Labels as one gnuplot word each, shortened. */
static void word_of(char *dst, size_t n, const char *s)
{
    char w[PLOT_LABEL_MAX + 1];
    plot_short_label(s, w, sizeof w);
    size_t i = 0;
    for (const char *p = w; *p && i + 1 < n; p++)
        dst[i++] = (*p == ' ' || *p == '\t' || *p == '\'' || *p == '"') ? '_' : *p;
    dst[i] = 0;
}

/* The label's index from 1, added if new; 0 when out of memory. */
static size_t label_index(labels *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) {
            l->rows[i]++;
            return i + 1;
        }
    if (ARRAY_FIT(l->v, l->cap, l->n + 1) < 0 ||
        ARRAY_FIT(l->rows, l->caprows, l->n + 1) < 0 || !(l->v[l->n] = strdup(s)))
        return 0;
    l->rows[l->n++] = 1;
    /* every label gets its word, so word(labels, i) is always label i */
    char w[PLOT_LABEL_MAX + 1];
    word_of(w, sizeof w, s);
    size_t len = strlen(l->joined);
    if (len + strlen(w) + 2 < sizeof l->joined)
        snprintf(l->joined + len, sizeof l->joined - len, "%s%s", len ? " " : "", w);
    else if (len + 3 < sizeof l->joined)
        snprintf(l->joined + len, sizeof l->joined - len, " ?");
    return l->n;
}

/* "3 1 7": the indices of the labels with the most rows, most first, at
 * most PLOT_KEY_MAX: the legend shows these, not a wall of sixty. */
static void key_order(const labels *l, char *out, size_t n)
{
    size_t picked[PLOT_KEY_MAX], np = 0, used = 0;
    out[0] = 0;
    while (np < PLOT_KEY_MAX) {
        size_t best = 0;
        for (size_t i = 1; i <= l->n; i++) {
            int taken = 0;
            for (size_t k = 0; k < np; k++)
                taken |= picked[k] == i;
            if (!taken && (!best || l->rows[i - 1] > l->rows[best - 1]))
                best = i;
        }
        if (!best)
            break;
        picked[np++] = best;
        int k = snprintf(out + used, n - used, "%s%zu", used ? " " : "", best);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}

static void labels_free(labels *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->rows);
}

/* "# key: value" lines at the top of the script. */
static void read_header(const char *script, gp_header *h)
{
    char line[512];
    FILE *f = fopen(script, "r");
    memset(h, 0, sizeof *h);
    while (f && fgets(line, sizeof line, f) && line[0] == '#') {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "# title: ", 9) == 0)
            snprintf(h->title, sizeof h->title, "%.255s", line + 9);
        else if (strncmp(line, "# empty: ", 9) == 0)
            snprintf(h->empty, sizeof h->empty, "%.255s", line + 9);
        else if (strncmp(line, "# subtitle: ", 12) == 0)
            snprintf(h->subtitle, sizeof h->subtitle, "%.63s", line + 12);
    }
    if (f)
        fclose(f);
}

/* Runs the query into the data file: its rows, the labels, and the value
 * of column `sub` in the first row (into subval). Returns the number of
 * rows, or -1 with err set. */
static int64_t write_data(pdb *db, const char *sql, const plot_request *rq,
                          const char *datafile, labels *lab, const char *sub,
                          char *subval, size_t subn, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    sqlite3 *h = pdb_sqlite(db);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "query: %s", sqlite3_errmsg(h));
        return -1;
    }
    pdb_bind_params(st, rq->params, rq->nparams);
    FILE *f = fopen(datafile, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", datafile, strerror(errno));
        sqlite3_finalize(st);
        return -1;
    }
    int nc = sqlite3_column_count(st), label_col = -1, sub_col = -1;
    for (int c = 0; c < nc; c++) {
        const char *name = sqlite3_column_name(st, c);
        fprintf(f, "%s%s", c ? "\t" : "", name);
        if (strcmp(name, "label") == 0)
            label_col = c;
        if (*sub && strcmp(name, sub) == 0)
            sub_col = c;
    }
    fprintf(f, "%s\n", label_col >= 0 ? "\tcolor" : "");
    int64_t rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            char cell[PLOT_LABEL_MAX + 1];
            /* names as tic labels: shortened (the database keeps them) */
            fprintf(f, "%s%s", c ? "\t" : "", plot_short_label(v ? v : "", cell, sizeof cell));
            if (c == sub_col && rows == 0)
                snprintf(subval, subn, "%s", cell);
        }
        if (label_col >= 0) {
            const char *v = (const char *)sqlite3_column_text(st, label_col);
            size_t idx = label_index(lab, v ? v : "?");
            if (!idx)
                rc = SQLITE_NOMEM;
            fprintf(f, "\t%zu", idx);
        }
        fputc('\n', f);
        rows++;
    }
    if (rc != SQLITE_DONE)
        snprintf(err, errlen, "query: %s", sqlite3_errmsg(h));
    sqlite3_finalize(st);
    if (fclose(f) != 0 && rc == SQLITE_DONE) {
        snprintf(err, errlen, "%s: cannot write", datafile);
        return -1;
    }
    return rc == SQLITE_DONE ? rows : -1;
}

/* "WHAT - run 3: prog args (trace.mr)" for the title; -1 when there is no
 * such run. */
static int run_title(pdb *db, const char *run, const char *what, char *buf,
                     size_t n)
{
    sqlite3_stmt *st;
    int found = 0;
    snprintf(buf, n, "%s", what);
    if (sqlite3_prepare_v2(pdb_sqlite(db),
                           "SELECT id, coalesce(command, ''), trace FROM runs "
                           "WHERE id = coalesce(?1, (SELECT max(id) FROM runs))",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (run)
        sqlite3_bind_int64(st, 1, strtoll(run, NULL, 10));
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(buf, n, "%s - run %lld: %s (%s)", what,
                 (long long)sqlite3_column_int64(st, 0),
                 (const char *)sqlite3_column_text(st, 1),
                 (const char *)sqlite3_column_text(st, 2));
        found = 1;
    }
    sqlite3_finalize(st);
    return found ? 0 : -1;
}

/* gnuplot -e VARS SCRIPT; its exit status, or -1 with err set. */
static int run_gnuplot(const char *vars, const char *script, char *err,
                       size_t errlen)
{
    pid_t pid;
    char *args[] = {"gnuplot", "-e", (char *)vars, (char *)script, NULL};
    int e = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
    int status;
    if (e) {
        snprintf(err, errlen, "cannot run gnuplot: %s", strerror(e));
        return -1;
    }
    if (waitpid(pid, &status, 0) < 0) {
        snprintf(err, errlen, "gnuplot: %s", strerror(errno));
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

void plot_list(FILE *out)
{
    for (const mr_sql_query *q = mr_sql_queries; q->name; q++) {
        if (strncmp(q->name, "plot_", 5) != 0)
            continue;
        /* "-- plot_NAME: data of trace-plot NAME: what it shows" */
        const char *d = strstr(q->text, ": ");
        d = d ? strstr(d + 2, ": ") : NULL;
        const char *e = d ? strchr(d, '\n') : NULL;
        fprintf(out, "  %-12s %.*s\n", q->name + 5, e ? (int)(e - d - 2) : 0,
                d ? d + 2 : "");
    }
}

/* The drawing itself, with the data file in tmpdir. */
static int draw(pdb *db, const plot_request *rq, const char *sql,
                const char *plotdir, const char *tmpdir, char *err,
                size_t errlen)
{
    char script[PATH_MAX + 64], datafile[PATH_MAX], title[1024], sub[512] = "";
    char vars[16384] = "";
    const char *out = rq->output;
    size_t ol = strlen(out);
    gp_header h;
    labels lab = {0};
    snprintf(script, sizeof script, "%s/%s.gp", plotdir, rq->name);
    snprintf(datafile, sizeof datafile, "%s/data.tsv", tmpdir);
    read_header(script, &h);
    if (run_title(db, rq->run, h.title[0] ? h.title : rq->name, title, sizeof title) < 0) {
        snprintf(err, errlen, rq->run ? "no run %s" : "no runs%s", rq->run ? rq->run : "");
        return -1;
    }
    int64_t rows = write_data(db, sql, rq, datafile, &lab, h.subtitle, sub,
                              sizeof sub, err, errlen);
    if (rows == 0)
        snprintf(err, errlen, "nothing to plot: %s",
                 h.empty[0] ? h.empty : "the query found no rows");
    if (rows <= 0) {
        labels_free(&lab);
        return -1;
    }
    /* long command lines are cut, before the subtitle (which names what
     * is drawn) is added */
    if (strlen(title) > PLOT_TITLE_MAX)
        snprintf(title + PLOT_TITLE_MAX - 3, sizeof title - PLOT_TITLE_MAX + 3, "...");
    if (sub[0]) {
        size_t tl = strlen(title);
        snprintf(title + tl, sizeof title - tl, " - %s %s", h.subtitle, sub);
    }
    plot_gp_var(vars, sizeof vars, "datafile", datafile);
    plot_gp_var(vars, sizeof vars, "outfile", out);
    plot_gp_var(vars, sizeof vars, "termtype", strcmp(out + ol - 4, ".svg") ? "png" : "svg");
    plot_gp_var(vars, sizeof vars, "plotdir", plotdir);
    char keys[256], nlabels[24];
    key_order(&lab, keys, sizeof keys);
    snprintf(nlabels, sizeof nlabels, "%zu", lab.n);
    plot_gp_var(vars, sizeof vars, "labels", lab.joined);
    plot_gp_var(vars, sizeof vars, "keyorder", keys);
    plot_gp_var(vars, sizeof vars, "nlabels", nlabels);
    plot_gp_var(vars, sizeof vars, "plottitle", title);
    labels_free(&lab);
    int rc = run_gnuplot(vars, script, err, errlen);
    struct stat sb;
    if (rc < 0)
        return -1;
    if (rc != 0 || stat(out, &sb) != 0 || sb.st_size == 0) {
        snprintf(err, errlen, "%s: gnuplot failed (status %d)", out, rc);
        return -1;
    }
    return 0;
}

/* The plot's query, or NULL. */
static const mr_sql_query *plot_query(const char *name)
{
    char qname[128];
    snprintf(qname, sizeof qname, "plot_%s", name);
    return pdb_find_query(qname);
}

int plot_check(const plot_request *rq, char *err, size_t errlen)
{
    size_t ol = strlen(rq->output);
    if (!plot_query(rq->name)) {
        snprintf(err, errlen, "unknown plot '%s' (see 'trace-plot list')", rq->name);
        return -1;
    }
    if (ol <= 4 || (strcmp(rq->output + ol - 4, ".png") &&
                    strcmp(rq->output + ol - 4, ".svg"))) {
        snprintf(err, errlen, "the output must end in .png or .svg: '%s'", rq->output);
        return -1;
    }
    return 0;
}

int plot_draw(pdb *db, const plot_request *rq, char *err, size_t errlen)
{
    char plotdir[PATH_MAX], tmpdir[] = "/tmp/trace-plot.XXXXXX";
    const mr_sql_query *q = plot_query(rq->name);
    if (plot_check(rq, err, errlen) < 0)
        return -1;
    if (!plot_find_dir(rq->name, plotdir, sizeof plotdir)) {
        snprintf(err, errlen, "cannot find the gnuplot script %s.gp (set MEMREC_PLOTS)",
                 rq->name);
        return -1;
    }
    if (!mkdtemp(tmpdir)) {
        snprintf(err, errlen, "cannot make a temporary directory: %s", strerror(errno));
        return -1;
    }
    int rc = draw(db, rq, q->text, plotdir, tmpdir, err, errlen);
    char datafile[sizeof tmpdir + 16];
    snprintf(datafile, sizeof datafile, "%s/data.tsv", tmpdir);
    unlink(datafile);
    rmdir(tmpdir);
    return rc;
}
