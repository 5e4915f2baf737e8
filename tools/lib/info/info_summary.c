/* info_summary.c: counting the events of a trace, see info_summary.h. */
#include "info/info_summary.h"

#include <stdlib.h>
#include <string.h>
#include "base/array.h"

/* What one exit of one block definition contributes when taken with all
 * of its accesses performed (no guard was false). */
struct exit_counts {
    uint32_t naccesses;         /* accesses of the exit per the definition */
    uint32_t loads, stores, modifies;
    uint32_t values;            /* accesses whose value was recorded */
    int executed;               /* taken at least once: its memory
                                 * instructions are in the distinct set */
};
typedef struct exit_counts exit_counts;

void info_summary_init(info_summary *s)
{
    memset(s, 0, sizeof *s);
    u64map_init(&s->exits);
    u64map_init(&s->threads);
    u64map_init(&s->mem_instrs);
}

/* Block ids above this are looked up in the hash map only. */
#define DENSE_ID_LIMIT (1u << 22)

/* Remembers c as the counts of def in the table indexed by block id. */
static void cache_by_id(info_summary *s, const mr_block_def *def,
                        exit_counts *c)
{
    if (def->id >= DENSE_ID_LIMIT)
        return;
    if (ARRAY_FIT(s->by_id, s->by_id_cap, (size_t)def->id + 1) < 0)
        return;                 /* the hash map still answers */
    s->by_id[def->id].def = def;
    s->by_id[def->id].counts = c;
}

/* Per-exit counts of a definition, computed the first time it executes.
 * Block ids are dense, so a table indexed by id answers almost every
 * lookup; the definition's address confirms the entry (an id may be
 * defined again) and the hash map, which owns the counts, backs it up. */
static exit_counts *counts_of(info_summary *s, const mr_block_def *def)
{
    if (def->id < s->by_id_cap && s->by_id[def->id].def == def)
        return s->by_id[def->id].counts;
    int added;
    void **slot = u64map_slot_of(&s->exits, (uintptr_t)def, &added);
    if (!slot) {
        s->out_of_memory = 1;
        return NULL;
    }
    if (!added) {
        cache_by_id(s, def, *slot);
        return *slot;
    }
    exit_counts *c = calloc(def->nexits ? def->nexits : 1, sizeof *c);
    if (!c) {
        s->out_of_memory = 1;
        return NULL;
    }
    for (uint32_t e = 0; e < def->nexits; e++) {
        uint32_t n = def->exits[e].naccesses;
        if (n > def->naccesses)
            n = def->naccesses;     /* the reader checks; stay safe anyway */
        c[e].naccesses = n;
        for (uint32_t a = 0; a < n; a++) {
            c[e].values += (def->accesses[a].flags & MR_ACC_VALUE) != 0;
            switch (def->accesses[a].kind) {
            case MR_LOAD: c[e].loads++; break;
            case MR_STORE: c[e].stores++; break;
            case MR_MODIFY: c[e].modifies++; break;
            }
        }
    }
    *slot = c;
    cache_by_id(s, def, c);
    return c;
}

/* Adds the kinds of each access: the slow path, for executions where a
 * guarded access did not happen. */
static void count_accesses(info_summary *s, const mr_access *acc, uint32_t n)
{
    for (uint32_t a = 0; a < n; a++) {
        s->values += acc[a].has_value;
        switch (acc[a].kind) {
        case MR_LOAD: s->counted.loads++; break;
        case MR_STORE: s->counted.stores++; break;
        case MR_MODIFY: s->counted.modifies++; break;
        }
    }
}

/* Remembers the memory instructions of an exit taken for the first time. */
static void note_memory_instructions(info_summary *s, const mr_block_def *def,
                                     uint32_t naccesses)
{
    for (uint32_t a = 0; a < naccesses; a++) {
        uint16_t i = def->accesses[a].instr;
        if (i >= def->ninstrs)
            continue;
        int added = u64set_add(&s->mem_instrs, def->instrs[i].addr);
        if (added < 0)
            s->out_of_memory = 1;
        s->memory_instructions += added > 0;
    }
}

static void add_exec(info_summary *s, const mr_event *ev)
{
    const mr_block_def *def = ev->u.exec.def;
    s->counted.blocks++;
    s->counted.instructions += ev->u.exec.ninstrs;
    if (!s->have_time) {
        s->have_time = 1;
        s->time_first = ev->time;
    }
    if (ev->time + ev->u.exec.ninstrs > s->time_end)
        s->time_end = ev->time + ev->u.exec.ninstrs;

    if (def && ev->u.exec.exit < def->nexits) {
        /* Calls and returns are the exits taken, as in the writer's totals:
         * the reader's MR_EV_CALL/RETURN events wait for the next block of
         * the thread (the target), which a thread's last return never has. */
        uint8_t jump = def->exits[ev->u.exec.exit].jump;
        s->counted.calls += jump == MR_JUMP_CALL;
        s->counted.returns += jump == MR_JUMP_RET;
    }
    exit_counts *c = def ? counts_of(s, def) : NULL;
    if (!c || ev->u.exec.exit >= def->nexits) {
        count_accesses(s, ev->u.exec.accesses, ev->u.exec.naccesses);
        return;
    }
    c += ev->u.exec.exit;
    if (ev->u.exec.naccesses == c->naccesses) {
        s->counted.loads += c->loads;
        s->counted.stores += c->stores;
        s->counted.modifies += c->modifies;
        s->values += c->values;
    } else {
        count_accesses(s, ev->u.exec.accesses, ev->u.exec.naccesses);
    }
    if (!c->executed) {
        c->executed = 1;
        note_memory_instructions(s, def, c->naccesses);
    }
}

static void add_heap(info_summary *s, const mr_heap *h)
{
    switch (h->op) {
    case MR_MALLOC: case MR_MEMALIGN: case MR_NEW: case MR_NEW_ARRAY:
        s->counted.allocs++;
        s->alloc_bytes += h->size;
        break;
    case MR_CALLOC:
        s->counted.allocs++;
        s->alloc_bytes += h->count * h->size;
        break;
    case MR_REALLOC:
        s->counted.reallocs++;
        break;
    case MR_FREE: case MR_DELETE: case MR_DELETE_ARRAY:
        s->counted.frees++;
        break;
    case MR_MMAP: case MR_MUNMAP:
        break;      /* mappings: in no total, as the writer's (format 3) */
    }
}

/* The per-thread record of tid, inserted in tid order if new; NULL when
 * out of memory. Threads are few and runs of one thread long: the caller
 * looks up only when the thread changes. */
static info_thread *thread_record(info_summary *s, uint32_t tid)
{
    size_t i = 0;
    while (i < s->nper_thread && s->per_thread[i].tid < tid)
        i++;
    if (i < s->nper_thread && s->per_thread[i].tid == tid) {
        s->cur_thread = i;
        return &s->per_thread[i];
    }
    if (ARRAY_FIT(s->per_thread, s->capper_thread, s->nper_thread + 1) < 0)
        return NULL;
    memmove(&s->per_thread[i + 1], &s->per_thread[i],
            (s->nper_thread - i) * sizeof *s->per_thread);
    s->per_thread[i] = (info_thread){ .tid = tid };
    s->nper_thread++;
    s->cur_thread = i;
    return &s->per_thread[i];
}

/* Counts a thread id once. Like the writer's totals, the threads are
 * those named by thread events and those that execute code (thread 0
 * when code runs before any switch). */
static void add_thread(info_summary *s, uint32_t tid)
{
    int added = u64set_add(&s->threads, tid);
    if (added < 0)
        s->out_of_memory = 1;
    s->counted.threads += added > 0;
}

/* Thread tid is the OS thread os_tid from here on. Not a thread of the
 * totals by itself (the writer counts thread events and executions only;
 * the thread's own events follow). */
static void add_os_tid(info_summary *s, uint32_t tid, uint64_t os_tid)
{
    info_thread *t = thread_record(s, tid);
    /* the lookup moved cur_thread, and an insertion moves the records:
     * the next execution looks its thread up again */
    s->have_exec_tid = 0;
    if (!t) {
        s->out_of_memory = 1;
        return;
    }
    if (!t->os_tids++)
        t->os_tid = os_tid;
    else if (t->os_tid == os_tid)
        t->os_tids--;       /* said again (a seek replays definitions) */
}

void info_summary_add(info_summary *s, const mr_event *ev)
{
    s->events++;
    if (ev->time > s->time_end)
        s->time_end = ev->time;
    switch (ev->kind) {
    case MR_EV_EXEC:
        add_exec(s, ev);
        /* Runs of one thread are long: look the set up on changes only. */
        if (!s->have_exec_tid || ev->tid != s->exec_tid) {
            add_thread(s, ev->tid);
            s->have_exec_tid = 1;
            s->exec_tid = ev->tid;
            if (!thread_record(s, ev->tid)) {
                s->out_of_memory = 1;
                s->have_exec_tid = 0;
                break;
            }
        }
        s->per_thread[s->cur_thread].instructions += ev->u.exec.ninstrs;
        break;
    case MR_EV_CALL: s->call_events++; break;
    case MR_EV_RETURN: s->return_events++; break;
    case MR_EV_HEAP: add_heap(s, &ev->u.heap.h); break;
    case MR_EV_THREAD:
        if (ev->u.thread.op == MR_THREAD_OS) {
            add_os_tid(s, ev->u.thread.tid, ev->u.thread.os_tid);
            break;
        }
        add_thread(s, ev->u.thread.tid);
        if (ev->u.thread.op == MR_THREAD_CREATE)
            add_thread(s, ev->u.thread.parent);
        break;
    case MR_EV_BLOCK_DEF: s->block_defs++; break;
    case MR_EV_SYMBOL: s->symbols++; break;
    case MR_EV_MODULE: s->modules++; break;
    case MR_EV_DATAOBJ: s->dataobjs++; break;
    case MR_EV_STACK: s->stacks++; break;
    case MR_EV_MARK: s->marks++; break;
    case MR_EV_PROCESS: s->process = ev->u.process; break;
    case MR_EV_END: s->end = ev->u.end; break;
    case MR_EV_COLLECT: break;
    }
}

int info_summary_totals_match(const info_summary *s)
{
    if (!s->end)
        return -1;
    const mr_totals *a = &s->end->totals, *b = &s->counted;
    return a->instructions == b->instructions && a->blocks == b->blocks &&
           a->loads == b->loads && a->stores == b->stores &&
           a->modifies == b->modifies && a->calls == b->calls &&
           a->returns == b->returns && a->allocs == b->allocs &&
           a->frees == b->frees && a->reallocs == b->reallocs &&
           a->threads == b->threads;
}

/* Frees each per-definition counts array, then the tables. */
void info_summary_free(info_summary *s)
{
    for (size_t i = 0; i < s->exits.cap; i++)
        if (s->exits.slots[i].used)
            free(s->exits.slots[i].value);
    u64map_free(&s->exits);
    free(s->by_id);
    s->by_id = NULL;
    s->by_id_cap = 0;
    u64map_free(&s->threads);
    u64map_free(&s->mem_instrs);
    free(s->per_thread);
    s->per_thread = NULL;
    s->nper_thread = s->capper_thread = 0;
}
