/*
 * report.c: printing slices (see report.h).
 */
#include "slice/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slice/deps.h"

static const slice_run *sort_run;   /* qsort has no context argument */

static int by_line(const void *a, const void *b)
{
    const slice_line *x = &sort_run->lines[*(const uint32_t *)a];
    const slice_line *y = &sort_run->lines[*(const uint32_t *)b];
    int c = strcmp(x->function, y->function);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Lines with a non-zero count, sorted; NULL when out of memory. */
static uint32_t *sorted_lines(const slice_run *r, const uint64_t *count, uint32_t *n)
{
    uint32_t *v = malloc(((size_t)r->nlines + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (uint32_t l = 0; l < r->nlines; l++)
        if (count[l])
            v[(*n)++] = l;
    sort_run = r;
    qsort(v, *n, sizeof *v, by_line);
    return v;
}

static void print_line(FILE *out, const slice_line *l)
{
    if (l->line)
        fprintf(out, "  %s:%u", l->function, l->line);
    else
        fprintf(out, "  %s:?", l->function);
}

/* The precise slice: line instances per line. */
static int report_precise(FILE *out, const slice_run *r, const slice_criterion *c, const slice_set *s)
{
    uint64_t *count = calloc((size_t)r->nlines + 1, sizeof *count), nolines = 0, instances = 0;
    slice_set entries = {0};     /* line instances, by their first instruction instance */
    uint32_t n = 0, *order = NULL, crit;
    int rc = -1;
    if (!count || slice_set_dense(&entries, r, 1) < 0)
        goto done;
    const uint32_t *insn = slice_step_insns(r, c->step, &n);
    crit = r->insns[insn[c->index]].line;
    for (size_t k = 0; k < s->n; k++) {
        uint32_t line = r->insns[slice_key_insn(r, s->v[k])].line;
        int added = line == SLICE_NO_LINE ? 1 : slice_set_add(&entries, slice_line_entry(r, s->v[k]));
        if (added < 0)
            goto done;
        if (line == SLICE_NO_LINE)
            nolines++;
        else if (added)
            count[line]++, instances++;
    }
    if (crit != SLICE_NO_LINE && !count[crit])
        count[crit] = 1, instances++;               /* the criterion itself, as in Figure 5.8 */
    if (!(order = sorted_lines(r, count, &n)))
        goto done;
    fprintf(out, "precise dynamic slice (approach 3): %u lines, %" PRIu64 " line instances, %zu instruction instances\n",
            n, instances, s->n);
    for (uint32_t k = 0; k < n; k++) {
        print_line(out, &r->lines[order[k]]);
        fprintf(out, "  %" PRIu64 " of %" PRIu64 "\n", count[order[k]], r->lines[order[k]].instances);
    }
    if (nolines)
        fprintf(out, "  (no line)  %" PRIu64 " instruction instances\n", nolines);
    rc = 0;
done:
    free(count);
    free(order);
    slice_set_free(&entries);
    return rc;
}

/* An approximate slice: its lines, with how often each ran. */
static int report_static(FILE *out, const slice_run *r, const slice_criterion *c, const char *title,
                         const slice_set *s)
{
    uint64_t *count = calloc((size_t)r->nlines + 1, sizeof *count), nolines = 0;
    uint32_t n = 0, *order = NULL;
    if (!count)
        return -1;
    const uint32_t *insn = slice_step_insns(r, c->step, &n);
    uint32_t crit = r->insns[insn[c->index]].line;
    if (crit != SLICE_NO_LINE)
        count[crit] = 1;
    for (size_t k = 0; k < s->n; k++) {
        uint32_t line = r->insns[s->v[k]].line;
        if (line == SLICE_NO_LINE)
            nolines++;
        else
            count[line] = 1;
    }
    if (!(order = sorted_lines(r, count, &n))) {
        free(count);
        return -1;
    }
    fprintf(out, "%s: %u lines, %zu instructions\n", title, n, s->n);
    for (uint32_t k = 0; k < n; k++) {
        print_line(out, &r->lines[order[k]]);
        fprintf(out, "  ran %" PRIu64 "\n", r->lines[order[k]].instances);
    }
    if (nolines)
        fprintf(out, "  (no line)  %" PRIu64 " instructions\n", nolines);
    free(count);
    free(order);
    return 0;
}

int slice_report(FILE *out, const slice_run *r, const slice_criterion *c, const slice_set *precise,
                 const slice_set *edges, const slice_set *nodes)
{
    if (c->function)
        fprintf(out, "criterion: %s:%u#%" PRIu64 ", ", c->function, c->line, c->instance);
    else
        fprintf(out, "criterion: 0x%" PRIx64 "#%" PRIu64 ", ", c->insn_addr, c->instance);
    if (c->reg >= 0)
        fprintf(out, "register %s", slice_reg_name(c->reg));
    else
        fprintf(out, "%s = [0x%" PRIx64 ", +%" PRIu64 ")", c->var, c->addr, c->size);
    fprintf(out, " before step %u (of %" PRIu64 "), instruction %u\n", c->step, r->nsteps, c->index);
    if (report_precise(out, r, c, precise) < 0)
        return -1;
    if (edges && report_static(out, r, c, "executed edges (approach 2)", edges) < 0)
        return -1;
    if (nodes && report_static(out, r, c, "executed nodes (approach 1)", nodes) < 0)
        return -1;
    return 0;
}
