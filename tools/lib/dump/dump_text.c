/*
 * dump_text.c: the text form of trace-dump. Lines by event kind, after
 * "TIME tTID ":
 *
 *   process pid=P ppid=P start=ISO-TIME exe="..." argv=["..",..] options="..."
 *   module ID "PATH" text=0xADDR+0xSIZE bias=0xB
 *   symbol 0xADDR function="f" file="f.c" line=N
 *   dataobj "NAME" 0xADDR size=N module=ID
 *   block ID 0xADDR instrs=N accesses=N exits=N
 *     instr I 0xADDR,LEN WHERE
 *     access A instr=I KIND SIZE [value] [guarded]
 *     exit E instrs=N accesses=N jump=J
 *   stack ID depth=N WHERE <- WHERE <- ...
 *   switch tid=T | thread-create tid=T parent=P | thread-exit tid=T
 *   exec 0xADDR WHERE exit=E instrs=N block=ID [jump=J]
 *     L|S|M 0xADDR,SIZE @0xINSTR [=0xVALUE]
 *   call|return 0xFROM WHERE -> 0xTO WHERE
 *   OP 0xADDR size=N [count=N|align=N] [old=0xADDR] [stack=#ID (WHERE <- ...)]
 *   mark "NAME"
 *   collect on|off
 *   end REASON [status=N|signal=N] instructions=N blocks=N loads=N stores=N
 *       modifies=N calls=N returns=N allocs=N frees=N reallocs=N threads=N
 *
 * (the end line is one line; its totals are the end record's, where a
 * modify is in neither loads nor stores).
 */
#include "dump/dump_text.h"

#include <stdlib.h>
#include <string.h>

#include "info/info_report.h"
#include "base/symbolize.h"

void dump_text_init(dump_text *t, dump_out *o, const mr_reader *r)
{
    t->out = o;
    t->reader = r;
    u64map_init(&t->where);
}

void dump_text_free(dump_text *t)
{
    for (size_t i = 0; i < t->where.cap; i++)
        if (t->where.slots[i].used)
            free(t->where.slots[i].value);
    u64map_free(&t->where);
}

/* A name from the library's tables, or "?" if the value has none. */
static const char *name_or_unknown(const char *name)
{
    return name ? name : "?";
}

/* Appends the symbolised form of a code address. */
static void where(dump_text *t, uint64_t addr)
{
    char buf[SYM_BUF];
    out_str(t->out, sym_where(t->reader, addr, buf, sizeof buf));
}

/* The symbolised start of a block, cached: executions repeat a lot. */
static void block_where(dump_text *t, const mr_block_def *def)
{
    int added;
    void **slot = u64map_slot_of(&t->where, (uintptr_t)def, &added);
    if (slot && !*slot) {
        char buf[SYM_BUF];
        *slot = strdup(sym_where(t->reader, def->addr, buf, sizeof buf));
    }
    if (slot && *slot)
        out_str(t->out, *slot);
    else
        where(t, def->addr);    /* out of memory: print it uncached */
}

/* " key=VALUE" with VALUE in decimal. */
static void field_u64(dump_out *o, const char *key, uint64_t v)
{
    out_char(o, ' ');
    out_str(o, key);
    out_char(o, '=');
    out_u64(o, v);
}

/* " key=0xVALUE". */
static void field_addr(dump_out *o, const char *key, uint64_t v)
{
    out_char(o, ' ');
    out_str(o, key);
    out_char(o, '=');
    out_addr(o, v);
}

/* " key=\"VALUE\"" (or key=null). */
static void field_str(dump_out *o, const char *key, const char *v)
{
    out_char(o, ' ');
    out_str(o, key);
    out_char(o, '=');
    out_quoted(o, v);
}

/* "L", "S", "M" as Lackey writes access kinds; "?" for anything else. */
static char kind_letter(int kind)
{
    return kind == MR_LOAD ? 'L' : kind == MR_STORE ? 'S'
         : kind == MR_MODIFY ? 'M' : '?';
}

static void print_process(dump_text *t, const mr_process *p)
{
    dump_out *o = t->out;
    char when[40];
    out_str(o, "process");
    field_u64(o, "pid", p->pid);
    field_u64(o, "ppid", p->ppid);
    out_str(o, " start=");
    out_str(o, info_format_time(p->start_usec, when, sizeof when));
    field_str(o, "exe", p->exe);
    out_str(o, " argv=[");
    for (uint32_t i = 0; i < p->argc; i++) {
        if (i)
            out_char(o, ',');
        out_quoted(o, p->argv[i]);
    }
    out_char(o, ']');
    field_str(o, "options", p->tool_options);
}

static void print_module(dump_text *t, const mr_module *m)
{
    dump_out *o = t->out;
    out_str(o, "module ");
    out_u64(o, m->id);
    out_char(o, ' ');
    out_quoted(o, m->path);
    field_addr(o, "text", m->text_addr);
    out_char(o, '+');
    out_addr(o, m->text_size);
    out_str(o, " bias=");
    if (m->bias < 0) {
        out_char(o, '-');
        out_addr(o, (uint64_t)0 - (uint64_t)m->bias);
    } else {
        out_addr(o, (uint64_t)m->bias);
    }
}

static void print_symbol(dump_text *t, const mr_symbol *s)
{
    dump_out *o = t->out;
    out_str(o, "symbol ");
    out_addr(o, s->addr);
    field_str(o, "function", s->function);
    field_str(o, "file", s->file);
    field_u64(o, "line", s->line);
}

static void print_dataobj(dump_text *t, const mr_dataobj *d)
{
    dump_out *o = t->out;
    out_str(o, "dataobj ");
    out_quoted(o, d->name);
    out_char(o, ' ');
    out_addr(o, d->addr);
    field_u64(o, "size", d->size);
    field_u64(o, "module", d->module);
}

/* The block line, then one indented line per instruction, access, exit. */
static void print_block_def(dump_text *t, const mr_block_def *b)
{
    dump_out *o = t->out;
    out_str(o, "block ");
    out_u64(o, b->id);
    out_char(o, ' ');
    out_addr(o, b->addr);
    field_u64(o, "instrs", b->ninstrs);
    field_u64(o, "accesses", b->naccesses);
    field_u64(o, "exits", b->nexits);
    for (uint32_t i = 0; i < b->ninstrs; i++) {
        out_str(o, "\n  instr ");
        out_u64(o, i);
        out_char(o, ' ');
        out_addr(o, b->instrs[i].addr);
        out_char(o, ',');
        out_u64(o, b->instrs[i].len);
        out_char(o, ' ');
        where(t, b->instrs[i].addr);
    }
    for (uint32_t a = 0; a < b->naccesses; a++) {
        const mr_access_def *d = &b->accesses[a];
        out_str(o, "\n  access ");
        out_u64(o, a);
        field_u64(o, "instr", d->instr);
        out_char(o, ' ');
        out_char(o, kind_letter(d->kind));
        out_char(o, ' ');
        out_u64(o, d->size);
        if (d->flags & MR_ACC_VALUE)
            out_str(o, " value");
        if (d->flags & MR_ACC_GUARDED)
            out_str(o, " guarded");
    }
    for (uint32_t e = 0; e < b->nexits; e++) {
        out_str(o, "\n  exit ");
        out_u64(o, e);
        field_u64(o, "instrs", b->exits[e].ninstrs);
        field_u64(o, "accesses", b->exits[e].naccesses);
        out_str(o, " jump=");
        out_str(o, name_or_unknown(mr_jump_name(b->exits[e].jump)));
    }
}

/* "WHERE <- WHERE <- ..." for the frames of a stack, innermost first. */
static void print_frames(dump_text *t, const mr_stack *s)
{
    for (uint32_t i = 0; i < s->depth; i++) {
        if (i)
            out_str(t->out, " <- ");
        where(t, s->ips[i]);
    }
}

static void print_stack(dump_text *t, const mr_stack *s)
{
    out_str(t->out, "stack ");
    out_u64(t->out, s->id);
    field_u64(t->out, "depth", s->depth);
    out_char(t->out, ' ');
    print_frames(t, s);
}

static void print_thread(dump_text *t, const mr_event *ev)
{
    dump_out *o = t->out;
    switch (ev->u.thread.op) {
    case MR_THREAD_SWITCH: out_str(o, "switch"); break;
    case MR_THREAD_CREATE: out_str(o, "thread-create"); break;
    case MR_THREAD_EXIT: out_str(o, "thread-exit"); break;
    case MR_THREAD_OS: out_str(o, "thread-os"); break;
    default: out_fmt(o, "thread-op-%u", ev->u.thread.op); break;
    }
    field_u64(o, "tid", ev->u.thread.tid);
    if (ev->u.thread.op == MR_THREAD_CREATE)
        field_u64(o, "parent", ev->u.thread.parent);
    if (ev->u.thread.op == MR_THREAD_OS)
        field_u64(o, "os_tid", ev->u.thread.os_tid);
}

/* The exec line, then one indented line per access performed. */
static void print_exec(dump_text *t, const mr_event *ev)
{
    dump_out *o = t->out;
    const mr_block_def *def = ev->u.exec.def;
    out_str(o, "exec ");
    out_addr(o, def->addr);
    out_char(o, ' ');
    block_where(t, def);
    field_u64(o, "exit", ev->u.exec.exit);
    field_u64(o, "instrs", ev->u.exec.ninstrs);
    field_u64(o, "block", def->id);
    if (ev->u.exec.exit < def->nexits &&
        def->exits[ev->u.exec.exit].jump != MR_JUMP_BORING) {
        out_str(o, " jump=");
        out_str(o, name_or_unknown(mr_jump_name(def->exits[ev->u.exec.exit].jump)));
    }
    for (uint32_t a = 0; a < ev->u.exec.naccesses; a++) {
        const mr_access *acc = &ev->u.exec.accesses[a];
        out_str(o, "\n  ");
        out_char(o, kind_letter(acc->kind));
        out_char(o, ' ');
        out_addr(o, acc->addr);
        out_char(o, ',');
        out_u64(o, acc->size);
        if (acc->instr < def->ninstrs) {
            out_str(o, " @");
            out_addr(o, def->instrs[acc->instr].addr);
        }
        if (acc->has_value) {
            out_str(o, " =");
            out_addr(o, acc->value);
        }
    }
}

static void print_call(dump_text *t, const mr_event *ev)
{
    dump_out *o = t->out;
    out_str(o, ev->kind == MR_EV_CALL ? "call " : "return ");
    out_addr(o, ev->u.call.from);
    out_char(o, ' ');
    where(t, ev->u.call.from);
    out_str(o, " -> ");
    out_addr(o, ev->u.call.to);
    out_char(o, ' ');
    where(t, ev->u.call.to);
}

static void print_heap(dump_text *t, const mr_event *ev)
{
    dump_out *o = t->out;
    const mr_heap *h = &ev->u.heap.h;
    int is_free = h->op == MR_FREE || h->op == MR_DELETE ||
                  h->op == MR_DELETE_ARRAY;
    out_str(o, name_or_unknown(mr_heap_op_name(h->op)));
    out_char(o, ' ');
    out_addr(o, h->addr);
    if (!is_free)
        field_u64(o, "size", h->size);
    if (h->op == MR_CALLOC)
        field_u64(o, "count", h->count);
    else if (h->op == MR_MEMALIGN)
        field_u64(o, "align", h->count);
    if (h->op == MR_REALLOC)
        field_addr(o, "old", h->old_addr);
    if (h->stack) {
        out_str(o, " stack=#");
        out_u64(o, h->stack);
        if (ev->u.heap.stack) {
            out_str(o, " (");
            print_frames(t, ev->u.heap.stack);
            out_char(o, ')');
        }
    }
}

static void print_end(dump_text *t, const mr_end *e)
{
    dump_out *o = t->out;
    const mr_totals *c = &e->totals;
    out_str(o, "end ");
    out_str(o, name_or_unknown(mr_end_reason_name(e->reason)));
    if (e->reason == MR_END_EXIT) {
        out_str(o, " status=");
        out_i64(o, e->status);
    } else if (e->reason == MR_END_SIGNAL) {
        out_str(o, " signal=");
        out_i64(o, e->signal);
    }
    field_u64(o, "instructions", c->instructions);
    field_u64(o, "blocks", c->blocks);
    field_u64(o, "loads", c->loads);
    field_u64(o, "stores", c->stores);
    field_u64(o, "modifies", c->modifies);
    field_u64(o, "calls", c->calls);
    field_u64(o, "returns", c->returns);
    field_u64(o, "allocs", c->allocs);
    field_u64(o, "frees", c->frees);
    field_u64(o, "reallocs", c->reallocs);
    field_u64(o, "threads", c->threads);
}

void dump_text_event(dump_text *t, const mr_event *ev)
{
    dump_out *o = t->out;
    out_u64(o, ev->time);
    out_str(o, " t");
    out_u64(o, ev->tid);
    out_char(o, ' ');
    switch (ev->kind) {
    case MR_EV_PROCESS: print_process(t, ev->u.process); break;
    case MR_EV_MODULE: print_module(t, ev->u.module); break;
    case MR_EV_SYMBOL: print_symbol(t, ev->u.symbol); break;
    case MR_EV_DATAOBJ: print_dataobj(t, ev->u.dataobj); break;
    case MR_EV_BLOCK_DEF: print_block_def(t, ev->u.block_def); break;
    case MR_EV_STACK: print_stack(t, ev->u.stack); break;
    case MR_EV_THREAD: print_thread(t, ev); break;
    case MR_EV_EXEC: print_exec(t, ev); break;
    case MR_EV_CALL: case MR_EV_RETURN: print_call(t, ev); break;
    case MR_EV_HEAP: print_heap(t, ev); break;
    case MR_EV_MARK:
        out_str(o, "mark ");
        out_quoted(o, ev->u.mark);
        break;
    case MR_EV_COLLECT:
        out_str(o, ev->u.collect_on ? "collect on" : "collect off");
        break;
    case MR_EV_END: print_end(t, ev->u.end); break;
    default: out_fmt(o, "event-%d", (int)ev->kind); break;
    }
    out_char(o, '\n');
}
