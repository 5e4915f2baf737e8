/* info_report.c: printing a trace summary, see info_report.h. */
#include "info/info_report.h"
#include <inttypes.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

const char *info_format_time(uint64_t usec, char *buf, size_t n)
{
    time_t secs = (time_t)(usec / 1000000);
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) {
        snprintf(buf, n, "%llu us", (unsigned long long)usec);
        return buf;
    }
    char date[24];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s.%06uZ", date, (unsigned)(usec % 1000000));
    return buf;
}

/* The reader's reason for a truncation without its "truncated: " lead,
 * which the report says already. */
static const char *truncation_reason(const info_source *src)
{
    const char *why = src->truncation ? src->truncation : "cut short";
    return strncmp(why, "truncated: ", 11) == 0 ? why + 11 : why;
}

/* Memory accesses as the format counts them: a modify is one access. */
static uint64_t accesses_of(const info_summary *s)
{
    return s->counted.loads + s->counted.stores + s->counted.modifies;
}

/* ---------------------------------------------------------------- text */

/* "name:" padded so that values line up. */
static void label(dump_out *o, const char *name)
{
    out_str(o, name);
    out_char(o, ':');
    for (size_t n = strlen(name) + 1; n < 22; n++)
        out_char(o, ' ');
}

static void text_u64(dump_out *o, const char *name, uint64_t v)
{
    label(o, name);
    out_u64(o, v);
    out_char(o, '\n');
}

/* Whether an argument prints as it is: not empty, plain printable ASCII,
 * nothing a shell would read differently. */
static int plain_word(const char *a)
{
    if (!*a)
        return 0;
    for (const unsigned char *p = (const unsigned char *)a; *p; p++)
        if (*p <= ' ' || *p >= 0x7f || strchr("\"'\\$`*?[]{}()<>|&;!#~", *p))
            return 0;
    return 1;
}

/* The command line, each argument quoted (JSON-style escapes, so control
 * bytes and bytes that are not UTF-8 show as \u00XX) when it needs it. */
static void text_command(dump_out *o, const mr_process *p)
{
    label(o, "command");
    for (uint32_t i = 0; i < p->argc; i++) {
        const char *a = p->argv[i] ? p->argv[i] : "";
        if (i)
            out_char(o, ' ');
        if (plain_word(a))
            out_str(o, a);
        else
            out_quoted(o, a);
    }
    out_char(o, '\n');
}

/* How the program ended, in words. */
static void text_end(dump_out *o, const info_summary *s)
{
    label(o, "ended");
    if (!s->end)
        out_str(o, "no end record");
    else if (s->end->reason == MR_END_EXIT)
        out_fmt(o, "exit status %d", (int)s->end->status);
    else if (s->end->reason == MR_END_SIGNAL)
        out_fmt(o, "killed by signal %d (%s)", (int)s->end->signal,
                sigabbrev_np(s->end->signal) ? sigabbrev_np(s->end->signal)
                                             : "?");
    else
        out_str(o, mr_end_reason_name(s->end->reason));
    out_char(o, '\n');
}

void info_print_text(dump_out *o, const info_summary *s, const info_source *src)
{
    const mr_totals *c = &s->counted;
    char when[40];
    label(o, "trace");
    out_str(o, src->name);
    out_char(o, '\n');
    if (s->process) {
        text_command(o, s->process);
        label(o, "pid");
        out_fmt(o, "%u (parent %u)\n", s->process->pid, s->process->ppid);
        label(o, "started");
        out_str(o, info_format_time(s->process->start_usec, when, sizeof when));
        out_char(o, '\n');
    } else {
        label(o, "command");
        out_str(o, "unknown (no process record)\n");
    }
    text_end(o, s);
    label(o, "complete");
    if (src->truncated)
        out_fmt(o, "no, truncated: %s\n", truncation_reason(src));
    else
        out_str(o, "yes\n");
    text_u64(o, "instructions", c->instructions);
    text_u64(o, "blocks executed", c->blocks);
    text_u64(o, "loads", c->loads + c->modifies);
    text_u64(o, "stores", c->stores + c->modifies);
    text_u64(o, "modifies", c->modifies);
    text_u64(o, "accesses", accesses_of(s));  /* a modify once */
    text_u64(o, "values recorded", s->values);
    text_u64(o, "calls", c->calls);
    text_u64(o, "returns", c->returns);
    text_u64(o, "allocations", c->allocs);
    text_u64(o, "frees", c->frees);
    text_u64(o, "reallocs", c->reallocs);
    text_u64(o, "bytes allocated", s->alloc_bytes);
    text_u64(o, "threads", c->threads);
    for (size_t i = 0; i < s->nper_thread; i++) {
        char name[48];
        snprintf(name, sizeof name, "  thread %" PRIu32, s->per_thread[i].tid);
        label(o, name);
        const info_thread *t = &s->per_thread[i];
        out_u64(o, t->instructions);
        if (c->instructions)
            out_fmt(o, " instructions (%.1f%%)",
                    100.0 * (double)t->instructions / (double)c->instructions);
        else
            out_str(o, " instructions");
        if (t->os_tids)
            out_fmt(o, ", os tid %" PRIu64, t->os_tid);
        if (t->os_tids > 1)
            out_fmt(o, " (id reused by %" PRIu32 " more)", t->os_tids - 1);
        out_char(o, '\n');
    }
    text_u64(o, "block definitions", s->block_defs);
    text_u64(o, "memory instructions", s->memory_instructions);
    text_u64(o, "marks", s->marks);
    text_u64(o, "chunks", src->chunks);
    text_u64(o, "bytes", src->bytes);
    label(o, "bytes per access");
    if (accesses_of(s))
        out_fmt(o, "%.4f\n", (double)src->bytes / (double)accesses_of(s));
    else
        out_str(o, "-\n");
    label(o, "time span");
    if (s->have_time)
        out_fmt(o, "%llu instructions (clock %llu to %llu)\n",
                (unsigned long long)(s->time_end - s->time_first),
                (unsigned long long)s->time_first,
                (unsigned long long)s->time_end);
    else
        out_str(o, "-\n");
    label(o, "end record totals");
    int match = info_summary_totals_match(s);
    out_str(o, match < 0 ? "none\n" : match ? "match the events\n"
                                            : "DIFFER from the events\n");
    if (s->out_of_memory)
        out_str(o, "note: memory ran out; distinct counts are low\n");
}

/* ---------------------------------------------------------------- json */

/* Writes `,"key":` (no comma before the first key of the object). */
static void json_key(dump_out *o, int *first, const char *key)
{
    if (!*first)
        out_char(o, ',');
    *first = 0;
    out_quoted(o, key);
    out_char(o, ':');
}

static void json_u64(dump_out *o, int *first, const char *key, uint64_t v)
{
    json_key(o, first, key);
    out_u64(o, v);
}

static void json_string(dump_out *o, int *first, const char *key,
                        const char *v)
{
    json_key(o, first, key);
    out_quoted(o, v);   /* NULL becomes null */
}

static void json_process(dump_out *o, int *first, const mr_process *p)
{
    char when[40];
    json_key(o, first, "command");
    if (!p) {
        out_str(o, "null");
    } else {
        out_char(o, '[');
        for (uint32_t i = 0; i < p->argc; i++) {
            if (i)
                out_char(o, ',');
            out_quoted(o, p->argv[i] ? p->argv[i] : "");
        }
        out_char(o, ']');
    }
    json_string(o, first, "exe", p ? p->exe : NULL);
    json_key(o, first, "pid");
    p ? out_u64(o, p->pid) : out_str(o, "null");
    json_key(o, first, "ppid");
    p ? out_u64(o, p->ppid) : out_str(o, "null");
    json_key(o, first, "start_usec");
    p ? out_u64(o, p->start_usec) : out_str(o, "null");
    json_string(o, first, "start_time",
                p ? info_format_time(p->start_usec, when, sizeof when) : NULL);
    json_string(o, first, "tool_options", p ? p->tool_options : NULL);
}

static void json_end(dump_out *o, int *first, const mr_end *e)
{
    json_string(o, first, "end_reason",
                e ? mr_end_reason_name(e->reason) : NULL);
    json_key(o, first, "exit_status");
    if (e && e->reason == MR_END_EXIT)
        out_i64(o, e->status);
    else
        out_str(o, "null");
    json_key(o, first, "signal");
    if (e && e->reason == MR_END_SIGNAL)
        out_i64(o, e->signal);
    else
        out_str(o, "null");
}

/* The end record's totals, as written by the writer (modifies apart). */
static void json_end_totals(dump_out *o, int *first, const mr_end *e)
{
    json_key(o, first, "end_totals");
    if (!e) {
        out_str(o, "null");
        return;
    }
    const mr_totals *t = &e->totals;
    int f = 1;
    out_char(o, '{');
    json_u64(o, &f, "instructions", t->instructions);
    json_u64(o, &f, "blocks", t->blocks);
    json_u64(o, &f, "loads", t->loads);
    json_u64(o, &f, "stores", t->stores);
    json_u64(o, &f, "modifies", t->modifies);
    json_u64(o, &f, "calls", t->calls);
    json_u64(o, &f, "returns", t->returns);
    json_u64(o, &f, "allocs", t->allocs);
    json_u64(o, &f, "frees", t->frees);
    json_u64(o, &f, "reallocs", t->reallocs);
    json_u64(o, &f, "threads", t->threads);
    out_char(o, '}');
}

void info_print_json(dump_out *o, const info_summary *s, const info_source *src)
{
    const mr_totals *c = &s->counted;
    int first = 1;
    out_char(o, '{');
    json_string(o, &first, "trace", src->name);
    json_process(o, &first, s->process);
    json_end(o, &first, s->end);
    json_key(o, &first, "truncated");
    out_str(o, src->truncated ? "true" : "false");
    json_string(o, &first, "truncation",
                src->truncated ? truncation_reason(src) : NULL);
    json_u64(o, &first, "instructions", c->instructions);
    json_u64(o, &first, "blocks", c->blocks);
    json_u64(o, &first, "loads", c->loads + c->modifies);
    json_u64(o, &first, "stores", c->stores + c->modifies);
    json_u64(o, &first, "modifies", c->modifies);
    json_u64(o, &first, "accesses", accesses_of(s));
    json_u64(o, &first, "values", s->values);
    json_u64(o, &first, "calls", c->calls);
    json_u64(o, &first, "returns", c->returns);
    json_u64(o, &first, "allocs", c->allocs);
    json_u64(o, &first, "frees", c->frees);
    json_u64(o, &first, "reallocs", c->reallocs);
    json_u64(o, &first, "alloc_bytes", s->alloc_bytes);
    json_u64(o, &first, "threads", c->threads);
    /* [{"tid":1,"instructions":N,"os_tid":PID,"os_tids":1}]; no os_tid and
     * os_tids when the trace does not record them (recorded before memrec
     * did), os_tids > 1 when a later thread reused the id */
    json_key(o, &first, "thread_instructions");
    out_char(o, '[');
    for (size_t i = 0; i < s->nper_thread; i++) {
        int f = 1;
        out_str(o, i ? ",{" : "{");
        json_u64(o, &f, "tid", s->per_thread[i].tid);
        json_u64(o, &f, "instructions", s->per_thread[i].instructions);
        if (s->per_thread[i].os_tids) {
            json_u64(o, &f, "os_tid", s->per_thread[i].os_tid);
            json_u64(o, &f, "os_tids", s->per_thread[i].os_tids);
        }
        out_char(o, '}');
    }
    out_char(o, ']');
    json_u64(o, &first, "block_defs", s->block_defs);
    json_u64(o, &first, "memory_instructions", s->memory_instructions);
    json_u64(o, &first, "symbols", s->symbols);
    json_u64(o, &first, "modules", s->modules);
    json_u64(o, &first, "dataobjs", s->dataobjs);
    json_u64(o, &first, "stacks", s->stacks);
    json_u64(o, &first, "marks", s->marks);
    json_u64(o, &first, "events", s->events);
    json_u64(o, &first, "chunks", src->chunks);
    json_u64(o, &first, "bytes", src->bytes);
    json_key(o, &first, "bytes_per_access");
    if (accesses_of(s))
        out_fmt(o, "%.6f", (double)src->bytes / (double)accesses_of(s));
    else
        out_str(o, "null");
    json_key(o, &first, "time_first");
    s->have_time ? out_u64(o, s->time_first) : out_str(o, "null");
    json_u64(o, &first, "time_end", s->time_end);
    json_u64(o, &first, "time_span",
             s->have_time ? s->time_end - s->time_first : 0);
    int match = info_summary_totals_match(s);
    json_key(o, &first, "totals_match");
    out_str(o, match < 0 ? "null" : match ? "true" : "false");
    json_end_totals(o, &first, s->end);
    out_str(o, "}\n");
}
