/* test_symbolize.c: code addresses as sym_where writes them, through a
 * real trace and its reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/symbolize.h"

static const char *where(const mr_reader *r, uint64_t addr)
{
    static char buf[SYM_BUF];
    return sym_where(r, addr, buf, sizeof buf);
}

/* Each form in its order of preference: function and line, function,
 * file and line, module and file address (stripped code, a PLT stub),
 * the bare address. */
static void test_forms(void **state)
{
    (void)state;
    char path[] = "/tmp/test_symbolize.XXXXXX", *err = NULL;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_module lib = { 0, "/usr/lib/libx.so.1", 0x7001000, 0x4000, 0x7000000 };
    mr_symbol full = { 0x7001000, "parse", "/src/x/parse.c", 42 };
    mr_symbol fn = { 0x7002000, "scan", NULL, 0 };
    mr_symbol file = { 0x7003000, NULL, "/src/x/lex.c", 7 };
    assert_int_equal(mr_write_module(w, &lib), 0);
    assert_int_equal(mr_write_symbol(w, &full), 0);
    assert_int_equal(mr_write_symbol(w, &fn), 0);
    assert_int_equal(mr_write_symbol(w, &file), 0);
    assert_int_equal(mr_writer_close(w, NULL, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    while (mr_next(r, &ev) == 1)
        ;
    assert_string_equal(where(r, 0x7001000), "parse:42");
    assert_string_equal(where(r, 0x7002004), "scan");
    assert_string_equal(where(r, 0x7003000), "lex.c:7");
    assert_string_equal(where(r, 0x7003800), "libx.so.1+0x3800");   /* no symbol near */
    assert_string_equal(where(r, 0x7000040), "libx.so.1+0x40");     /* its PLT */
    assert_string_equal(where(r, 0x7005000), "0x7005000");          /* past its text */
    char buf[SYM_BUF];
    assert_string_equal(sym_function(r, 0x7001000, buf, sizeof buf), "parse");
    assert_string_equal(sym_function(r, 0x7003000, buf, sizeof buf), "libx.so.1+0x3000");
    assert_string_equal(sym_function(r, 0x7005000, buf, sizeof buf), "0x7005000");
    mr_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
