/* insns.c: dense numbers for static memory instructions. */
#include "stream/insns.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/symbolize.h"

/* The instructions in order of first sight, a hash over them (each slot
 * holds an instruction's number + 1, 0 = empty) and each block's numbers. */
struct insn_table {
    struct insn_table_head h;   /* first: the inline lookup reads it */
    insn_info *insns;
    uint32_t n;
    size_t cap, stampcap;
    uint32_t *hash;         /* open addressing over insns */
    uint32_t hcap;
    uint64_t *stamp;        /* per instruction: the last block that used it
                             * (stamp_now + 1), to find repeats in a block */
    uint64_t stamp_now;
};

insn_table *insn_table_new(void) { return calloc(1, sizeof(insn_table)); }

void insn_table_free(insn_table *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->h.nblocks; i++)
        free(t->h.blocks[i]);
    free(t->h.blocks);
    free(t->stamp);
    free(t->hash);
    free(t->insns);
    free(t);
}

uint32_t insn_table_count(const insn_table *t) { return t->n; }

const insn_info *insn_table_get(const insn_table *t, uint32_t insn)
{
    return insn < t->n ? &t->insns[insn] : NULL;
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

/* The number of an instruction, made if new; UINT32_MAX when out of memory. */
static uint32_t number_of(insn_table *t, const insn_info *key)
{
    if (2 * (t->n + 1) > t->hcap && rehash(t) < 0)
        return UINT32_MAX;
    uint32_t j = insn_hash(key, t->hcap);
    for (; t->hash[j]; j = (j + 1) & (t->hcap - 1)) {
        const insn_info *i = &t->insns[t->hash[j] - 1];
        if (i->addr == key->addr && i->size == key->size && i->kind == key->kind)
            return t->hash[j] - 1;
    }
    if (ARRAY_FIT(t->insns, t->cap, t->n + 1) < 0 ||
        ARRAY_FIT(t->stamp, t->stampcap, t->n + 1) < 0)
        return UINT32_MAX;
    t->insns[t->n] = *key;
    t->hash[j] = ++t->n;
    return t->n - 1;
}

const block_insns *insn_table_block_slow(insn_table *t, const mr_block_def *def)
{
    if (def->id < t->h.nblocks && t->h.blocks[def->id] &&
        t->h.blocks[def->id]->def == def)
        return t->h.blocks[def->id];
    if (ARRAY_FIT(t->h.blocks, t->h.nblocks, (size_t)def->id + 1) < 0)
        return NULL;
    block_insns *b = malloc(sizeof *b + (def->naccesses ? def->naccesses : 1) *
                                            sizeof *b->insn);
    if (!b)
        return NULL;
    b->def = def;
    b->distinct = 1;
    for (uint32_t a = 0; a < def->naccesses; a++) {
        const mr_access_def *ad = &def->accesses[a];
        insn_info key = { 0, ad->size, ad->kind };
        if (ad->instr < def->ninstrs)
            key.addr = def->instrs[ad->instr].addr;
        uint32_t n = number_of(t, &key);
        if (n == UINT32_MAX) {
            free(b);
            return NULL;
        }
        b->insn[a] = n;
        /* A number seen before in this block has this block's stamp. */
        b->distinct &= t->stamp[n] != t->stamp_now + 1;
        t->stamp[n] = t->stamp_now + 1;
    }
    t->stamp_now++;
    free(t->h.blocks[def->id]);
    return t->h.blocks[def->id] = b;
}

const char *insn_table_text(const insn_table *t, const mr_reader *r,
                            uint32_t insn, char *buf, size_t n)
{
    const insn_info *in = insn_table_get(t, insn);
    char where[SYM_BUF];
    snprintf(buf, n, "%s@0x%" PRIx64 "(%s %" PRIu32 ")",
             sym_where(r, in->addr, where, sizeof where), in->addr,
             mr_access_kind_name(in->kind), in->size);
    return buf;
}
