/* objrel_text.c: the object-relative stream as text, see objrel_text.h. */
#include "objects/objrel_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/symbolize.h"
#include "objects/groupname.h"
#include "objects/objrel.h"

struct objrel_text {
    const mr_reader *r;
    objrel *rel;            /* each instruction's record: its "where" text */
    const char *only;
    FILE *out;
    char **group_names;     /* by group id, made at first use */
    size_t ngroup_names;
};

objrel_text *objrel_text_new(const mr_reader *r, const objmap_options *mo,
                             const char *only, FILE *out)
{
    objrel_text *t = calloc(1, sizeof *t);
    if (!t || !(t->rel = objrel_new(mo, sizeof(char *)))) {
        free(t);
        return NULL;
    }
    t->r = r;
    t->only = only;
    t->out = out;
    return t;
}

void objrel_text_free(objrel_text *t)
{
    if (!t)
        return;
    uint32_t n = insn_table_count(access_stream_insns(objrel_stream(t->rel)));
    for (uint32_t i = 0; i < n; i++)
        free(*(char **)objrel_user(t->rel, i));
    for (size_t i = 0; i < t->ngroup_names; i++)
        free(t->group_names[i]);
    free(t->group_names);
    objrel_free(t->rel);
    free(t);
}

void objrel_text_header(objrel_text *t)
{
    fprintf(t->out, "# time\ttid\tinstruction\tpc\tkind\tsize\tgroup\tobject\t"
                    "offset\taddress\n");
}

/* "function:line\tpc" of an instruction, made at its first access. */
static const char *insn_where(objrel_text *t, uint32_t insn)
{
    char **where = objrel_user(t->rel, insn);
    if (!*where) {
        const insn_info *in =
            insn_table_get(access_stream_insns(objrel_stream(t->rel)), insn);
        char buf[SYM_BUF], line[SYM_BUF + 32];
        sym_where(t->r, in->addr, buf, sizeof buf);
        snprintf(line, sizeof line, "%s\t0x%" PRIx64, buf, in->addr);
        *where = strdup(line);
    }
    return *where;
}

static const char *group_name(objrel_text *t, const obj_group *g)
{
    if (ARRAY_FIT(t->group_names, t->ngroup_names, (size_t)g->id + 1) < 0)
        return NULL;
    if (!t->group_names[g->id]) {
        char buf[SYM_BUF];
        obj_group_name(t->r, g, buf, sizeof buf);
        t->group_names[g->id] = strdup(buf);
    }
    return t->group_names[g->id];
}

/* Execution j of access i of x. */
static int print_access(objrel_text *t, const access_exec *x, uint32_t i,
                        uint64_t j)
{
    static const char kinds[] = "?LSM";
    const mr_access *a = &x->acc[i];
    uint64_t addr = a->addr + (j ? j * x->strides[i] : 0);
    obj_object *o = objrel_find(t->rel, x, i, addr);
    const char *gname = group_name(t, o->group);
    const char *where = insn_where(t, x->insn[i]);
    if (!gname || !where)
        return -1;
    if (t->only && strcmp(t->only, gname) != 0)
        return 0;
    fprintf(t->out, "%" PRIu64 "\t%" PRIu32 "\t%s\t%c\t%" PRIu32 "\t%s\t%"
            PRIu64 "\t%" PRIu64 "\t0x%" PRIx64 "\n",
            access_time(x, i, j), x->ev->tid, where, kinds[a->kind & 3],
            a->size, gname, o->serial, addr - o->addr, addr);
    return 0;
}

int objrel_text_event(objrel_text *t, const mr_event *ev)
{
    access_exec x;
    int rc = objrel_event(t->rel, ev, &x);
    if (rc <= 0)
        return rc;
    for (uint64_t j = 0; j < x.repeat; j++)
        for (uint32_t i = 0; i < x.n; i++)
            if (print_access(t, &x, i, j) < 0)
                return -1;
    return 0;
}
