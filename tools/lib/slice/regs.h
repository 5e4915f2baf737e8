/*
 * regs.h: what one x86-64 instruction does to registers, from its machine
 * code through capstone (cs_regs_access): the registers it reads and
 * writes, folded onto whole registers (al, ax, eax -> rax; xmm3, ymm3 ->
 * vector 3), and whether it branches. A trace has instruction addresses
 * and lengths but no bytes: the bytes come from the module file (see
 * code.h).
 *
 * Register data flow for slicing, as docs/trace-slice.md says:
 *   - rsp, rbp and rip are never uses: they locate frames and code, and
 *     following them would put every push, call and prologue in a slice;
 *   - a write of 8 or 16 bits, a cmov and any conditional write keep the
 *     rest of the old value, so the register is also a use;
 *   - "xor r, r" and its vector forms read nothing (the zeroing idiom);
 *   - one flags register; the x87 stack is one register;
 *   - a read of fs:0x28 or fs:0x30, glibc's stack and pointer guards (a
 *     random constant the dynamic loader set before main), is flagged so
 *     that the slicer does not follow it into the loader.
 */
#ifndef MEMREC_SLICE_REGS_H
#define MEMREC_SLICE_REGS_H

#include <stdint.h>

/* Whole registers, as bits of a mask. */
enum {
    SLICE_REG_GPR = 0,          /* 16: rax rbx rcx rdx rsi rdi rbp rsp r8..r15 */
    SLICE_REG_FLAGS = 16,
    SLICE_REG_VEC = 17,         /* 32: xmm/ymm/zmm 0..31 */
    SLICE_REG_X87 = 49,         /* st0..st7, the x87 status word */
    SLICE_REG_MASK = 50,        /* k0..k7 as one */
    SLICE_REG_MMX = 51,         /* mm0..mm7 as one */
    SLICE_NREGS = 52
};

/* How an instruction leaves. */
enum {
    SLICE_FLOW_NEXT = 0,        /* falls through */
    SLICE_FLOW_COND,            /* conditional branch: target or next */
    SLICE_FLOW_JUMP,            /* unconditional jump */
    SLICE_FLOW_CALL,
    SLICE_FLOW_RET,
    SLICE_FLOW_OTHER            /* syscall, interrupt, undecodable */
};

/* One decoded instruction. */
typedef struct slice_regs {
    uint64_t uses, defs;        /* masks of SLICE_REG_* bits */
    uint64_t target;            /* direct branch or call target, else 0 */
    uint8_t len;                /* bytes capstone decoded */
    uint8_t flow;               /* SLICE_FLOW_* */
    uint8_t guard;              /* reads glibc's stack or pointer guard (fs:0x28, fs:0x30) */
} slice_regs;

typedef struct slice_decoder slice_decoder;

/* NULL when capstone cannot be opened. */
slice_decoder *slice_decoder_new(void);
void slice_decoder_free(slice_decoder *d);

/* Decodes the instruction at addr from its bytes code[0..n). 0, or -1
 * when the bytes are no instruction. */
int slice_decode(slice_decoder *d, const uint8_t *code, uint32_t n, uint64_t addr, slice_regs *out);

/* The name of register bit r ("rax", "flags", "xmm3"): static storage. */
const char *slice_reg_name(int r);

/* The bit of a register named like capstone names it ("eax", "xmm0"),
 * or -1. */
int slice_reg_parse(const char *name);

#endif
