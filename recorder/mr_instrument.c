/*
 * mr_instrument.c: VEX IR instrumentation of each superblock.
 *
 * Translation time (once per block): find the instructions, the memory
 * accesses (as Lackey counts them: loads, stores, guarded ones, CAS, LL/SC,
 * dirty helpers that touch memory) and the exits; send the block definition
 * (interned: same code, same id) and the symbols of its instructions.
 *
 * Run time (inline IR, no helper call per access): at entry load the buffer
 * cursor into a temp, flushing first if the block might not fit; for access
 * k store its address (0 if its guard is false) at cursor+8(1+k) and, for
 * the j-th access with a value, the value after all addresses; before each
 * exit store the header word (block id and exit index) at cursor+0 and the
 * cursor advanced by the record's fixed length. A block leaving by a later
 * exit overwrites both, so no word says "not taken"; a block that faults
 * stores no cursor and leaves nothing behind.
 */
#include "mr_tool.h"
#include "memrec_trace.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"

/* One memory access found in the input block. */
typedef struct access_info {
    Int stmt;             /* index of the statement performing it */
    UInt instr;           /* index of its instruction in the block */
    UChar kind;           /* mr_access_kind */
    UChar flags;          /* MR_ACC_* */
    UInt size;            /* bytes */
    IRExpr *addr;         /* address (an atom) */
    IRExpr *guard;        /* NULL when unconditional */
    IRExpr *value;        /* atom holding the value, when MR_ACC_VALUE */
    IRType vtype;         /* its type */
} access_info;

/* One exit found in the input block. */
typedef struct exit_info {
    Int stmt;             /* index of the Ist_Exit, or -1 for the block's end */
    UInt ninstrs, naccesses;
    UChar jump;           /* mr_jump */
} exit_info;

/* What the analysis pass found; arrays grow as needed (VG_(realloc)). */
typedef struct block_scan {
    Addr *iaddr;
    UInt *ilen;
    UInt ninstrs, instr_cap;
    access_info *acc;
    UInt nacc, acc_cap;       /* accesses (a merged store is not one) */
    exit_info *exits;
    UInt nexits, exit_cap;
    Int first_imark;
} block_scan;

#define GROW(p, n, cap, what) \
    do { if ((n) == (cap)) { (cap) = (cap) ? 2 * (cap) : 16; \
         (p) = VG_(realloc)(what, (p), (cap) * sizeof *(p)); } } while (0)

static UChar map_jump(IRJumpKind jk)
{
    switch (jk) {
    case Ijk_Boring: return MR_JUMP_BORING;
    case Ijk_Call: return MR_JUMP_CALL;
    case Ijk_Ret: return MR_JUMP_RET;
    case Ijk_Sys_syscall:
    case Ijk_Sys_int32:
    case Ijk_Sys_int128:
    case Ijk_Sys_int129:
    case Ijk_Sys_int130:
    case Ijk_Sys_int145:
    case Ijk_Sys_int210:
    case Ijk_Sys_sysenter: return MR_JUMP_SYSCALL;
    default: return MR_JUMP_OTHER;
    }
}

/* Whether the chosen --values mode records a value of this type. */
static Bool wants_value(IRType ty)
{
    switch (mr_clo.values) {
    case MR_VALUES_POINTERS:
        return ty == Ity_I64;
    case MR_VALUES_ALL:
        return ty == Ity_I8 || ty == Ity_I16 || ty == Ity_I32 || ty == Ity_I64 ||
               ty == Ity_F32 || ty == Ity_F64;
    default:
        return False;
    }
}

/* ---- pointer-sized values that are data ----
 * --values=pointers records every 8-byte load and store, but one moved
 * between memory and a vector register (movsd, movq to or from %xmm) is
 * floating-point or vector data: addresses live in integer registers. Its
 * value would be recorded for nothing and, changing every time, keep loops
 * over doubles from being coded as repeats. */

#if defined(VGA_amd64)
#include <stddef.h>
#include "libvex_guest_amd64.h"
/* Whether size bytes at guest state offset off lie in %ymm0-%ymm15. */
static Bool in_vector_regs(Int off, Int size)
{
    return off >= (Int)offsetof(VexGuestAMD64State, guest_YMM0) &&
           off + size <= (Int)offsetof(VexGuestAMD64State, guest_YMM16);
}
#else
static Bool in_vector_regs(Int off, Int size) { return False; }
#endif

/* Whether expression e reads temp t. */
static Bool expr_reads(const IRExpr *e, IRTemp t)
{
    if (!e)
        return False;
    switch (e->tag) {
    case Iex_RdTmp: return e->Iex.RdTmp.tmp == t;
    case Iex_Load: return expr_reads(e->Iex.Load.addr, t);
    case Iex_GetI: return expr_reads(e->Iex.GetI.ix, t);
    case Iex_Unop: return expr_reads(e->Iex.Unop.arg, t);
    case Iex_Binop: return expr_reads(e->Iex.Binop.arg1, t) || expr_reads(e->Iex.Binop.arg2, t);
    case Iex_Triop:
        return expr_reads(e->Iex.Triop.details->arg1, t) ||
               expr_reads(e->Iex.Triop.details->arg2, t) ||
               expr_reads(e->Iex.Triop.details->arg3, t);
    case Iex_Qop:
        return expr_reads(e->Iex.Qop.details->arg1, t) ||
               expr_reads(e->Iex.Qop.details->arg2, t) ||
               expr_reads(e->Iex.Qop.details->arg3, t) ||
               expr_reads(e->Iex.Qop.details->arg4, t);
    case Iex_ITE:
        return expr_reads(e->Iex.ITE.cond, t) || expr_reads(e->Iex.ITE.iftrue, t) ||
               expr_reads(e->Iex.ITE.iffalse, t);
    case Iex_CCall:
        for (Int i = 0; e->Iex.CCall.args[i]; i++)
            if (expr_reads(e->Iex.CCall.args[i], t))
                return True;
        return False;
    default:
        return False;   /* Get, Const and the like read no temp */
    }
}

/* Floating-point and vector types: what no address is computed in. */
static Bool is_data_type(IRType ty)
{
    return ty == Ity_F16 || ty == Ity_F32 || ty == Ity_F64 || ty == Ity_F128 ||
           ty == Ity_D32 || ty == Ity_D64 || ty == Ity_D128 || ty == Ity_V128 ||
           ty == Ity_V256;
}

/* Whether statement st of sb reads temp t, apart from "PUT(vector reg) =
 * t" and a floating-point or vector temp computed from it (*into_vector
 * is then set). */
static Bool stmt_reads(const IRSB *sb, const IRStmt *st, IRTemp t, Bool *into_vector)
{
    switch (st->tag) {
    case Ist_Put: {
        const IRExpr *d = st->Ist.Put.data;
        if (d->tag == Iex_RdTmp && d->Iex.RdTmp.tmp == t &&
            in_vector_regs(st->Ist.Put.offset, 8)) {
            *into_vector = True;
            return False;
        }
        return expr_reads(d, t);
    }
    case Ist_PutI:
        return expr_reads(st->Ist.PutI.details->ix, t) ||
               expr_reads(st->Ist.PutI.details->data, t);
    case Ist_WrTmp:
        if (!expr_reads(st->Ist.WrTmp.data, t))
            return False;
        if (is_data_type(typeOfIRTemp(sb->tyenv, st->Ist.WrTmp.tmp))) {
            *into_vector = True;   /* e.g. 64UtoV128 for addsd (mem), %xmm0 */
            return False;
        }
        return True;
    case Ist_Store: return expr_reads(st->Ist.Store.addr, t) || expr_reads(st->Ist.Store.data, t);
    case Ist_StoreG: {
        const IRStoreG *g = st->Ist.StoreG.details;
        return expr_reads(g->addr, t) || expr_reads(g->data, t) || expr_reads(g->guard, t);
    }
    case Ist_LoadG: {
        const IRLoadG *g = st->Ist.LoadG.details;
        return expr_reads(g->addr, t) || expr_reads(g->alt, t) || expr_reads(g->guard, t);
    }
    case Ist_CAS: {
        const IRCAS *c = st->Ist.CAS.details;
        return expr_reads(c->addr, t) || expr_reads(c->expdLo, t) || expr_reads(c->expdHi, t) ||
               expr_reads(c->dataLo, t) || expr_reads(c->dataHi, t);
    }
    case Ist_LLSC:
        return expr_reads(st->Ist.LLSC.addr, t) || expr_reads(st->Ist.LLSC.storedata, t);
    case Ist_Dirty: {
        const IRDirty *d = st->Ist.Dirty.details;
        if (expr_reads(d->guard, t) || expr_reads(d->mAddr, t))
            return True;
        for (Int i = 0; d->args[i]; i++)
            if (expr_reads(d->args[i], t))
                return True;
        return False;
    }
    case Ist_Exit: return expr_reads(st->Ist.Exit.guard, t);
    case Ist_AbiHint:
        return expr_reads(st->Ist.AbiHint.base, t) || expr_reads(st->Ist.AbiHint.nia, t);
    default:
        return False;
    }
}

/* Whether the value of an access is vector data: a load whose temp goes
 * nowhere but into vector registers or floating-point and vector temps,
 * or a store of a temp read from a vector register. */
static Bool is_vector_data(const IRSB *sb, const access_info *a)
{
    if (!a->value || a->value->tag != Iex_RdTmp)
        return False;
    IRTemp t = a->value->Iex.RdTmp.tmp;
    if (a->kind == MR_LOAD) {
        Bool into_vector = False;
        for (Int i = a->stmt + 1; i < sb->stmts_used; i++)
            if (stmt_reads(sb, sb->stmts[i], t, &into_vector))
                return False;
        return into_vector && !expr_reads(sb->next, t);
    }
    for (Int i = 0; i < a->stmt; i++) {   /* a store: where t comes from */
        const IRStmt *st = sb->stmts[i];
        if (st->tag != Ist_WrTmp || st->Ist.WrTmp.tmp != t)
            continue;
        const IRExpr *d = st->Ist.WrTmp.data;   /* a lane of %xmm, or V128to64(...) */
        return (d->tag == Iex_Get && in_vector_regs(d->Iex.Get.offset, 8)) ||
               (d->tag == Iex_Unop && is_data_type(typeOfIRExpr(sb->tyenv, d->Iex.Unop.arg)));
    }
    return False;
}

/* Drops the value of every pointer-sized access that moves vector data. */
static void drop_vector_values(block_scan *s, const IRSB *sb)
{
    if (mr_clo.values != MR_VALUES_POINTERS)
        return;
    for (UInt i = 0; i < s->nacc; i++) {
        access_info *a = &s->acc[i];
        if ((a->flags & MR_ACC_VALUE) && is_vector_data(sb, a)) {
            a->flags &= (UChar)~MR_ACC_VALUE;
            a->value = NULL;
        }
    }
}

static Bool is_true(const IRExpr *guard)
{
    return guard == NULL ||
           (guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1 &&
            guard->Iex.Const.con->Ico.U1);
}

static void add_access(block_scan *s, Int stmt, UChar kind, UInt size,
                       IRExpr *addr, IRExpr *guard, IRExpr *value, IRType vtype)
{
    access_info *a;
    if (!mr_clo.trace_mem)
        return;
    /* A store right after a load of the same size from the same address
     * expression in the same instruction is one modify (Lackey's "M"). */
    if (kind == MR_STORE && is_true(guard) && s->nacc > 0) {
        access_info *prev = &s->acc[s->nacc - 1];
        if (prev->kind == MR_LOAD && !prev->guard &&
            prev->instr == s->ninstrs - 1 && prev->size == size &&
            eqIRAtom(prev->addr, addr)) {
            prev->kind = MR_MODIFY;
            return;
        }
    }
    GROW(s->acc, s->nacc, s->acc_cap, "mr.scan.acc");
    a = &s->acc[s->nacc++];
    a->stmt = stmt;
    a->instr = s->ninstrs - 1;
    a->kind = kind;
    a->size = size;
    a->addr = addr;
    a->guard = is_true(guard) ? NULL : guard;
    a->flags = a->guard ? MR_ACC_GUARDED : 0;
    a->value = NULL;
    a->vtype = vtype;
    if (value && wants_value(vtype)) {
        a->value = value;
        a->flags |= MR_ACC_VALUE;
    }
}

static void add_exit(block_scan *s, Int stmt, IRJumpKind jk)
{
    GROW(s->exits, s->nexits, s->exit_cap, "mr.scan.exits");
    exit_info *e = &s->exits[s->nexits++];
    e->stmt = stmt;
    e->ninstrs = s->ninstrs;
    e->naccesses = s->nacc;
    e->jump = map_jump(jk);
}

/* The accesses of one statement, in the order Lackey counts them. */
static void scan_stmt(block_scan *s, IRSB *sb, Int i)
{
    IRStmt *st = sb->stmts[i];
    IRTypeEnv *env = sb->tyenv;
    switch (st->tag) {
    case Ist_IMark:
        GROW(s->iaddr, s->ninstrs, s->instr_cap, "mr.scan.iaddr");
        s->ilen = VG_(realloc)("mr.scan.ilen", s->ilen, s->instr_cap * sizeof(UInt));
        s->iaddr[s->ninstrs] = st->Ist.IMark.addr;
        s->ilen[s->ninstrs] = st->Ist.IMark.len;
        s->ninstrs++;
        break;
    case Ist_WrTmp: {
        IRExpr *e = st->Ist.WrTmp.data;
        if (e->tag == Iex_Load)
            add_access(s, i, MR_LOAD, sizeofIRType(e->Iex.Load.ty), e->Iex.Load.addr,
                       NULL, IRExpr_RdTmp(st->Ist.WrTmp.tmp), e->Iex.Load.ty);
        break;
    }
    case Ist_Store: {
        IRType ty = typeOfIRExpr(env, st->Ist.Store.data);
        add_access(s, i, MR_STORE, sizeofIRType(ty), st->Ist.Store.addr, NULL,
                   st->Ist.Store.data, ty);
        break;
    }
    case Ist_StoreG: {
        IRStoreG *sg = st->Ist.StoreG.details;
        IRType ty = typeOfIRExpr(env, sg->data);
        add_access(s, i, MR_STORE, sizeofIRType(ty), sg->addr, sg->guard, sg->data, ty);
        break;
    }
    case Ist_LoadG: {
        IRLoadG *lg = st->Ist.LoadG.details;
        IRType wide = Ity_INVALID, narrow = Ity_INVALID;
        typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
        add_access(s, i, MR_LOAD, sizeofIRType(narrow), lg->addr, lg->guard,
                   IRExpr_RdTmp(lg->dst), wide);
        break;
    }
    case Ist_CAS: {
        IRCAS *cas = st->Ist.CAS.details;
        IRType ty = typeOfIRExpr(env, cas->dataLo);
        UInt size = sizeofIRType(ty) * (cas->dataHi ? 2 : 1);
        add_access(s, i, MR_MODIFY, size, cas->addr, NULL,
                   cas->dataHi ? NULL : IRExpr_RdTmp(cas->oldLo), ty);
        break;
    }
    case Ist_LLSC:
        if (st->Ist.LLSC.storedata == NULL) {
            IRType ty = typeOfIRTemp(env, st->Ist.LLSC.result);
            add_access(s, i, MR_LOAD, sizeofIRType(ty), st->Ist.LLSC.addr, NULL,
                       IRExpr_RdTmp(st->Ist.LLSC.result), ty);
        } else {
            IRType ty = typeOfIRExpr(env, st->Ist.LLSC.storedata);
            add_access(s, i, MR_STORE, sizeofIRType(ty), st->Ist.LLSC.addr, NULL,
                       st->Ist.LLSC.storedata, ty);
        }
        break;
    case Ist_Dirty: {
        IRDirty *d = st->Ist.Dirty.details;
        if (d->mFx == Ifx_Read)
            add_access(s, i, MR_LOAD, d->mSize, d->mAddr, d->guard, NULL, Ity_INVALID);
        else if (d->mFx == Ifx_Write)
            add_access(s, i, MR_STORE, d->mSize, d->mAddr, d->guard, NULL, Ity_INVALID);
        else if (d->mFx == Ifx_Modify)
            add_access(s, i, MR_MODIFY, d->mSize, d->mAddr, d->guard, NULL, Ity_INVALID);
        break;
    }
    case Ist_Exit:
        add_exit(s, i, st->Ist.Exit.jk);
        break;
    default:
        break;
    }
}

/* The WIRE_BLOCK_DEF payload of a scanned block. */
static ULong *block_payload(const block_scan *s, UInt *nwords)
{
    UInt n = 4 + s->ninstrs + s->nacc + s->nexits;
    ULong *w = VG_(malloc)("mr.def", n * sizeof(ULong));
    UInt k = 0;
    w[k++] = s->iaddr[0];
    w[k++] = s->ninstrs;
    w[k++] = s->nacc;
    w[k++] = s->nexits;
    for (UInt i = 0; i < s->ninstrs; i++)
        w[k++] = (ULong)s->iaddr[i] << 8 | s->ilen[i];
    for (UInt i = 0; i < s->nacc; i++) {
        const access_info *a = &s->acc[i];
        w[k++] = a->instr | (ULong)a->kind << 16 | (ULong)a->flags << 24 |
                 (ULong)a->size << 32;
    }
    for (UInt i = 0; i < s->nexits; i++)
        w[k++] = s->exits[i].ninstrs | (ULong)s->exits[i].naccesses << 24 |
                 (ULong)s->exits[i].jump << 48;
    tl_assert(k == n);
    *nwords = n;
    return w;
}

/* ---- emission ---- */

/* State of the emission pass. */
typedef struct emitter {
    IRSB *out;
    IRTemp cur;          /* the cursor loaded at entry */
    UInt next_addr;      /* slot of the next address: 1, 2, ... */
    UInt next_value;     /* slot of the next value: after all addresses */
    UInt words;          /* the record's length: 1 + accesses + values */
    UInt block_id;
} emitter;

static IRExpr *new_tmp(IRSB *out, IRType ty, IRExpr *e)
{
    IRTemp t = newIRTemp(out->tyenv, ty);
    addStmtToIRSB(out, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

/* Stores an I64 atom at cursor + 8*slot. */
static void store_word(emitter *em, UInt slot, IRExpr *data)
{
    IRExpr *addr = slot == 0 ? IRExpr_RdTmp(em->cur)
                             : new_tmp(em->out, Ity_I64,
                                       IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(em->cur),
                                                    IRExpr_Const(IRConst_U64(8ULL * slot))));
    addStmtToIRSB(em->out, IRStmt_Store(Iend_LE, addr, data));
}

/* The value as an I64 atom. */
static IRExpr *widen(IRSB *out, IRExpr *v, IRType ty)
{
    switch (ty) {
    case Ity_I64: return v;
    case Ity_I32: return new_tmp(out, Ity_I64, IRExpr_Unop(Iop_32Uto64, v));
    case Ity_I16: return new_tmp(out, Ity_I64, IRExpr_Unop(Iop_16Uto64, v));
    case Ity_I8: return new_tmp(out, Ity_I64, IRExpr_Unop(Iop_8Uto64, v));
    case Ity_F64: return new_tmp(out, Ity_I64, IRExpr_Unop(Iop_ReinterpF64asI64, v));
    case Ity_F32:
        return new_tmp(out, Ity_I64, IRExpr_Unop(Iop_32Uto64,
                       new_tmp(out, Ity_I32, IRExpr_Unop(Iop_ReinterpF32asI32, v))));
    default: tl_assert(0);
    }
}

static void emit_access(emitter *em, const access_info *a)
{
    IRExpr *addr = a->addr;
    if (addr->tag == Iex_Const && addr->Iex.Const.con->tag != Ico_U64)
        addr = IRExpr_Const(IRConst_U64(addr->Iex.Const.con->Ico.U32));
    if (a->guard)
        addr = new_tmp(em->out, Ity_I64,
                       IRExpr_ITE(a->guard, addr, IRExpr_Const(IRConst_U64(0))));
    store_word(em, em->next_addr++, addr);
    if (a->flags & MR_ACC_VALUE)
        store_word(em, em->next_value++, widen(em->out, a->value, a->vtype));
}

/* Header and cursor for leaving through exit `index`. */
static void emit_leave(emitter *em, UInt index)
{
    ULong header = WIRE_EXEC | (ULong)index << 8 | (ULong)em->block_id << 24;
    store_word(em, 0, IRExpr_Const(IRConst_U64(header)));
    IRExpr *next = new_tmp(em->out, Ity_I64,
                           IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(em->cur),
                                        IRExpr_Const(IRConst_U64(8ULL * em->words))));
    addStmtToIRSB(em->out, IRStmt_Store(Iend_LE,
                  IRExpr_Const(IRConst_U64((ULong)(Addr)&mr_cursor)), next));
}

/* Loads the cursor, handing the slot over first when the block's record
 * might not fit in what is left of it. */
static void emit_entry(emitter *em, UInt naccesses, UInt nvalues)
{
    UInt max_words = 1 + naccesses + nvalues;
    IRExpr *cur0 = new_tmp(em->out, Ity_I64,
                           IRExpr_Load(Iend_LE, Ity_I64,
                                       IRExpr_Const(IRConst_U64((ULong)(Addr)&mr_cursor))));
    IRExpr *end = new_tmp(em->out, Ity_I64,
                          IRExpr_Load(Iend_LE, Ity_I64,
                                      IRExpr_Const(IRConst_U64((ULong)(Addr)&mr_buf_end))));
    IRExpr *need = new_tmp(em->out, Ity_I64,
                           IRExpr_Binop(Iop_Add64, cur0,
                                        IRExpr_Const(IRConst_U64(8ULL * max_words))));
    IRExpr *full = new_tmp(em->out, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, end, need));
    IRTemp fresh = newIRTemp(em->out->tyenv, Ity_I64);
    IRDirty *d = unsafeIRDirty_1_N(fresh, 0, "mr_stream_flush_full",
                                   VG_(fnptr_to_fnentry)(&mr_stream_flush_full),
                                   mkIRExprVec_0());
    d->guard = full;
    addStmtToIRSB(em->out, IRStmt_Dirty(d));
    em->cur = newIRTemp(em->out->tyenv, Ity_I64);
    addStmtToIRSB(em->out, IRStmt_WrTmp(em->cur, IRExpr_ITE(full, IRExpr_RdTmp(fresh), cur0)));
    em->next_addr = 1;
    em->next_value = 1 + naccesses;
    em->words = max_words;
}

#if defined(VGA_amd64)
/* The integer argument registers and the result register of the ABI. */
#define ARG0_OFFSET offsetof(VexGuestAMD64State, guest_RDI)
#define ARG1_OFFSET offsetof(VexGuestAMD64State, guest_RSI)
#define ARG2_OFFSET offsetof(VexGuestAMD64State, guest_RDX)
#define RESULT_OFFSET offsetof(VexGuestAMD64State, guest_RAX)
#endif

/* At the entry of an allocation function (mr_alloc.c): its arguments and
 * the stack pointer to mr_alloc_enter. Placed before the cursor is
 * loaded, since the helper may append records (a free's). */
static void emit_alloc_enter(IRSB *out, const VexGuestLayout *layout, UInt op)
{
    IRExpr *sp = new_tmp(out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
    IRExpr *a0 = new_tmp(out, Ity_I64, IRExpr_Get(ARG0_OFFSET, Ity_I64));
    IRExpr *a1 = new_tmp(out, Ity_I64, IRExpr_Get(ARG1_OFFSET, Ity_I64));
    IRExpr *a2 = new_tmp(out, Ity_I64, IRExpr_Get(ARG2_OFFSET, Ity_I64));
    IRDirty *d = unsafeIRDirty_0_N(0, "mr_alloc_enter", VG_(fnptr_to_fnentry)(&mr_alloc_enter),
                                   mkIRExprVec_5(IRExpr_Const(IRConst_U64(op)), sp, a0, a1, a2));
    addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* At the end of a block leaving by a return, after its record: if the
 * stack pointer is where the pending allocation call returns to,
 * mr_alloc_return with the result. One load and one compare otherwise. */
static void emit_alloc_return(IRSB *out, const VexGuestLayout *layout)
{
    IRExpr *sp = new_tmp(out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
    IRExpr *expect = new_tmp(out, Ity_I64,
                             IRExpr_Load(Iend_LE, Ity_I64,
                                         IRExpr_Const(IRConst_U64((ULong)(Addr)&mr_alloc_expect_sp))));
    IRExpr *hit = new_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, sp, expect));
    IRExpr *result = new_tmp(out, Ity_I64, IRExpr_Get(RESULT_OFFSET, Ity_I64));
    IRDirty *d = unsafeIRDirty_0_N(0, "mr_alloc_return", VG_(fnptr_to_fnentry)(&mr_alloc_return),
                                   mkIRExprVec_2(sp, result));
    d->guard = hit;
    addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* Calls helper(SP) at this point of the block. */
static void emit_sp_call(IRSB *out, const VexGuestLayout *layout, const HChar *name,
                         void *helper)
{
    IRExpr *sp = new_tmp(out, Ity_I64, IRExpr_Get(layout->offset_SP, Ity_I64));
    IRDirty *d = unsafeIRDirty_0_N(1, name, VG_(fnptr_to_fnentry)(helper),
                                   mkIRExprVec_1(sp));
    addStmtToIRSB(out, IRStmt_Dirty(d));
}

static Bool is_toggle_entry(Addr a)
{
    const HChar *name;
    return mr_clo.toggle_fn &&
           VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name) &&
           VG_(strcmp)(name, mr_clo.toggle_fn) == 0;
}

static void free_scan(block_scan *s)
{
    VG_(free)(s->iaddr);
    VG_(free)(s->ilen);
    VG_(free)(s->acc);
    VG_(free)(s->exits);
}

IRSB *mr_instrument(VgCallbackClosure *closure, IRSB *in,
                    const VexGuestLayout *layout, const VexGuestExtents *vge,
                    const VexArchInfo *archinfo, IRType gWordTy, IRType hWordTy)
{
    (void)closure; (void)vge; (void)archinfo;
    tl_assert(gWordTy == Ity_I64 && hWordTy == Ity_I64);

    block_scan s;
    VG_(memset)(&s, 0, sizeof s);
    s.first_imark = -1;
    for (Int i = 0; i < in->stmts_used; i++) {
        if (s.first_imark < 0 && in->stmts[i]->tag != Ist_IMark)
            continue;
        if (s.first_imark < 0)
            s.first_imark = i;
        scan_stmt(&s, in, i);
    }
    if (s.first_imark < 0) {        /* no guest code: nothing to record */
        free_scan(&s);
        return in;
    }
    add_exit(&s, -1, in->jumpkind);
    tl_assert(s.nexits < WIRE_MAX_EXITS);
    drop_vector_values(&s, in);

    mr_defs_scan_modules();
    UInt nwords;
    ULong *payload = block_payload(&s, &nwords);
    emitter em = { NULL, IRTemp_INVALID, 0, 0, 0, mr_defs_block_id(payload, nwords) };
    VG_(free)(payload);
    mr_defs_symbolize(s.iaddr, s.ninstrs);

    UInt nvalues = 0;
    for (UInt i = 0; i < s.nacc; i++)
        nvalues += (s.acc[i].flags & MR_ACC_VALUE) != 0;

    em.out = deepCopyIRSBExceptStmts(in);
    for (Int i = 0; i < s.first_imark; i++)
        addStmtToIRSB(em.out, in->stmts[i]);
    if (is_toggle_entry(s.iaddr[0]))
        emit_sp_call(em.out, layout, "mr_toggle_enter", &mr_toggle_enter);
    UInt alloc_op = mr_alloc_entry_op(s.iaddr[0]);
    if (alloc_op)
        emit_alloc_enter(em.out, layout, alloc_op);
    emit_entry(&em, s.nacc, nvalues);

    UInt next_acc = 0, next_exit = 0;
    for (Int i = s.first_imark; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (st->tag == Ist_Exit) {
            tl_assert(s.exits[next_exit].stmt == i);
            emit_leave(&em, next_exit++);
        }
        addStmtToIRSB(em.out, st);
        while (next_acc < s.nacc && s.acc[next_acc].stmt == i)
            emit_access(&em, &s.acc[next_acc++]);
    }
    emit_leave(&em, next_exit);
    if (in->jumpkind == Ijk_Ret)
        emit_alloc_return(em.out, layout);
    if (mr_clo.toggle_fn && in->jumpkind == Ijk_Ret)
        emit_sp_call(em.out, layout, "mr_toggle_check_return", &mr_toggle_check_return);
    free_scan(&s);
    return em.out;
}
