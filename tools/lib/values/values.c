/* values.c: the value profile of fields and instructions; see values.h. */
#include "values/values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/u64map.h"

struct values {
    values_options o;
    uint32_t k;             /* entries of each topv table */
    objrel *rel;            /* the object-relative access stream */
    size_t insn_bytes;      /* a values_insn and its table */
    char *fields;           /* field records, field_bytes apart */
    size_t field_bytes, nfields, capfields;
    u64map field_index;     /* (group id, offset key) -> field index + 1 */
    values_group *groups;   /* by group id */
    size_t capgroups;
    values_summary s;
    int failed;             /* memory ran out in a callback */
};

uint32_t values_table_size(const values_options *o)
{
    return (o->top ? o->top : VALUES_DEFAULT_TOP) + 3;
}

/* Rounds n up to a multiple of 8, so records stay aligned. */
static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* An object leaving the map: its size counts in its group. */
static void object_ended(void *ctx, obj_object *o)
{
    values *p = ctx;
    uint32_t g = o->group->id;
    if (ARRAY_FIT(p->groups, p->capgroups, g + 1) < 0) {
        p->failed = 1;
        return;
    }
    p->groups[g].bytes += o->size;
    p->groups[g].objects++;
}

values *values_new(const values_options *o)
{
    values *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->o = *o;
    if (!p->o.payload)
        p->o.payload = VC_PAPER_PAYLOAD;
    if (!p->o.exact_offsets)
        p->o.exact_offsets = VALUES_DEFAULT_EXACT;
    p->k = values_table_size(&p->o);
    p->insn_bytes = align8(sizeof(values_insn)) + topv_bytes(p->k);
    p->field_bytes = align8(align8(sizeof(values_field)) + topv_bytes(p->k));
    objmap_options mo = { .group_depth = o->group_depth, .reader = o->reader,
                          .on_end = object_ended, .ctx = p };
    if (!(p->rel = objrel_new(&mo, p->insn_bytes))) {
        free(p);
        return NULL;
    }
    return p;
}

void values_free(values *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nfields; i++) {
        values_field *f = values_field_at(p, (uint32_t)i);
        distinct_free(&f->instances);
        distinct_free(&f->spoiled);
    }
    free(p->fields);
    u64map_free(&p->field_index);
    free(p->groups);
    objrel_free(p->rel);
    free(p);
}

values_mode values_mode_of(const char *opts)
{
    if (!opts)
        return VALUES_MODE_UNKNOWN;
    values_mode m = VALUES_MODE_POINTERS;       /* the recorder's default */
    /* the last --values= wins, as in Valgrind's own option parsing */
    for (const char *s = opts; (s = strstr(s, "--values=")); s += 9) {
        const char *v = s + 9;
        if (!strncmp(v, "none", 4))
            m = VALUES_MODE_NONE;
        else if (!strncmp(v, "pointers", 8))
            m = VALUES_MODE_POINTERS;
        else if (!strncmp(v, "all", 3))
            m = VALUES_MODE_ALL;
    }
    return m;
}

const char *values_mode_name(values_mode m)
{
    static const char *const names[] = {"none", "pointers", "all", "unknown"};
    return (unsigned)m <= VALUES_MODE_UNKNOWN ? names[m] : "unknown";
}

/* ---- fields --------------------------------------------------------------- */

values_field *values_field_at(const values *p, uint32_t i)
{
    return (values_field *)(p->fields + (size_t)i * p->field_bytes);
}

topv *values_field_top(const values *p, uint32_t i)
{
    return (topv *)((char *)values_field_at(p, i) + align8(sizeof(values_field)));
}

/* The index of the field of group g at offset off, made on first sight.
 * -1 when out of memory. */
static int64_t field_find(values *p, uint32_t g, uint64_t off)
{
    uint32_t span = off < p->o.exact_offsets ? 1 : VALUES_SPAN;
    uint64_t start = off - off % span;
    /* offsets past 2^40 (a terabyte object) share the last key: harmless */
    uint64_t key = (uint64_t)g << 40 | (start < (1ull << 40) ? start : (1ull << 40) - 1);
    int added;
    void **slot = u64map_slot_of(&p->field_index, key, &added);
    if (!slot)
        return -1;
    if (!added)
        return (int64_t)(uintptr_t)*slot - 1;
    /* ARRAY_FIT works on typed arrays; the records are field_bytes apart */
    if (p->nfields == p->capfields) {
        size_t cap = p->capfields ? 2 * p->capfields : 64;
        char *f = realloc(p->fields, cap * p->field_bytes);
        if (!f)
            return -1;
        p->fields = f;
        p->capfields = cap;
    }
    values_field *f = values_field_at(p, (uint32_t)p->nfields);
    memset(f, 0, p->field_bytes);
    f->group = g;
    f->span = span;
    f->offset = start;
    *slot = (void *)(uintptr_t)(p->nfields + 1);
    return (int64_t)p->nfields++;
}

/* ---- the accesses --------------------------------------------------------- */

/* Counts one access of size bytes into c: valued or not, its class, range. */
static inline void count_access(values_counts *c, uint32_t size)
{
    c->accesses++;
    if (size > c->size)
        c->size = size;
}

static inline void count_value(values_counts *c, vclass cls, int64_t sv,
                               uint32_t size)
{
    if (!c->valued++ || sv < c->min)
        c->min = sv;
    if (c->valued == 1 || sv > c->max)
        c->max = sv;
    c->cls[cls]++;
    if (size > c->valued_size)
        c->valued_size = size;
}

/* Index of a word's width in values_summary.need. */
static inline unsigned word_index(unsigned bits)
{
    return bits == 64 ? 3 : bits == 32 ? 2 : bits == 16 ? 1 : 0;
}

/* One access (execution j's, at addr) of access i of x. */
static inline int one_access(values *p, const access_exec *x, uint32_t i,
                             uint64_t addr)
{
    const mr_access *a = &x->acc[i];
    obj_object *o = objrel_find(p->rel, x, i, addr);
    const obj_group *g = o->group;
    if (g->kind >= OBJ_STACK) {
        p->s.outside++;
        return 0;
    }
    values_insn *in = objrel_access_user(x, i);
    uint64_t off = addr - o->addr;
    /* the field's first offset: an instruction walking a large object
     * stays in one span's field while its offset moves */
    uint64_t start = off < p->o.exact_offsets ? off : off - off % VALUES_SPAN;
    uint32_t fi;
    if (in->last_group == g->id + 1 && in->last_offset == start) {
        fi = in->last_field;
    } else {
        int64_t f = field_find(p, g->id, off);
        if (f < 0)
            return -1;
        fi = (uint32_t)f;
        in->last_group = g->id + 1;
        in->last_offset = start;
        in->last_field = fi;
    }
    values_field *f = values_field_at(p, fi);
    count_access(&p->s.in, a->size);
    count_access(&in->c, a->size);
    count_access(&f->c, a->size);
    if (!a->has_value) {
        p->s.unvalued_wide += a->size > 8;
        return 0;
    }
    unsigned bits = vc_word_bits(a->size);
    vclass cls = vc_classify(a->value, addr, bits, p->o.payload);
    int64_t sv = vc_signed(a->value, bits);
    count_value(&p->s.in, cls, sv, a->size);
    count_value(&in->c, cls, sv, a->size);
    count_value(&f->c, cls, sv, a->size);
    p->s.need[word_index(bits)][vc_need(a->value, addr, bits)]++;
    topv_add((topv *)((char *)in + align8(sizeof(values_insn))), p->k, a->value);
    topv_add(values_field_top(p, fi), p->k, a->value);
    if (distinct_add(&f->instances, o->serial) < 0 ||
        (cls == VC_INCOMPRESSIBLE && distinct_add(&f->spoiled, o->serial) < 0))
        return -1;
    return 0;
}

int values_event(values *p, const mr_event *ev)
{
    if (ev->kind == MR_EV_PROCESS)
        p->s.mode = values_mode_of(ev->u.process->tool_options);
    access_exec x;
    int n = objrel_event(p->rel, ev, &x);
    if (n <= 0 || p->failed)
        return n < 0 || p->failed ? -1 : 0;
    for (uint32_t i = 0; i < x.n; i++) {
        if (x.repeat == 1) {
            if (one_access(p, &x, i, x.acc[i].addr))
                return -1;
            continue;
        }
        /* a batched run: execution j's access was strides[i] further on */
        for (uint64_t j = 0; j < x.repeat; j++)
            if (one_access(p, &x, i, x.acc[i].addr + j * x.strides[i]))
                return -1;
    }
    return 0;
}

int values_finish(values *p)
{
    objrel_finish(p->rel);
    /* every group gets its totals entry, accessed or not */
    uint32_t n = objmap_ngroups(objrel_map(p->rel));
    if (n && ARRAY_FIT(p->groups, p->capgroups, n) < 0)
        p->failed = 1;
    return p->failed ? -1 : 0;
}

const values_options *values_get_options(const values *p) { return &p->o; }
const values_summary *values_get_summary(const values *p) { return &p->s; }
uint32_t values_nfields(const values *p) { return (uint32_t)p->nfields; }

uint32_t values_ninsns(const values *p)
{
    return access_stream_ninsns(objrel_stream(p->rel));
}

const insn_table *values_insns(const values *p)
{
    return access_stream_insns(objrel_stream(p->rel));
}

values_insn *values_insn_at(values *p, uint32_t insn)
{
    return objrel_user(p->rel, insn);
}

topv *values_insn_top(values *p, uint32_t insn)
{
    return (topv *)((char *)values_insn_at(p, insn) + align8(sizeof(values_insn)));
}

uint32_t values_ngroups(const values *p)
{
    return objmap_ngroups(objrel_map(p->rel));
}

const obj_group *values_group_at(const values *p, uint32_t id)
{
    return objmap_group(objrel_map(p->rel), id);
}

const values_group *values_group_totals(const values *p, uint32_t id)
{
    static const values_group none;
    return id < p->capgroups ? &p->groups[id] : &none;
}

const char *values_unseen_note(const values *p, char *buf, size_t n)
{
    const values_summary *s = &p->s;
    uint64_t unseen = s->in.accesses - s->in.valued;
    if (!unseen)
        return NULL;
    const char *why;
    switch (s->mode) {
    case VALUES_MODE_NONE:
        why = "the trace was recorded with --values=none; record with --values=all";
        break;
    case VALUES_MODE_POINTERS:
        why = "the trace was recorded with --values=pointers (8-byte integer "
              "accesses only); record with --values=all";
        break;
    case VALUES_MODE_ALL:
        why = "the recorder keeps no value of an access wider than 8 bytes (vector)";
        break;
    default:
        why = "the trace does not say how values were recorded";
    }
    snprintf(buf, n, "%llu of %llu accesses (%.1f%%) carry no value and are left out "
             "of the classes (%llu wider than 8 bytes): %s",
             (unsigned long long)unseen, (unsigned long long)s->in.accesses,
             100.0 * (double)unseen / (double)s->in.accesses,
             (unsigned long long)s->unvalued_wide, why);
    return buf;
}
