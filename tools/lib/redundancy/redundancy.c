/* redundancy.c: the per-instruction result of either method (redundancy.h). */
#include "redundancy/redundancy.h"

#include <inttypes.h>
#include <stdlib.h>

#include "memrec_trace.h"

static int by_instruction(const void *a, const void *b)
{
    const redund_insn *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

void redund_result_sort(redund_result *r)
{
    if (r->n)
        qsort(r->insns, r->n, sizeof *r->insns, by_instruction);
}

void redund_result_free(redund_result *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        free(r->insns[i].where);
    free(r->insns);
    r->insns = NULL;
    r->n = 0;
}

double redund_percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* Most redundant instances (loads and stores) first, then by address. */
static int by_redundancy(const void *a, const void *b)
{
    const redund_insn *x = *(const redund_insn *const *)a, *y = *(const redund_insn *const *)b;
    uint64_t rx = x->redundant_loads + x->redundant_stores;
    uint64_t ry = y->redundant_loads + y->redundant_stores;
    if (rx != ry)
        return rx > ry ? -1 : 1;
    return by_instruction(x, y);
}

int redund_report(FILE *out, const redund_result *r, uint32_t top)
{
    redund_insn t = { 0 };
    uint32_t nloads = 0, nstores = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const redund_insn *x = &r->insns[i];
        t.loads += x->loads;
        t.redundant_loads += x->redundant_loads;
        t.unwritten_loads += x->unwritten_loads;
        t.stores += x->stores;
        t.redundant_stores += x->redundant_stores;
        nloads += x->loads > 0;
        nstores += x->stores > 0;
    }
    fprintf(out, "loads: %" PRIu64 " instances of %" PRIu32 " instructions, %" PRIu64
            " redundant (%.2f%%), %" PRIu64 " of memory no store wrote\n",
            t.loads, nloads, t.redundant_loads, redund_percent(t.redundant_loads, t.loads),
            t.unwritten_loads);
    fprintf(out, "stores: %" PRIu64 " instances of %" PRIu32 " instructions, %" PRIu64
            " redundant (%.2f%%)\n", t.stores, nstores, t.redundant_stores,
            redund_percent(t.redundant_stores, t.stores));
    fprintf(out, "%12s %12s %7s %12s %12s %12s %7s  %s\n", "loads", "redundant", "%",
            "unwritten", "stores", "redundant", "%", "instruction");
    const redund_insn **order = malloc((r->n ? r->n : 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < r->n; i++)
        order[i] = &r->insns[i];
    if (top)
        qsort(order, r->n, sizeof *order, by_redundancy);
    uint32_t shown = top && top < r->n ? top : r->n;
    for (uint32_t i = 0; i < shown; i++) {
        const redund_insn *x = order[i];
        fprintf(out, "%12" PRIu64 " %12" PRIu64 " %7.2f %12" PRIu64 " %12" PRIu64 " %12" PRIu64
                " %7.2f  %s@0x%" PRIx64 " (%s %" PRIu32 ")\n", x->loads, x->redundant_loads,
                redund_percent(x->redundant_loads, x->loads), x->unwritten_loads, x->stores,
                x->redundant_stores, redund_percent(x->redundant_stores, x->stores),
                x->where ? x->where : "?", x->addr, mr_access_kind_name(x->kind), x->size);
    }
    if (shown < r->n)
        fprintf(out, "... and %" PRIu32 " more instructions (--top=0 lists them all, by address)\n",
                r->n - shown);
    free(order);
    return ferror(out) ? -1 : 0;
}
