/*
 * test_dump_out.c: the buffered printer under trace-dump and trace-info:
 * number formats equal printf's, JSON strings are valid JSON (control
 * bytes and bytes that are not UTF-8 escaped, UTF-8 kept), small buffers
 * flush correctly, and a pipe whose reader is gone fails once with EPIPE.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "dump/dump_out.h"

/* An output into memory (open_memstream) with a buffer of cap bytes. */
typedef struct memout {
    dump_out o;
    FILE *f;
    char *text;
    size_t len;
} memout;

static void mem_open(memout *m, size_t cap)
{
    m->text = NULL;
    m->len = 0;
    m->f = open_memstream(&m->text, &m->len);
    assert_non_null(m->f);
    out_init(&m->o, m->f, cap);
}

/* Closes and checks that the output was exactly want. */
static void mem_expect(memout *m, const char *want)
{
    assert_int_equal(out_close(&m->o), 0);
    fclose(m->f);
    assert_string_equal(m->text, want);
    free(m->text);
}

static void numbers_like_printf(void **state)
{
    (void)state;
    static const uint64_t values[] = {0, 1, 9, 10, 15, 16, 255, 0x401120,
        0xffffffffULL, 0x100000000ULL, 1700000000123456ULL, INT64_MAX,
        UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        uint64_t v = values[i];
        char want[128];
        memout m;
        mem_open(&m, 0);
        out_hex(&m.o, v, 8);
        out_char(&m.o, ' ');
        out_hex(&m.o, v, 1);
        out_char(&m.o, ' ');
        out_addr(&m.o, v);
        out_char(&m.o, ' ');
        out_u64(&m.o, v);
        out_char(&m.o, ' ');
        out_i64(&m.o, (int64_t)v);
        snprintf(want, sizeof want, "%08" PRIx64 " %" PRIx64 " 0x%" PRIx64
                 " %" PRIu64 " %" PRId64, v, v, v, v, (int64_t)v);
        mem_expect(&m, want);
    }
    memout m;
    mem_open(&m, 0);
    out_i64(&m.o, INT64_MIN);
    out_char(&m.o, ' ');
    out_i64(&m.o, -42);
    mem_expect(&m, "-9223372036854775808 -42");
}

static void json_strings(void **state)
{
    (void)state;
    memout m;
    mem_open(&m, 0);
    out_quoted(&m.o, "plain");
    out_char(&m.o, ' ');
    out_quoted(&m.o, "q\"b\\n\nt\tr\rb\bf\fz\x01\x1f\x7f");
    out_char(&m.o, ' ');
    out_quoted(&m.o, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");  /* é € 😀 */
    out_char(&m.o, ' ');
    /* Not UTF-8: a lone continuation byte, a truncated sequence, an
     * overlong '/', a surrogate, a byte that never starts one. */
    out_quoted(&m.o, "\x80|\xc3|\xc0\xaf|\xed\xa0\x80|\xff");
    out_char(&m.o, ' ');
    out_quoted(&m.o, NULL);
    out_char(&m.o, ' ');
    out_quoted(&m.o, "");
    mem_expect(&m,
        "\"plain\" "
        "\"q\\\"b\\\\n\\nt\\tr\\rb\\bf\\fz\\u0001\\u001f\\u007f\" "
        "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" "
        "\"\\u0080|\\u00c3|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080|\\u00ff\" "
        "null \"\"");
}

/* A 16-byte buffer: every appender crosses buffer boundaries. */
static void small_buffer(void **state)
{
    (void)state;
    memout m;
    char want[4096], *p = want;
    mem_open(&m, 16);
    for (int i = 0; i < 100; i++) {
        out_str(&m.o, "I  ");
        out_hex(&m.o, 0x401000u + i, 8);
        out_char(&m.o, ',');
        out_u64(&m.o, (uint64_t)i);
        out_fmt(&m.o, "%s", i % 7 ? "\n" : " seven\n");
        p += sprintf(p, "I  %08x,%d%s", 0x401000 + i, i, i % 7 ? "\n" : " seven\n");
    }
    mem_expect(&m, want);
}

/* out_fmt with a line longer than its stack buffer. */
static void long_format(void **state)
{
    (void)state;
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memout m;
    mem_open(&m, 64);
    out_fmt(&m.o, "<%s>", big);
    char want[3100];
    snprintf(want, sizeof want, "<%s>", big);
    mem_expect(&m, want);
}

/* The reader of the pipe is gone: the first flush fails with EPIPE, once,
 * and later output is dropped without further writes. */
static void closed_pipe(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    FILE *f = fdopen(fds[1], "w");
    assert_non_null(f);
    dump_out o;
    out_init(&o, f, 32);
    assert_false(out_failed(&o));
    /* More than stdio's own buffer, so that a write reaches the pipe. */
    for (int i = 0; i < 10000; i++)
        out_str(&o, "a line of output\n");
    int failed = out_failed(&o), err = out_error(&o);
    int closed = out_close(&o);
    fclose(f);
    signal(SIGPIPE, old);
    assert_true(failed);
    assert_int_equal(err, EPIPE);
    assert_int_equal(closed, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_like_printf),
        cmocka_unit_test(json_strings),
        cmocka_unit_test(small_buffer),
        cmocka_unit_test(long_format),
        cmocka_unit_test(closed_pipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
