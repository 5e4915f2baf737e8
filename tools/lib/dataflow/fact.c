/* fact.c: facts on locations as GEN/KILL points (fact.h). */
#include "dataflow/fact.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twpp/edges.h"

#define GRANULE_BITS 3          /* as twpp/deps.h */

/* Whether [a, a + n) and [b, b + m) share a granule. */
static int same_granule(uint64_t a, uint32_t n, uint64_t b, uint32_t m)
{
    uint64_t a0 = a >> GRANULE_BITS, a1 = (a + (n ? n - 1 : 0)) >> GRANULE_BITS;
    uint64_t b0 = b >> GRANULE_BITS, b1 = (b + (m ? m - 1 : 0)) >> GRANULE_BITS;
    return a0 <= b1 && b0 <= a1;
}

/* "AN" -> point N - 1, "0xADDR" -> the instruction; -1 when neither. */
static int parse_point(const char *s, uint32_t npoints, int64_t *point, uint64_t *insn)
{
    char *end;
    *point = -1;
    *insn = 0;
    if (s[0] == 'A' && s[1] >= '1' && s[1] <= '9') {
        unsigned long long n = strtoull(s + 1, &end, 10);
        if (*end || n > npoints)
            return -1;
        *point = (int64_t)n - 1;
        return 0;
    }
    if (s[0] == '0' && s[1] == 'x' && s[2]) {
        *insn = strtoull(s + 2, &end, 16);
        return *end ? -1 : 0;
    }
    return -1;
}

/* Is point g the one named (by number, or by its instruction)? */
static int named(uint32_t g, const twpp_point *pt, int64_t point, uint64_t insn)
{
    return point >= 0 ? (int64_t)g == point : pt->insn_addr == insn;
}

/* Records point pt's effect in its symbol's summaries (points come in
 * access order within a symbol, so the last one set wins): the function's
 * own, and the one over every function. */
static int set_effect(df_spec *d, const twpp_point *pt, df_effect e)
{
    int added;
    void **all = u64map_slot_of(&d->effect_all, (uint64_t)pt->fn << 32 | pt->symbol, &added);
    if (!all)
        return -1;
    *all = (void *)(uintptr_t)e;
    if (pt->fn != d->fn)
        return 0;
    void **v = u64map_slot_of(&d->effect_of, pt->symbol, &added);
    if (!v)
        return -1;
    *v = (void *)(uintptr_t)e;
    return 0;
}

/* Context of by_access (qsort has none). */
static const twpp_file *sort_file;

static int by_access(const void *a, const void *b)
{
    uint32_t ga = *(const uint32_t *)a, gb = *(const uint32_t *)b;
    const twpp_point *x = twpp_file_point(sort_file, ga), *y = twpp_file_point(sort_file, gb);
    if (x->symbol != y->symbol)
        return x->symbol < y->symbol ? -1 : 1;
    if (x->instr != y->instr)
        return x->instr < y->instr ? -1 : 1;
    return ga < gb ? -1 : ga > gb;
}

/* Every single-address point on X: its effect, in access order per symbol. */
static int collect(df_spec *d, const twpp_file *f, int written_by, int64_t sp, uint64_t sinsn)
{
    uint32_t n = twpp_point_count(f), k = 0;
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t g = 0; g < n; g++) {
        const twpp_point *pt = twpp_file_point(f, g);
        if (!pt->single || !same_granule(pt->addr, pt->size, d->addr, d->size))
            continue;
        d->elsewhere += pt->fn != d->fn;
        order[k++] = g;
    }
    sort_file = f;
    qsort(order, k, sizeof *order, by_access);
    int rc = 0;
    for (uint32_t i = 0; i < k && rc == 0; i++) {
        const twpp_point *pt = twpp_file_point(f, order[i]);
        df_effect e = DF_NONE;
        if (pt->kind & MR_STORE)        /* a store, or the store of a modify (it comes last) */
            e = written_by && named(order[i], pt, sp, sinsn) ? DF_GEN : DF_KILL;
        else if (!written_by)
            e = DF_GEN;                 /* a load of X: its value is in a register */
        if (e == DF_NONE)
            continue;
        d->gens += e == DF_GEN && pt->fn == d->fn;
        d->kills += e == DF_KILL && pt->fn == d->fn;
        d->gens_all += e == DF_GEN;
        rc = set_effect(d, pt, e);
    }
    free(order);
    return rc;
}

int df_spec_parse(df_spec *d, const twpp_file *f, uint32_t fn, const char *spec,
                  char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->fn = fn;
    uint32_t n = twpp_point_count(f);
    int written_by = !strncmp(spec, "written-by:", 11);
    int64_t sp = -1, xp = -1;
    uint64_t sinsn = 0, xaddr = 0;
    char s[128] = "", x[128] = "";
    if (written_by) {
        const char *at = strchr(spec + 11, '@');
        size_t ls = at ? (size_t)(at - spec - 11) : 0;
        if (!at || ls >= sizeof s || strlen(at + 1) >= sizeof x)
            return snprintf(err, errlen, "fact '%s': written-by:S@X", spec), -1;
        memcpy(s, spec + 11, ls);
        strcpy(x, at + 1);
        if (parse_point(s, n, &sp, &sinsn) < 0 || parse_point(x, n, &xp, &xaddr) < 0)
            return snprintf(err, errlen, "fact '%s': S is AN or 0xINSN, X is 0xADDR or AN", spec), -1;
    } else if (!strncmp(spec, "redundant:", 10)) {
        if (parse_point(spec + 10, n, &xp, &sinsn) < 0)
            return snprintf(err, errlen, "fact '%s': redundant:L, L is AN or 0xINSN", spec), -1;
        if (xp < 0)                     /* L by instruction: its first single load point */
            for (uint32_t g = 0; g < n && xp < 0; g++) {
                const twpp_point *pt = twpp_file_point(f, g);
                if (pt->insn_addr == sinsn && (pt->kind & MR_LOAD) && pt->single)
                    xp = g;
            }
        if (xp < 0 || !(twpp_file_point(f, (uint32_t)xp)->kind & MR_LOAD))
            return snprintf(err, errlen, "fact '%s': not a load point", spec), -1;
    } else {
        return snprintf(err, errlen, "unknown fact '%s' (written-by:S@X or redundant:L)", spec), -1;
    }
    if (xp >= 0) {                      /* X as a point's address */
        const twpp_point *pt = twpp_file_point(f, (uint32_t)xp);
        if (!pt->single)
            return snprintf(err, errlen, "A%" PRId64 " has no single address", xp + 1), -1;
        d->addr = pt->addr;
        d->size = pt->size;
    } else {
        d->addr = xaddr;
        d->size = 1;
    }
    if (collect(d, f, written_by, sp, sinsn) < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    if (written_by)
        snprintf(d->text, sizeof d->text, "0x%" PRIx64 " (%u bytes) last written by %s", d->addr,
                 d->size, s);
    else
        snprintf(d->text, sizeof d->text, "load %s redundant: 0x%" PRIx64 " (%u bytes) loaded, "
                 "not stored since", spec + 10, d->addr, d->size);
    if (written_by && !d->gens_all)
        return snprintf(err, errlen, "%s: no single-address store of %s writes 0x%" PRIx64,
                        spec, s, d->addr), -1;
    return 0;
}

void df_spec_free(df_spec *d)
{
    u64map_free(&d->effect_of);
    u64map_free(&d->effect_all);
}

df_effect df_spec_effect(const df_spec *d, uint32_t fn, uint32_t symbol)
{
    return (df_effect)(uintptr_t)u64map_get(&d->effect_all, (uint64_t)fn << 32 | symbol);
}

df_effect df_spec_symbol(const df_spec *d, uint32_t symbol)
{
    return (df_effect)(uintptr_t)u64map_get(&d->effect_of, symbol);
}
