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

struct whomp {
    whomp_options opt;
    sequitur *omsg[WHOMP_DIMS];
    sequitur *rasg;
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

int whomp_access(whomp *w, uint32_t insn, const obj_object *o, uint64_t addr)
{
    uint8_t kind = o->group->kind;
    if (kind == OBJ_UNKNOWN || (kind == OBJ_STACK && !w->opt.stack)) {
        w->skipped++;
        return 0;
    }
    if (insn >= WHOMP_RASG_INSNS || addr >= WHOMP_RASG_ADDRS)
        return -2;
    uint64_t tuple[WHOMP_DIMS] = { insn, o->group->id, o->serial, addr - o->addr };
    for (int d = 0; d < WHOMP_DIMS; d++)
        if (sq_append(w->omsg[d], tuple[d]) < 0)
            return -1;
    if (sq_append(w->rasg, addr << 16 | insn) < 0)
        return -1;
    if (w->opt.vertical) {
        sequitur *v = vertical_of(w, insn);
        if (!v || sq_append(v, tuple[WHOMP_GROUP]) < 0 || sq_append(v, tuple[WHOMP_OBJECT]) < 0 ||
            sq_append(v, tuple[WHOMP_OFFSET]) < 0)
            return -1;
    }
    w->kept++;
    return 1;
}

uint64_t whomp_kept(const whomp *w) { return w->kept; }
uint64_t whomp_skipped(const whomp *w) { return w->skipped; }

sq_grammar *whomp_omsg(const whomp *w, int dim)
{
    return dim >= 0 && dim < WHOMP_DIMS ? sq_finish(w->omsg[dim]) : NULL;
}

sq_grammar *whomp_rasg(const whomp *w) { return sq_finish(w->rasg); }

uint32_t whomp_vertical_count(const whomp *w) { return w->nverticals; }
uint32_t whomp_vertical_insn(const whomp *w, uint32_t i) { return w->verticals[i].insn; }
sq_grammar *whomp_vertical(const whomp *w, uint32_t i) { return sq_finish(w->verticals[i].g); }

const char *whomp_dim_name(int dim)
{
    static const char *const names[WHOMP_DIMS] = { "instruction", "group", "object", "offset" };
    return dim >= 0 && dim < WHOMP_DIMS ? names[dim] : "?";
}
