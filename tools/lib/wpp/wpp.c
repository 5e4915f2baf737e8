/*
 * wpp.c: per-thread whole program paths (see wpp.h).
 */
#include "wpp/wpp.h"

#include <stdlib.h>

#include "base/array.h"
#include "base/u64map.h"

/* One thread's path. */
typedef struct wpp_thread {
    uint32_t tid;
    sequitur *path;
} wpp_thread;

struct wpp {
    wpp_thread *threads;
    size_t threads_cap;
    uint32_t nthreads;
    uint32_t last;              /* index of the thread seen last: most
                                   executions come from the same thread */
    u64map numbers;             /* (block id << 32 | exit) -> symbol + 1 */
    wpp_symbol_info *symbols;
    size_t symbols_cap;
    uint32_t nsymbols;
    const mr_block_def *last_def;   /* a one-entry cache before the map */
    uint32_t last_exit, last_symbol;
};

wpp *wpp_new(void)
{
    return calloc(1, sizeof(wpp));
}

void wpp_free(wpp *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->nthreads; i++)
        sq_free(w->threads[i].path);
    free(w->threads);
    free(w->symbols);
    u64map_free(&w->numbers);
    free(w);
}

/* The thread's path, created at its first execution; NULL: no memory. */
static sequitur *thread_path(wpp *w, uint32_t tid)
{
    if (w->nthreads && w->threads[w->last].tid == tid)
        return w->threads[w->last].path;
    for (uint32_t i = 0; i < w->nthreads; i++)
        if (w->threads[i].tid == tid) {
            w->last = i;
            return w->threads[i].path;
        }
    if (ARRAY_FIT(w->threads, w->threads_cap, w->nthreads + 1) < 0)
        return NULL;
    sequitur *path = sq_new();
    if (!path)
        return NULL;
    w->threads[w->nthreads] = (wpp_thread){ tid, path };
    w->last = w->nthreads++;
    return path;
}

/* The symbol of (def, exit), numbering it at its first execution;
 * UINT32_MAX when out of memory. */
static uint32_t symbol_of(wpp *w, const mr_block_def *def, uint32_t exit)
{
    if (def == w->last_def && exit == w->last_exit)
        return w->last_symbol;
    int added;
    void **slot = u64map_slot_of(&w->numbers, (uint64_t)def->id << 32 | exit, &added);
    if (!slot)
        return UINT32_MAX;
    if (added) {
        if (ARRAY_FIT(w->symbols, w->symbols_cap, w->nsymbols + 1) < 0)
            return UINT32_MAX;
        w->symbols[w->nsymbols] = (wpp_symbol_info){
            .addr = def->addr, .block = def->id, .exit = exit,
            .ninstrs = exit < def->nexits ? def->exits[exit].ninstrs : def->ninstrs };
        *slot = (void *)(uintptr_t)++w->nsymbols;
    }
    w->last_def = def;
    w->last_exit = exit;
    w->last_symbol = (uint32_t)(uintptr_t)*slot - 1;
    return w->last_symbol;
}

int wpp_exec(wpp *w, uint32_t tid, const mr_block_def *def, uint32_t exit)
{
    sequitur *path = thread_path(w, tid);
    uint32_t s = path ? symbol_of(w, def, exit) : UINT32_MAX;
    if (s == UINT32_MAX)
        return -1;
    return sq_append(path, s);
}

uint32_t wpp_thread_count(const wpp *w) { return w->nthreads; }
uint32_t wpp_thread_tid(const wpp *w, uint32_t i) { return w->threads[i].tid; }
uint64_t wpp_thread_length(const wpp *w, uint32_t i) { return sq_input_length(w->threads[i].path); }

sq_grammar *wpp_thread_grammar(const wpp *w, uint32_t i)
{
    return sq_finish(w->threads[i].path);
}

uint32_t wpp_symbol_count(const wpp *w) { return w->nsymbols; }
const wpp_symbol_info *wpp_symbol(const wpp *w, uint32_t s)
{
    return s < w->nsymbols ? &w->symbols[s] : NULL;
}
