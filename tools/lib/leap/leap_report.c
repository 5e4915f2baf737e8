/*
 * leap_report.c: trace-leap's text output (see leap_report.h).
 */
#include <inttypes.h>
#include <string.h>

#include "leap/leap_report.h"
#include "objects/groupname.h"
#include "base/symbolize.h"

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0; }

static void print_summary(FILE *f, const leap *l)
{
    leap_summary s;
    leap_summarise(l, &s);
    fprintf(f, "summary\taccesses %" PRIu64 " captured %" PRIu64 " (%.1f%%)"
               "\tinstructions %" PRIu32 " captured %" PRIu32 " (%.1f%%)"
               "\tstreams %" PRIu32 " lmads %" PRIu64 " overflowed %" PRIu32
               "\tprofile_bytes %" PRIu64 " trace_bytes %" PRIu64
               " compression %.1fx\n",
            s.accesses, s.captured, pct(s.captured, s.accesses),
            s.instructions, s.insns_captured,
            pct(s.insns_captured, s.instructions), s.streams, s.lmads,
            s.overflowed, s.profile_bytes, s.trace_bytes,
            s.profile_bytes ? (double)s.trace_bytes / (double)s.profile_bytes : 0);
}

static void print_stream(FILE *f, const leap_stream *st, const leap_names *nm)
{
    char insn[SYM_BUF + 64], group[SYM_BUF];
    insn_table_text(nm->insns, nm->reader, st->insn, insn, sizeof insn);
    obj_group_name(nm->reader, objmap_group(nm->map, st->group), group,
                        sizeof group);
    fprintf(f, "lmad\t%s\t%s\t", insn, group);
    for (uint32_t i = 0; i < st->lmads.n; i++) {
        const lmad *m = &st->lmads.lmads[i];
        fprintf(f, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 "]+[%" PRId64 ",%"
                   PRId64 ",%" PRId64 "]x%" PRIu64, i ? " " : "",
                m->start[0], m->start[1], m->start[2], m->stride[0],
                m->stride[1], m->stride[2], m->count);
        for (uint32_t j = 0; j < m->nouter; j++)    /* folded loop levels */
            fprintf(f, "+[%" PRId64 ",%" PRId64 ",%" PRId64 "]x%" PRIu64,
                    m->outer[j].stride[0], m->outer[j].stride[1],
                    m->outer[j].stride[2], m->outer[j].count);
    }
    fputc('\n', f);
    const lmad_summary *o = &st->lmads.over;
    if (!o->count)
        return;
    fprintf(f, "over\t%s\t%s\t%" PRIu64, insn, group, o->count);
    for (int d = 0; d < LEAP_DIMS; d++)
        fprintf(f, "\t%" PRId64 "..%" PRId64 "/%" PRIu64, o->min[d], o->max[d],
                o->gran[d]);
    fputc('\n', f);
}

int leap_report(FILE *f, const leap *l, const leap_mdf *mdf,
                const leap_stride *strides, uint32_t nstrides,
                const leap_names *names, int lmads)
{
    char a[SYM_BUF + 64], b[SYM_BUF + 64];
    print_summary(f, l);
    for (uint32_t i = 0; i < mdf->n; i++) {
        const leap_dep *d = &mdf->deps[i];
        uint64_t sample = mdf->sampled[d->load];
        fprintf(f, "dep\t%s\t%s\t%.4f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "%s\n",
                insn_table_text(names->insns, names->reader, d->store, a, sizeof a),
                insn_table_text(names->insns, names->reader, d->load, b, sizeof b),
                leap_mdf_frequency(mdf, d), d->conflicts, sample,
                leap_insn_get(l, d->load)->executions, sample ? "" : "\tguess");
    }
    for (uint32_t i = 0; i < nstrides; i++) {
        const leap_stride *s = &strides[i];
        if (!s->steps)
            continue;
        fprintf(f, "stride\t%s\t%" PRId64 "\t%.4f\t%" PRIu64 "\t%s\n",
                insn_table_text(names->insns, names->reader, s->insn, a, sizeof a),
                s->stride, s->share, s->steps, s->strongly ? "strongly" : "weakly");
    }
    for (uint32_t i = 0; lmads && i < leap_nstreams(l); i++)
        print_stream(f, leap_stream_get(l, i), names);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
