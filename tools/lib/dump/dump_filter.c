/* dump_filter.c: selecting events by thread, time and function. */
#include "dump/dump_filter.h"

#include <stdlib.h>
#include <string.h>

/* The cached verdict of --function on one block definition. */
typedef struct block_selection {
    int any;                    /* some instruction is in the function */
    uint8_t in_function[];      /* one per instruction of the definition */
} block_selection;

void dump_filter_init(dump_filter *f, const mr_reader *r)
{
    memset(f, 0, sizeof *f);
    f->to = UINT64_MAX;
    f->reader = r;
    u64map_init(&f->blocks);
}

void dump_filter_free(dump_filter *f)
{
    for (size_t i = 0; i < f->blocks.cap; i++)
        if (f->blocks.slots[i].used)
            free(f->blocks.slots[i].value);
    u64map_free(&f->blocks);
}

/* Whether the code at addr belongs to the selected function. */
static int in_function(const dump_filter *f, uint64_t addr)
{
    const mr_symbol *s = mr_reader_symbol(f->reader, addr);
    return s && s->function && strcmp(s->function, f->function) == 0;
}

const uint8_t *dump_filter_function_mask(dump_filter *f,
                                         const mr_block_def *def, int *any)
{
    *any = 1;
    if (!f->function)
        return NULL;
    int added;
    void **slot = u64map_slot_of(&f->blocks, (uintptr_t)def, &added);
    if (slot && !*slot) {
        block_selection *sel = malloc(sizeof *sel + def->ninstrs + 1);
        if (sel) {
            sel->any = 0;
            for (uint32_t i = 0; i < def->ninstrs; i++) {
                sel->in_function[i] =
                    (uint8_t)in_function(f, def->instrs[i].addr);
                sel->any |= sel->in_function[i];
            }
        }
        *slot = sel;
    }
    if (!slot || !*slot) {
        /* Out of memory: select nothing; the caller sees out_of_memory. */
        f->out_of_memory = 1;
        *any = 0;
        return NULL;
    }
    block_selection *sel = *slot;
    *any = sel->any;
    return sel->in_function;
}

int dump_filter_event(dump_filter *f, const mr_event *ev)
{
    if (f->by_thread && ev->tid != f->tid)
        return 0;
    if (ev->time < f->from || ev->time >= f->to)
        return 0;
    if (!f->function)
        return 1;
    switch (ev->kind) {
    case MR_EV_EXEC: {
        int any;
        dump_filter_function_mask(f, ev->u.exec.def, &any);
        return any;
    }
    case MR_EV_CALL:
    case MR_EV_RETURN:
        return in_function(f, ev->u.call.from) || in_function(f, ev->u.call.to);
    default:
        return 0;
    }
}
