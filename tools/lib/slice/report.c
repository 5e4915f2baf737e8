/*
 * report.c: slices by source line (see report.h).
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

void slice_tally_free(slice_tally *t)
{
    free(t->instances);
    free(t->insns);
    free(t->order);
    memset(t, 0, sizeof *t);
}

/* The line of the criterion's instruction, or SLICE_NO_LINE. */
static uint32_t criterion_line(const slice_run *r, const slice_criterion *c)
{
    uint32_t n;
    const uint32_t *insn = slice_step_insns(r, c->step, &n);
    return c->index < n ? r->insns[insn[c->index]].line : SLICE_NO_LINE;
}

int slice_tally_make(const slice_run *r, const slice_criterion *c, const slice_set *s, int precise,
                     slice_tally *t)
{
    slice_set entries = {0};     /* line instances, by their first instruction instance */
    int rc = -1;
    memset(t, 0, sizeof *t);
    if (!(t->instances = calloc((size_t)r->nlines + 1, sizeof *t->instances)) ||
        !(t->insns = calloc((size_t)r->nlines + 1, sizeof *t->insns)) ||
        !(t->order = malloc(((size_t)r->nlines + 1) * sizeof *t->order)) ||
        (precise && slice_set_dense(&entries, r, 1) < 0))
        goto done;
    for (size_t k = 0; k < s->n; k++) {
        uint32_t line = r->insns[precise ? slice_key_insn(r, s->v[k]) : s->v[k]].line;
        if (line == SLICE_NO_LINE) {
            t->nolines++;
            continue;
        }
        t->insns[line]++;
        int added = precise ? slice_set_add(&entries, slice_line_entry(r, s->v[k])) : !t->instances[line];
        if (added < 0)
            goto done;
        t->instances[line] += (uint64_t)added;
        t->line_instances += (uint64_t)added;
    }
    uint32_t crit = criterion_line(r, c);
    if (crit != SLICE_NO_LINE && !t->instances[crit])
        t->instances[crit] = 1, t->line_instances++;
    for (uint32_t l = 0; l < r->nlines; l++)
        if (t->instances[l])
            t->order[t->nlines++] = l;
    sort_run = r;
    qsort(t->order, t->nlines, sizeof *t->order, by_line);
    rc = 0;
done:
    slice_set_free(&entries);
    if (rc < 0)
        slice_tally_free(t);
    return rc;
}

static void print_line(FILE *out, const slice_line *l)
{
    if (l->line)
        fprintf(out, "  %s:%u", l->function, l->line);
    else
        fprintf(out, "  %s:?", l->function);
}

static int report_one(FILE *out, const slice_run *r, const slice_criterion *c, const char *title,
                      const slice_set *s, int precise)
{
    slice_tally t;
    if (slice_tally_make(r, c, s, precise, &t) < 0)
        return -1;
    if (precise)
        fprintf(out, "%s: %u lines, %" PRIu64 " line instances, %zu instruction instances\n", title,
                t.nlines, t.line_instances, s->n);
    else
        fprintf(out, "%s: %u lines, %zu instructions\n", title, t.nlines, s->n);
    for (uint32_t k = 0; k < t.nlines; k++) {
        const slice_line *l = &r->lines[t.order[k]];
        print_line(out, l);
        if (precise)
            fprintf(out, "  %" PRIu64 " of %" PRIu64 "\n", t.instances[t.order[k]], l->instances);
        else
            fprintf(out, "  ran %" PRIu64 "\n", l->instances);
    }
    if (t.nolines)
        fprintf(out, "  (no line)  %" PRIu64 " %s\n", t.nolines,
                precise ? "instruction instances" : "instructions");
    slice_tally_free(&t);
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
    if (report_one(out, r, c, "precise dynamic slice (approach 3)", precise, 1) < 0)
        return -1;
    if (edges && report_one(out, r, c, "executed edges (approach 2)", edges, 0) < 0)
        return -1;
    if (nodes && report_one(out, r, c, "executed nodes (approach 1)", nodes, 0) < 0)
        return -1;
    return 0;
}
