/* report.c: trace-values' text report; see report.h. */
#include "values/report.h"

#include <inttypes.h>
#include <stdlib.h>

#include "objects/groupname.h"
#include "values/select.h"
#include "values/widths.h"

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A value as people read it: signed decimal when small, else hex. */
static void print_value(FILE *out, uint64_t v)
{
    int64_t s = (int64_t)v;
    if (s > -100000 && s < 100000)
        fprintf(out, "%" PRId64, s);
    else
        fprintf(out, "0x%" PRIx64, v);
}

/* "  top: 0 52.0%, 8 10.0-12.5%" (sorts t): the share Space-Saving
 * guarantees, or the range it bounds; values not guaranteed 0.1% of the
 * accesses are left out (in a stream of many values, the table's last
 * entries are mostly error). */
static void print_top(FILE *out, topv *t, uint32_t k, uint32_t top, uint64_t valued)
{
    topv_sort(t, k);
    uint32_t shown = 0;
    for (uint32_t i = 0; i < t->n && shown < top; i++) {
        topv_entry e = topv_get(t, k, i);
        if ((e.count - e.error) * 1000 < valued)
            continue;
        fputs(shown++ ? ", " : "  top: ", out);
        print_value(out, e.value);
        if (e.error)
            fprintf(out, " %.1f-%.1f%%", pct(e.count - e.error, valued),
                    pct(e.count, valued));
        else
            fprintf(out, " %.1f%%", pct(e.count, valued));
    }
}

/* The classes of one row: "valued small% pointer% incompressible% range". */
static void print_counts(FILE *out, const values_counts *c)
{
    fprintf(out, " %12" PRIu64 " %12" PRIu64, c->accesses, c->valued);
    if (!c->valued) {
        fputs("      -      -      -  no value", out);
        return;
    }
    fprintf(out, " %5.1f%% %5.1f%% %5.1f%%  [", pct(c->cls[VC_SMALL], c->valued),
            pct(c->cls[VC_POINTER], c->valued), pct(c->cls[VC_INCOMPRESSIBLE], c->valued));
    print_value(out, (uint64_t)c->min);
    fputs(", ", out);
    print_value(out, (uint64_t)c->max);
    fputc(']', out);
}

/* Sort orders over indexes, by accesses (most first), then index. */
static const values *sort_p;
static int field_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t u = values_field_at(sort_p, x)->c.accesses, v = values_field_at(sort_p, y)->c.accesses;
    return u != v ? (u > v ? -1 : 1) : (x > y) - (x < y);
}
static int insn_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t u = values_insn_at((values *)sort_p, x)->c.accesses;
    uint64_t v = values_insn_at((values *)sort_p, y)->c.accesses;
    return u != v ? (u > v ? -1 : 1) : (x > y) - (x < y);
}

/* "group+offset" (or "group+offset..+4095" for a span) into buf. */
static const char *field_name(const values *p, const values_field *f,
                              const mr_reader *r, char *buf, size_t n)
{
    char g[256];
    obj_group_name(r, values_group_at(p, f->group), g, sizeof g);
    if (f->span == 1)
        snprintf(buf, n, "%s+%" PRIu64, g, f->offset);
    else
        snprintf(buf, n, "%s+%" PRIu64 "..+%" PRIu64, g, f->offset,
                 f->offset + f->span - 1);
    return buf;
}

static void print_summary(FILE *out, const values *p)
{
    const values_summary *s = values_get_summary(p);
    const values_counts *c = &s->in;
    char note[512];
    fprintf(out, "Value profile (%u-bit payload): %" PRIu64 " accesses to heap and static "
            "objects (%" PRIu64 " to stacks and unknown memory not profiled)\n",
            values_get_options(p)->payload, c->accesses, s->outside);
    fprintf(out, "  %" PRIu64 " with a value: small %.1f%%, pointer %.1f%%, "
            "incompressible %.1f%% (compressible %.1f%%)\n", c->valued,
            pct(c->cls[VC_SMALL], c->valued), pct(c->cls[VC_POINTER], c->valued),
            pct(c->cls[VC_INCOMPRESSIBLE], c->valued),
            pct(c->cls[VC_SMALL] + c->cls[VC_POINTER], c->valued));
    if (values_unseen_note(p, note, sizeof note))
        fprintf(out, "note: %s\n", note);
    fputs("\nFixed width L: required bits (Figure 6.4, 100% = every value in its word) "
          "and fitting accesses (Figure 6.5)\n", out);
    fputs("      L   bits  fitting\n", out);
    for (unsigned L = VALUES_WIDTH_STEP; L <= VALUES_MAX_WIDTH; L += VALUES_WIDTH_STEP) {
        values_width w;
        values_width_at(s, L, &w);
        fprintf(out, "  %5u %5.1f%%  %5.1f%%\n", L, pct(w.bits, w.base_bits),
                pct(w.fitting, w.valued));
    }
}

static void print_fields(FILE *out, values *p, const uint32_t *order, uint32_t n,
                         uint32_t rows, uint32_t top, const mr_reader *r)
{
    char name[320];
    fprintf(out, "\nFields by accesses (%u of %u)\n", n < rows ? n : rows, n);
    fprintf(out, "  %-40s %4s %12s %12s %6s %6s %6s  range\n", "field", "size",
            "accesses", "valued", "small", "ptr", "incomp");
    for (uint32_t k = 0; k < n && k < rows; k++) {
        values_field *f = values_field_at(p, order[k]);
        fprintf(out, "  %-40s %4u", field_name(p, f, r, name, sizeof name), f->c.size);
        print_counts(out, &f->c);
        print_top(out, values_field_top(p, order[k]), values_table_size(values_get_options(p)), top,
                  f->c.valued);
        fputc('\n', out);
    }
}

static void print_insns(FILE *out, values *p, uint32_t rows, uint32_t top,
                        const mr_reader *r)
{
    uint32_t n = 0, total = values_ninsns(p);
    uint32_t *order = malloc((total + 1) * sizeof *order);
    if (!order)
        return;
    for (uint32_t i = 0; i < total; i++)
        if (values_insn_at(p, i)->c.accesses)
            order[n++] = i;
    sort_p = p;
    qsort(order, n, sizeof *order, insn_order);
    char name[320];
    fprintf(out, "\nInstructions by accesses (%u of %u)\n", n < rows ? n : rows, n);
    fprintf(out, "  %-40s %12s %12s %6s %6s %6s  range\n", "instruction",
            "accesses", "valued", "small", "ptr", "incomp");
    for (uint32_t k = 0; k < n && k < rows; k++) {
        values_insn *in = values_insn_at(p, order[k]);
        insn_table_text(values_insns(p), r, order[k], name, sizeof name);
        fprintf(out, "  %-40s", name);
        print_counts(out, &in->c);
        print_top(out, values_insn_top(p, order[k]), values_table_size(values_get_options(p)), top,
                  in->c.valued);
        fputc('\n', out);
    }
    free(order);
}

static void print_selected(FILE *out, values *p, const uint32_t *order, uint32_t n,
                           uint32_t rows, uint32_t percent, const mr_reader *r)
{
    char name[320];
    uint64_t selected = 0, candidates = 0, heap = 0;
    int64_t saved = 0;
    uint32_t ng = values_ngroups(p);
    uint8_t *counted = calloc(ng + 1, 1);
    values_choice *all = values_choose_all(p, percent);
    if (!all) {
        free(counted);
        return;
    }
    fprintf(out, "\nFields to compress (at least %u%% of instances compressible), "
            "by accesses\n", percent);
    fprintf(out, "  %-40s %4s %10s %8s %10s %12s\n", "field", "size", "instances",
            "compr.", "objects", "saved bytes");
    for (uint32_t k = 0; k < n; k++) {
        values_choice c = all[order[k]];
        candidates += c.candidate;
        if (!c.selected)
            continue;
        const values_field *f = values_field_at(p, order[k]);
        if (selected++ < rows)
            fprintf(out, "  %-40s %4u %10" PRIu64 " %7.1f%% %10" PRIu64 " %12" PRId64 "\n",
                field_name(p, f, r, name, sizeof name), c.size, c.instances,
                100.0 * c.compressible, c.objects, c.saved);
        if (values_group_at(p, f->group)->kind != OBJ_HEAP)
            continue;
        saved += c.saved;
        if (counted && !counted[f->group]) {
            counted[f->group] = 1;
            heap += values_group_totals(p, f->group)->bytes;
        }
    }
    free(counted);
    free(all);
    if (!selected)
        fputs("  (none)\n", out);
    else if (selected > rows)
        fprintf(out, "  ... and %" PRIu64 " more\n", selected - rows);
    fprintf(out, "%" PRIu64 " of %" PRIu64 " candidate fields selected; their heap groups "
            "hold %" PRIu64 " bytes, a compressed layout saves %" PRId64 " (%.1f%%)\n",
            selected, candidates, heap, saved, heap ? 100.0 * (double)saved / (double)heap : 0.0);
}

int values_report(FILE *out, values *p, uint32_t rows, uint32_t top,
                  uint32_t percent, const mr_reader *r)
{
    uint32_t n = values_nfields(p);
    uint32_t *order = malloc((n + 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    sort_p = p;
    qsort(order, n, sizeof *order, field_order);
    print_summary(out, p);
    print_fields(out, p, order, n, rows, top, r);
    print_insns(out, p, rows, top, r);
    print_selected(out, p, order, n, rows, percent, r);
    free(order);
    return ferror(out) ? -1 : 0;
}
