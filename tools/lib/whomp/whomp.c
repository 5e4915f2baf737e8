/*
 * whomp.c: the OMSG, RASG and vertical grammars of WHOMP (see whomp.h).
 */
#include "whomp/whomp.h"

#include <stdlib.h>

#include "base/array.h"

/* One instruction's vertical stream. */
typedef struct vertical {
    uint32_t insn;
    sequitur *g;
} vertical;

/* The streams a batch holds: the four dimensions, then the RASG's. */
enum { RASG_STREAM = WHOMP_DIMS, STREAMS };

/* Accesses gathered before any grammar sees them. Feeding five grammars one
 * symbol each per access makes them evict each other's nodes and digram
 * slots from the cache at every access; fed a whole batch in turn, each
 * grammar's working set stays warm for the batch (2x on large traces). */
#define BATCH 4096

struct whomp {
    whomp_options opt;
    sequitur *omsg[WHOMP_DIMS];
    sequitur *rasg;
    uint64_t batch[STREAMS][BATCH];     /* symbols by stream, in access order */
    uint32_t nbatch;
    int failed;                         /* a grammar ran out of memory */
    uint32_t *vertical_of;      /* instruction -> index into verticals + 1 */
    size_t vertical_of_cap;
    vertical *verticals;
    size_t verticals_cap;
    uint32_t nverticals;
    uint64_t kept, skipped;
};

whomp *whomp_new(const whomp_options *o)
{
    whomp *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->opt = *o;
    int ok = (w->rasg = sq_new()) != NULL;
    for (int d = 0; d < WHOMP_DIMS; d++)
        ok = ok && (w->omsg[d] = sq_new()) != NULL;
    if (!ok) {
        whomp_free(w);
        return NULL;
    }
    return w;
}

void whomp_free(whomp *w)
{
    if (!w)
        return;
    for (int d = 0; d < WHOMP_DIMS; d++)
        sq_free(w->omsg[d]);
    sq_free(w->rasg);
    for (uint32_t i = 0; i < w->nverticals; i++)
        sq_free(w->verticals[i].g);
    free(w->verticals);
    free(w->vertical_of);
    free(w);
}

/* The vertical grammar of insn, created at its first access. */
static sequitur *vertical_of(whomp *w, uint32_t insn)
{
    if (ARRAY_FIT(w->vertical_of, w->vertical_of_cap, (size_t)insn + 1) < 0)
        return NULL;
    uint32_t i = w->vertical_of[insn];
    if (i)
        return w->verticals[i - 1].g;
    if (ARRAY_FIT(w->verticals, w->verticals_cap, w->nverticals + 1) < 0)
        return NULL;
    sequitur *g = sq_new();
    if (!g)
        return NULL;
    w->verticals[w->nverticals++] = (vertical){ insn, g };
    w->vertical_of[insn] = w->nverticals;
    return g;
}

/* Feeds n symbols to one grammar; -1 when it ran out of memory. */
static int feed(sequitur *g, const uint64_t *symbols, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (sq_append(g, symbols[i]) < 0)
            return -1;
    return 0;
}

/* Each access's (group, object, offset) to its instruction's grammar. */
static int feed_vertical(whomp *w)
{
    for (uint32_t i = 0; i < w->nbatch; i++) {
        sequitur *v = vertical_of(w, (uint32_t)w->batch[WHOMP_INSTRUCTION][i]);
        if (!v || sq_append(v, w->batch[WHOMP_GROUP][i]) < 0 ||
            sq_append(v, w->batch[WHOMP_OBJECT][i]) < 0 ||
            sq_append(v, w->batch[WHOMP_OFFSET][i]) < 0)
            return -1;
    }
    return 0;
}

/* Every grammar takes the gathered accesses, one grammar after the other. */
static int flush(whomp *w)
{
    for (int d = 0; d < WHOMP_DIMS && !w->failed; d++)
        w->failed = feed(w->omsg[d], w->batch[d], w->nbatch) < 0;
    if (!w->failed)
        w->failed = feed(w->rasg, w->batch[RASG_STREAM], w->nbatch) < 0;
    if (!w->failed && w->opt.vertical)
        w->failed = feed_vertical(w) < 0;
    w->nbatch = 0;
    return w->failed ? -1 : 0;
}

int whomp_access(whomp *w, uint32_t insn, const obj_object *o, uint64_t addr)
{
    uint8_t kind = o->group->kind;
    if (kind == OBJ_UNKNOWN || (kind == OBJ_STACK && !w->opt.stack)) {
        w->skipped++;
        return 0;
    }
    if (insn >= WHOMP_RASG_INSNS || addr >= WHOMP_RASG_ADDRS)
        return -2;
    uint32_t i = w->nbatch++;
    w->batch[WHOMP_INSTRUCTION][i] = insn;
    w->batch[WHOMP_GROUP][i] = o->group->id;
    w->batch[WHOMP_OBJECT][i] = o->serial;
    w->batch[WHOMP_OFFSET][i] = addr - o->addr;
    w->batch[RASG_STREAM][i] = addr << 16 | insn;
    w->kept++;
    if (w->nbatch == BATCH && flush(w) < 0)
        return -1;
    return 1;
}

uint64_t whomp_kept(const whomp *w) { return w->kept; }
uint64_t whomp_skipped(const whomp *w) { return w->skipped; }

int whomp_finish(whomp *w) { return flush(w); }

sq_grammar *whomp_omsg(const whomp *w, int dim)
{
    return dim >= 0 && dim < WHOMP_DIMS && !w->nbatch ? sq_finish(w->omsg[dim]) : NULL;
}

sq_grammar *whomp_rasg(const whomp *w) { return w->nbatch ? NULL : sq_finish(w->rasg); }

uint32_t whomp_vertical_count(const whomp *w) { return w->nverticals; }
uint32_t whomp_vertical_insn(const whomp *w, uint32_t i) { return w->verticals[i].insn; }

sq_grammar *whomp_vertical(const whomp *w, uint32_t i)
{
    return w->nbatch ? NULL : sq_finish(w->verticals[i].g);
}

const char *whomp_dim_name(int dim)
{
    static const char *const names[WHOMP_DIMS] = { "instruction", "group", "object", "offset" };
    return dim >= 0 && dim < WHOMP_DIMS ? names[dim] : "?";
}
