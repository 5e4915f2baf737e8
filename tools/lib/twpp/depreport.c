/* depreport.c: trace-twpp --dependences, a load point's edges read from
 * the file alone (see report.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "twpp/edges.h"
#include "twpp/report.h"

/* An access point as people read it: "AN function:line". */
static void print_point(FILE *out, twpp_file *f, uint32_t g)
{
    const twpp_point *pt = twpp_file_point(f, g);
    fprintf(out, "A%" PRIu32 " %s:%" PRIu32, g + 1, twpp_file_model(f)->functions[pt->fn].name, pt->line);
}

static const char *kind_name(uint32_t kind)
{
    return kind == MR_LOAD ? "load" : kind == MR_STORE ? "store" : "modify";
}

/* One load point: its dictionary entry and counts, then its edges. */
static int print_load(FILE *out, twpp_file *f, uint32_t g, char *err, size_t errlen)
{
    const twpp_point *pt = twpp_file_point(f, g);
    twpp_edge_iter *it = twpp_edges_open(f, g, err, errlen);
    if (!it)
        return -1;
    fputs("load point ", out);
    print_point(out, f, g);
    fprintf(out, " (0x%" PRIx64 " %s %" PRIu32 " bytes, b%" PRIu32 " instruction %" PRIu32 "%s",
            pt->insn_addr, kind_name(pt->kind), pt->size, pt->symbol + 1, pt->instr, pt->single ? ", single address" : "");
    if (pt->single)
        fprintf(out, " 0x%" PRIx64, pt->addr);
    fprintf(out, "): %" PRIu64 " loads, %" PRIu64 " edges, %" PRIu64 " dropped, %" PRIu64
            " never written; %" PRIu64 " grammar symbols\n", pt->loads, pt->edges, pt->dropped,
            pt->loads - pt->edges - pt->dropped, twpp_edges_items(it));
    twpp_edge e;
    int r;
    while ((r = twpp_edges_next(it, &e)) > 0) {
        fprintf(out, "  [<A%" PRIu32 ",%" PRIu32 ",%" PRIu32 ">, <A%" PRIu32 ",%" PRIu32 ",%" PRIu32
                ">, %" PRIu32 "]  ", e.load.point + 1, e.load.fc, e.load.bc, e.store.point + 1,
                e.store.fc, e.store.bc, e.sn);
        print_point(out, f, e.store.point);
        fputc('\n', out);
    }
    twpp_edges_close(it);
    if (r < 0)
        return snprintf(err, errlen, "corrupt dependence grammars of A%" PRIu32, g + 1), -1;
    return 0;
}

int twpp_print_dependences(FILE *out, twpp_file *f, const char *spec, char *err, size_t errlen)
{
    uint32_t *g = NULL;
    if (twpp_load_points(f, err, errlen) < 0)
        return -1;
    int64_t n = twpp_find_loads(f, spec, &g);
    if (n < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    if (n == 0) {
        free(g);
        return snprintf(err, errlen, "no load point '%s'", spec), -1;
    }
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++)
        rc = print_load(out, f, g[i], err, errlen);
    free(g);
    if (rc == 0 && ferror(out))
        return snprintf(err, errlen, "cannot write"), -1;
    return rc;
}
