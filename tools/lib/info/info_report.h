/*
 * info_report.h: trace-info's two ways of printing a summary: lines for
 * people and one JSON object for scripts. The JSON keys are a promise to
 * other commands' tests: instructions, loads, stores, modifies, allocs,
 * frees, threads, chunks, bytes, truncated, command, pid, end_reason, and
 * more (see info_print_json). In both, a modify counts once in modifies
 * and once more in each of loads and stores, as in Valgrind's IR.
 */
#ifndef MEMREC_INFO_REPORT_H
#define MEMREC_INFO_REPORT_H

#include <stdint.h>
#include "dump/dump_out.h"
#include "info/info_summary.h"

/* What the summary cannot know by itself: the file and how reading ended. */
typedef struct info_source {
    const char *name;           /* trace path as given, "<stdin>" for a pipe */
    uint64_t bytes;             /* compressed bytes read */
    uint64_t chunks;            /* chunks read */
    int truncated;              /* the trace ended early */
    const char *truncation;     /* the reader's reason when truncated */
} info_source;

void info_print_text(dump_out *o, const info_summary *s, const info_source *src);
void info_print_json(dump_out *o, const info_summary *s, const info_source *src);

/* Start time as "2026-11-22T02:45:00.123456Z" (UTC). buf has >= 32 bytes. */
const char *info_format_time(uint64_t usec, char *buf, size_t n);

#endif /* MEMREC_INFO_REPORT_H */
