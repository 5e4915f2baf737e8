/* insns.c: dense numbers for static memory instructions. */
#include "stream/insns.h"

#include <stdlib.h>
#include <string.h>

/* The instructions in order of first sight, a hash over them (each slot
 * holds an instruction's number + 1, 0 = empty) and each block's numbers. */
struct insn_table {
    insn_info *insns;
    uint32_t n, cap;
    uint32_t *hash;         /* open addressing over insn_table */
    uint32_t hcap;
    uint32_t **blocks;      /* block id -> slot numbers of its accesses */
    uint32_t nblocks;
};

insn_table *insn_table_new(void) { return calloc(1, sizeof(insn_table)); }

void insn_table_free(insn_table *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nblocks; i++)
        free(t->blocks[i]);
    free(t->blocks);
    free(t->hash);
    free(t->insns);
    free(t);
}

uint32_t insn_table_count(const insn_table *t) { return t->n; }

const insn_info *insn_table_get(const insn_table *t, uint32_t slot)
{
    return slot < t->n ? &t->insns[slot] : NULL;
}

static uint32_t insn_hash(const insn_info *i, uint32_t cap)
{
    uint64_t h = (i->addr * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)i->size << 3) ^
                 i->kind;
    h *= 0xff51afd7ed558ccdull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

static int rehash(insn_table *t)
{
    uint32_t cap = t->hcap ? 2 * t->hcap : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t s = 0; s < t->n; s++) {
        uint32_t j = insn_hash(&t->insns[s], cap);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = s + 1;
    }
    free(t->hash);
    t->hash = h;
    t->hcap = cap;
    return 0;
}

/* The slot of an instruction, made if new; UINT32_MAX when out of memory. */
static uint32_t slot_of(insn_table *t, const insn_info *key)
{
    if (2 * (t->n + 1) > t->hcap && rehash(t) < 0)
        return UINT32_MAX;
    uint32_t j = insn_hash(key, t->hcap);
    for (; t->hash[j]; j = (j + 1) & (t->hcap - 1)) {
        const insn_info *i = &t->insns[t->hash[j] - 1];
        if (i->addr == key->addr && i->size == key->size && i->kind == key->kind)
            return t->hash[j] - 1;
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 256;
        insn_info *n = realloc(t->insns, cap * sizeof *n);
        if (!n)
            return UINT32_MAX;
        t->insns = n;
        t->cap = cap;
    }
    t->insns[t->n] = *key;
    t->hash[j] = ++t->n;
    return t->n - 1;
}

const uint32_t *insn_table_block(insn_table *t, const mr_block_def *def)
{
    if (def->id < t->nblocks && t->blocks[def->id])
        return t->blocks[def->id];
    if (def->id >= t->nblocks) {
        uint32_t n = t->nblocks ? t->nblocks : 1024;
        while (n <= def->id)
            n *= 2;
        uint32_t **b = realloc(t->blocks, n * sizeof *b);
        if (!b)
            return NULL;
        memset(b + t->nblocks, 0, (n - t->nblocks) * sizeof *b);
        t->blocks = b;
        t->nblocks = n;
    }
    uint32_t *slots = malloc((def->naccesses ? def->naccesses : 1) * sizeof *slots);
    if (!slots)
        return NULL;
    for (uint32_t a = 0; a < def->naccesses; a++) {
        const mr_access_def *ad = &def->accesses[a];
        insn_info key = { 0, ad->size, ad->kind };
        if (ad->instr < def->ninstrs)
            key.addr = def->instrs[ad->instr].addr;
        if ((slots[a] = slot_of(t, &key)) == UINT32_MAX) {
            free(slots);
            return NULL;
        }
    }
    t->blocks[def->id] = slots;
    return slots;
}

const uint32_t *insn_table_exec(insn_table *t, const mr_event *ev, uint32_t *scratch)
{
    const mr_block_def *def = ev->u.exec.def;
    const uint32_t *slots = insn_table_block(t, def);
    if (!slots || ev->u.exec.naccesses == def->exits[ev->u.exec.exit].naccesses)
        return slots;
    /* Some guarded accesses did not happen: match the rest in order. */
    uint32_t d = 0;
    for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
        const mr_access *a = &ev->u.exec.accesses[i];
        while (d < def->naccesses &&
               (def->accesses[d].instr != a->instr ||
                def->accesses[d].kind != a->kind))
            d++;
        scratch[i] = d < def->naccesses ? slots[d++] : slots[0];
    }
    return scratch;
}
