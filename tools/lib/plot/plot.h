/*
 * plot.h: pictures of a profile database with gnuplot. A plot NAME is two
 * files: its data query sql/queries/plot_NAME.sql (compiled in) and its
 * script plots/NAME.gp. The script's header may say
 *
 *     # title: Heap object lifetimes         the picture's title
 *     # empty: no heap objects in this run   the error when there are no rows
 *     # subtitle: group                      a column whose first value is
 *                                            added to the title
 *
 * so that a new analysis adds a plot without touching trace-plot. The
 * query's rows go to a tab-separated file with a header line; a column
 * named "label" also gets a "color" column (the label's index), and the
 * distinct labels are handed to the script (see plots/common.gp).
 *
 * Real programs have names of hundreds of characters (C++ templates) and
 * dozens of labels: every text cell and label is shortened to
 * PLOT_LABEL_MAX characters (the start and the end, where the line
 * number is; the full names stay in the database), the title to
 * PLOT_TITLE_MAX, and the script gets `keyorder`, the indices of the
 * labels with the most rows (ten at most), to draw the legend from, and
 * `nlabels`, how many there are.
 */
#ifndef MEMREC_PLOT_H
#define MEMREC_PLOT_H

#include <stddef.h>
#include "db/profiledb.h"
#include "db/query.h"

/* A directory holding NAME.gp: $MEMREC_PLOTS, else plots/ of the source
 * tree the command was built in, else ../share/memrec/plots beside the
 * command (installed), else ./plots. NULL when none has it. */
const char *plot_find_dir(const char *name, char *buf, size_t n);

/* Prints "  NAME  description" for every plot compiled in. */
void plot_list(FILE *out);

/* What to draw. */
typedef struct plot_request {
    const char *name;           /* the plot */
    const char *output;         /* .png or .svg */
    const pdb_param *params;    /* bound in the query (run, group, ...) */
    int nparams;
    const char *run;            /* the run, for the title (NULL: latest) */
} plot_request;

/* Is there such a plot, and is the output a .png or .svg? 0, or -1 with
 * the mistake in err (a usage error: nothing was opened). */
int plot_check(const plot_request *rq, char *err, size_t errlen);

/* Draws it from db. 0, or -1 with a one-line message in err. */
int plot_draw(pdb *db, const plot_request *rq, char *err, size_t errlen);

#define PLOT_LABEL_MAX 40
#define PLOT_TITLE_MAX 100

/* s into out, cut to PLOT_LABEL_MAX characters as "head...tail" when
 * longer (out needs PLOT_LABEL_MAX + 1 bytes). Returns out. */
const char *plot_short_label(const char *s, char *out, size_t n);

/* Appends "var='s'; " to out (a gnuplot string; quotes doubled). */
void plot_gp_var(char *out, size_t n, const char *var, const char *s);

#endif
