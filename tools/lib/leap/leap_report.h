/*
 * leap_report.h: trace-leap's text output. Tab-separated lines, the first
 * field saying what the line is:
 *
 *   summary  accesses N captured N (P%) instructions N captured N (P%)
 *            streams N lmads N overflowed N profile_bytes N trace_bytes N
 *            compression Rx
 *   dep      STORE LOAD frequency conflicts sampled executions [guess]
 *            (guess, with sampled 0: no point of the load was decided)
 *   stride   INSN stride share steps strongly|weakly
 *   lmad     INSN GROUP [object,offset,time]+[stride...]xCOUNT[+[stride...]xCOUNT]... ...
 *            (--lmads; one +[...]xCOUNT per folded outer level)
 *   over     INSN GROUP count min..max/gran per dimension     (--lmads)
 *
 * An instruction is written function:line@0xADDRESS (kind size), e.g.
 * main:12@0x401136(load 4).
 */
#ifndef MEMREC_LEAP_REPORT_H
#define MEMREC_LEAP_REPORT_H

#include <stdio.h>
#include "leap/leap_store.h"

/* Writes the report; lmads: also every stream's LMADs. 0, or -1 on a
 * write error. */
int leap_report(FILE *f, const leap *l, const leap_mdf *mdf,
                const leap_stride *strides, uint32_t nstrides,
                const leap_names *names, int lmads);

#endif /* MEMREC_LEAP_REPORT_H */
