/*
 * test_slice_regs.c: register uses and definitions of machine code for
 * trace-slice (slice/regs.h): capstone's registers folded onto whole
 * registers, partial writes kept as uses, rsp/rbp/rip never uses, the
 * zeroing idiom reading nothing, and branches classified with their
 * targets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "slice/regs.h"

#define R(name) (1ull << slice_reg_parse(name))

static slice_regs decode(const uint8_t *code, uint32_t n, uint64_t addr)
{
    slice_decoder *d = slice_decoder_new();
    slice_regs r;
    assert_non_null(d);
    assert_int_equal(slice_decode(d, code, n, addr, &r), 0);
    slice_decoder_free(d);
    return r;
}

static void compare_sets_flags(void **state)
{
    (void)state;
    static const uint8_t cmp[] = { 0x39, 0xc2 };            /* cmp edx, eax */
    slice_regs r = decode(cmp, sizeof cmp, 0x1000);
    assert_int_equal(r.uses, R("rdx") | R("rax"));
    assert_int_equal(r.defs, R("flags"));
    assert_int_equal(r.flow, SLICE_FLOW_NEXT);
    assert_int_equal(r.len, 2);
}

static void partial_write_is_a_use(void **state)
{
    (void)state;
    static const uint8_t movb[] = { 0x88, 0xc3 };           /* mov bl, al */
    slice_regs r = decode(movb, sizeof movb, 0x1000);
    assert_int_equal(r.defs, R("rbx"));
    assert_int_equal(r.uses, R("rax") | R("rbx"));
    static const uint8_t movl[] = { 0x89, 0xd0 };           /* mov eax, edx: zero-extends */
    r = decode(movl, sizeof movl, 0x1000);
    assert_int_equal(r.defs, R("rax"));
    assert_int_equal(r.uses, R("rdx"));
}

static void conditional_move_keeps_the_old_value(void **state)
{
    (void)state;
    static const uint8_t cmov[] = { 0x0f, 0x4c, 0xc1 };     /* cmovl eax, ecx */
    slice_regs r = decode(cmov, sizeof cmov, 0x1000);
    assert_int_equal(r.defs, R("rax"));
    assert_int_equal(r.uses, R("rax") | R("rcx") | R("flags"));
}

static void zeroing_idiom_reads_nothing(void **state)
{
    (void)state;
    static const uint8_t xor_[] = { 0x31, 0xc0 };           /* xor eax, eax */
    slice_regs r = decode(xor_, sizeof xor_, 0x1000);
    assert_int_equal(r.uses, 0);
    assert_int_equal(r.defs, R("rax") | R("flags"));
    static const uint8_t pxor[] = { 0x66, 0x0f, 0xef, 0xc0 };   /* pxor xmm0, xmm0 */
    r = decode(pxor, sizeof pxor, 0x1000);
    assert_int_equal(r.uses, 0);
    assert_int_equal(r.defs, R("xmm0"));
}

static void frame_registers_are_not_uses(void **state)
{
    (void)state;
    static const uint8_t push[] = { 0x55 };                 /* push rbp */
    slice_regs r = decode(push, sizeof push, 0x1000);
    assert_int_equal(r.uses, 0);
    assert_int_equal(r.defs, 0);
    static const uint8_t load[] = { 0x8b, 0x45, 0xfc };     /* mov eax, [rbp - 4] */
    r = decode(load, sizeof load, 0x1000);
    assert_int_equal(r.uses, 0);
    assert_int_equal(r.defs, R("rax"));
    static const uint8_t index[] = { 0x8b, 0x04, 0x85, 0, 0, 0, 0 };  /* mov eax, [rax*4] */
    r = decode(index, sizeof index, 0x1000);
    assert_int_equal(r.uses, R("rax"));                     /* an index register is a use */
    assert_int_equal(slice_reg_parse("rsp"), -1);
    assert_int_equal(slice_reg_parse("ebp"), -1);
    assert_int_equal(slice_reg_parse("nosuch"), -1);
    assert_int_equal(slice_reg_parse("r9d"), slice_reg_parse("r9"));
}

static void branches(void **state)
{
    (void)state;
    static const uint8_t jle[] = { 0x7e, 0x05 };            /* jle +5 */
    slice_regs r = decode(jle, sizeof jle, 0x1000);
    assert_int_equal(r.flow, SLICE_FLOW_COND);
    assert_int_equal(r.target, 0x1007);
    assert_int_equal(r.uses, R("flags"));
    static const uint8_t jmp[] = { 0xeb, 0x10 };            /* jmp +16 */
    r = decode(jmp, sizeof jmp, 0x1000);
    assert_int_equal(r.flow, SLICE_FLOW_JUMP);
    assert_int_equal(r.target, 0x1012);
    static const uint8_t call[] = { 0xe8, 0, 0, 0, 0 };     /* call next */
    r = decode(call, sizeof call, 0x1000);
    assert_int_equal(r.flow, SLICE_FLOW_CALL);
    assert_int_equal(r.target, 0x1005);
    static const uint8_t ret[] = { 0xc3 };
    r = decode(ret, sizeof ret, 0x1000);
    assert_int_equal(r.flow, SLICE_FLOW_RET);
}

static void not_an_instruction(void **state)
{
    (void)state;
    slice_decoder *d = slice_decoder_new();
    slice_regs r;
    static const uint8_t cut[] = { 0x8b };                  /* mov without its operand byte */
    assert_int_equal(slice_decode(d, cut, sizeof cut, 0x1000, &r), -1);
    slice_decoder_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compare_sets_flags),
        cmocka_unit_test(partial_write_is_a_use),
        cmocka_unit_test(conditional_move_keeps_the_old_value),
        cmocka_unit_test(zeroing_idiom_reads_nothing),
        cmocka_unit_test(frame_registers_are_not_uses),
        cmocka_unit_test(branches),
        cmocka_unit_test(not_an_instruction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
