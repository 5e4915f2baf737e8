/*
 * regs.c: register uses and definitions of one instruction from capstone
 * (see regs.h). Only the folding of capstone's register ids onto whole
 * registers is ours; decoding is capstone's.
 */
#include "slice/regs.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slice_decoder {
    csh cs;
    cs_insn *insn;              /* capstone's scratch instruction, reused */
};

/* How a capstone register folds: its whole register, and whether a write
 * of it keeps part of the old value. */
typedef struct fold {
    int reg;                    /* SLICE_REG_* bit, or -1: not followed */
    int partial;
} fold;

/* The 16 general registers in SLICE_REG_GPR order, each by its 64, 32,
 * 16 and low and high 8-bit names (0: none). */
static const x86_reg gpr_names[16][5] = {
    { X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
    { X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
    { X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
    { X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
    { X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0 },
    { X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0 },
    { X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0 },
    { X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0 },
    { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0 },
    { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0 },
    { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0 },
    { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0 },
    { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0 },
    { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0 },
    { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0 },
    { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0 },
};

static const char *const gpr_print[16] = {
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

#define GPR_RBP 6
#define GPR_RSP 7

static fold fold_reg(unsigned r)
{
    for (int g = 0; g < 16; g++)
        for (int w = 0; w < 5; w++)
            if (gpr_names[g][w] && (unsigned)gpr_names[g][w] == r)
                return (fold){ g == GPR_RBP || g == GPR_RSP ? -1 : SLICE_REG_GPR + g, w >= 2 };
    if (r == X86_REG_EFLAGS)
        return (fold){ SLICE_REG_FLAGS, 0 };
    if (r >= X86_REG_XMM0 && r <= X86_REG_XMM31)
        return (fold){ SLICE_REG_VEC + (int)(r - X86_REG_XMM0), 0 };
    if (r >= X86_REG_YMM0 && r <= X86_REG_YMM31)
        return (fold){ SLICE_REG_VEC + (int)(r - X86_REG_YMM0), 0 };
    if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31)
        return (fold){ SLICE_REG_VEC + (int)(r - X86_REG_ZMM0), 0 };
    if ((r >= X86_REG_ST0 && r <= X86_REG_ST7) || (r >= X86_REG_FP0 && r <= X86_REG_FP7) ||
        r == X86_REG_FPSW)
        return (fold){ SLICE_REG_X87, 1 };  /* the stack as one: writes keep the rest */
    if (r >= X86_REG_K0 && r <= X86_REG_K7)
        return (fold){ SLICE_REG_MASK, 1 };
    if (r >= X86_REG_MM0 && r <= X86_REG_MM7)
        return (fold){ SLICE_REG_MMX, 1 };
    return (fold){ -1, 0 };     /* rip, segments, control and debug registers */
}

slice_decoder *slice_decoder_new(void)
{
    slice_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
        free(d);
        return NULL;
    }
    cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
    if (!(d->insn = cs_malloc(d->cs))) {
        cs_close(&d->cs);
        free(d);
        return NULL;
    }
    return d;
}

void slice_decoder_free(slice_decoder *d)
{
    if (!d)
        return;
    cs_free(d->insn, 1);
    cs_close(&d->cs);
    free(d);
}

/* "xor r, r" and its vector forms: the result does not depend on r. */
static int zeroing_idiom(const cs_insn *in)
{
    const cs_x86 *x = &in->detail->x86;
    switch (in->id) {
    case X86_INS_XOR: case X86_INS_SUB: case X86_INS_PXOR: case X86_INS_XORPS:
    case X86_INS_XORPD: case X86_INS_VPXOR: case X86_INS_VXORPS: case X86_INS_VXORPD:
        break;
    default:
        return 0;
    }
    int n = x->op_count;
    return n >= 2 && x->operands[n - 1].type == X86_OP_REG && x->operands[n - 2].type == X86_OP_REG &&
           x->operands[n - 1].reg == x->operands[n - 2].reg;
}

/* Does the instruction read fs:0x28 or fs:0x30 (the guards in glibc's TCB)? */
static int reads_guard(const cs_insn *in)
{
    const cs_x86 *x = &in->detail->x86;
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type == X86_OP_MEM && op->mem.segment == X86_REG_FS && op->mem.base == X86_REG_INVALID &&
            op->mem.index == X86_REG_INVALID && (op->mem.disp == 0x28 || op->mem.disp == 0x30))
            return 1;
    }
    return 0;
}

static int in_group(const cs_insn *in, int group)
{
    for (int i = 0; i < in->detail->groups_count; i++)
        if (in->detail->groups[i] == group)
            return 1;
    return 0;
}

static void classify_flow(const cs_insn *in, slice_regs *out)
{
    const cs_x86 *x = &in->detail->x86;
    if (in_group(in, CS_GRP_CALL))
        out->flow = SLICE_FLOW_CALL;
    else if (in_group(in, CS_GRP_RET) || in_group(in, CS_GRP_IRET))
        out->flow = SLICE_FLOW_RET;
    else if (in_group(in, CS_GRP_JUMP))
        out->flow = in->id == X86_INS_JMP || in->id == X86_INS_LJMP ? SLICE_FLOW_JUMP : SLICE_FLOW_COND;
    else if (in_group(in, CS_GRP_INT))
        out->flow = SLICE_FLOW_OTHER;
    else
        out->flow = SLICE_FLOW_NEXT;
    if (out->flow != SLICE_FLOW_NEXT && x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
        out->target = (uint64_t)x->operands[0].imm;
}

int slice_decode(slice_decoder *d, const uint8_t *code, uint32_t n, uint64_t addr, slice_regs *out)
{
    const uint8_t *p = code;
    size_t left = n;
    uint64_t at = addr;
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    memset(out, 0, sizeof *out);
    if (!cs_disasm_iter(d->cs, &p, &left, &at, d->insn) ||
        cs_regs_access(d->cs, d->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
        return -1;
    out->len = (uint8_t)d->insn->size;
    int keeps = in_group(d->insn, X86_GRP_CMOV);   /* a false condition writes nothing */
    for (int i = 0; i < nrd; i++) {
        fold f = fold_reg(rd[i]);
        if (f.reg >= 0)
            out->uses |= 1ull << f.reg;
    }
    for (int i = 0; i < nwr; i++) {
        fold f = fold_reg(wr[i]);
        if (f.reg < 0)
            continue;
        out->defs |= 1ull << f.reg;
        if (f.partial || keeps)
            out->uses |= 1ull << f.reg;
    }
    if (zeroing_idiom(d->insn))
        out->uses = 0;
    out->guard = (uint8_t)reads_guard(d->insn);
    classify_flow(d->insn, out);
    return 0;
}

const char *slice_reg_name(int r)
{
    static const char *const vec[32] = {
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
        "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",
    };
    if (r >= SLICE_REG_GPR && r < SLICE_REG_GPR + 16)
        return gpr_print[r - SLICE_REG_GPR];
    if (r >= SLICE_REG_VEC && r < SLICE_REG_VEC + 32)
        return vec[r - SLICE_REG_VEC];
    switch (r) {
    case SLICE_REG_FLAGS: return "flags";
    case SLICE_REG_X87: return "x87";
    case SLICE_REG_MASK: return "k";
    case SLICE_REG_MMX: return "mmx";
    default: return "?";
    }
}

int slice_reg_parse(const char *name)
{
    for (int r = 0; r < SLICE_NREGS; r++)
        if (!strcmp(slice_reg_name(r), name))
            return r == SLICE_REG_GPR + GPR_RBP || r == SLICE_REG_GPR + GPR_RSP ? -1 : r;
    /* 32, 16 and 8-bit names through capstone's own table */
    csh cs;
    int found = -1;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
        return -1;
    for (unsigned r = 1; r < X86_REG_ENDING && found < 0; r++) {
        const char *n = cs_reg_name(cs, r);
        if (n && !strcmp(n, name))
            found = fold_reg(r).reg;
    }
    cs_close(&cs);
    return found;
}
