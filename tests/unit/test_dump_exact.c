/*
 * test_dump_exact.c: trace-dump and trace-info on a small trace whose every
 * event is known, because this test writes it with the format library's
 * writer. The commands under test are run as programs (the ASan+UBSan
 * copies in $MEMREC_BIN, as the e2e tests do), so option parsing, filters
 * and output buffering are all covered; their output is compared line by
 * line with what Lackey would print and with the counts of the trace.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "memrec_trace.h"

static char dir[] = "/tmp/test_dump_exact.XXXXXX";
static char trace[256];         /* the small trace */
static char out_path[256], err_path[256];
static const char *bin;         /* directory of the commands */

/* ------------------------------------------------------------ the trace */

/* Block 0 in main: three instructions, a load with its value, a store and
 * a modify; exit 0 leaves after two instructions, exit 1 (the end) calls.
 * Block 1 in foo: a guarded 4-byte load and a 2-byte load, then returns. */
static const mr_instr_def b0_instrs[] = {
    {0x401000, 4}, {0x401004, 4}, {0x401008, 5}};
static const mr_access_def b0_acc[] = {
    {0, MR_LOAD, MR_ACC_VALUE, 8}, {1, MR_STORE, 0, 4}, {2, MR_MODIFY, 0, 8}};
static const mr_exit_def b0_exits[] = {
    {2, 2, MR_JUMP_BORING}, {3, 3, MR_JUMP_CALL}};
static const mr_instr_def b1_instrs[] = {{0x401100, 3}, {0x401104, 1}};
static const mr_access_def b1_acc[] = {
    {0, MR_LOAD, MR_ACC_GUARDED, 4}, {1, MR_LOAD, 0, 2}};
static const mr_exit_def b1_exits[] = {{2, 2, MR_JUMP_RET}};

static void write_small_trace(const char *path)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"demo", "-x", "a \"q\"\n"};
    mr_process p = {4242, 1, 1700000000123456ULL, "/bin/demo", 3, argv,
                    "--values=ptr"};
    mr_module m = {0, "/bin/demo", 0x401000, 0x1000, 0};
    mr_symbol syms[] = {
        {0x401000, "main", "/src/demo.c", 10},
        {0x401004, "main", "/src/demo.c", 11},
        {0x401008, "main", "/src/demo.c", 12},
        {0x401100, "foo", "/src/demo.c", 20},
        {0x401104, "foo", "/src/demo.c", 21},
    };
    uint64_t ips[] = {0x401004, 0x401000};
    mr_stack st = {1, 2, ips};
    mr_block_def b0 = {0, 0x401000, 3, b0_instrs, 3, b0_acc, 2, b0_exits};
    mr_block_def b1 = {1, 0x401100, 2, b1_instrs, 2, b1_acc, 1, b1_exits};
    assert_int_equal(mr_write_process(w, &p), 0);
    assert_int_equal(mr_write_module(w, &m), 0);
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        assert_int_equal(mr_write_symbol(w, &syms[i]), 0);
    assert_int_equal(mr_write_stack(w, &st), 0);
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    /* time 0: two instructions */
    uint64_t a1[] = {0x1000, 0x2000}, v1[] = {0xdead};
    assert_int_equal(mr_write_exec(w, 0, 0, a1, v1), 0);
    /* time 2: three instructions, then the call into foo */
    uint64_t a2[] = {0x1008, 0x2004, 0x3000}, v2[] = {0xbeef};
    assert_int_equal(mr_write_exec(w, 0, 1, a2, v2), 0);
    /* time 5: foo, the guarded load did not happen */
    uint64_t a3[] = {0, 0x4000};
    assert_int_equal(mr_write_exec(w, 1, 0, a3, NULL), 0);
    mr_heap h = {MR_MALLOC, 0x5000, 32, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    assert_int_equal(mr_write_mark(w, "phase"), 0);
    assert_int_equal(mr_write_thread_create(w, 1, 2), 0);
    assert_int_equal(mr_write_thread_switch(w, 2), 0);
    /* time 7: foo again in thread 2, both loads */
    uint64_t a4[] = {0x4444, 0x4446};
    assert_int_equal(mr_write_exec(w, 1, 0, a4, NULL), 0);
    mr_heap f = {MR_FREE, 0x5000, 0, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &f), 0);
    assert_int_equal(mr_write_thread_exit(w, 2), 0);
    mr_end end = {MR_END_EXIT, 3, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

/* ------------------------------------------------------- running commands */

/* Runs "BIN/CMD ARGS" with stdout and stderr into files; the exit status. */
static int run(const char *fmt, ...)
{
    char args[1024], cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s/%s >%s 2>%s", bin, args, out_path, err_path);
    int st = system(cmd);
    assert_true(st != -1 && WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Every buffer slurp() returned, freed by teardown: a failing assertion
 * jumps out of a test before its own free(). */
static char *slurped[64];
static size_t nslurped;

static char *slurp_file(const char *path);

/* The whole content of a file (NUL-terminated), owned by the test run. */
static char *slurp(const char *path)
{
    char *buf = slurp_file(path);
    if (nslurped < sizeof slurped / sizeof slurped[0])
        slurped[nslurped++] = buf;
    return buf;
}

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* stdout must be exactly these lines; on a difference, show both. */
static void expect_lines(const char *const *lines, size_t n)
{
    char *got = slurp(out_path);
    size_t want_len = 0;
    for (size_t i = 0; i < n; i++)
        want_len += strlen(lines[i]) + 1;
    char *want = malloc(want_len + 1), *p = want;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\n", lines[i]);
    int same = strcmp(got, want) == 0;
    if (!same)
        print_error("expected:\n%s\ngot:\n%s\n", want, got);
    free(want);
    assert_true(same);
}

#define EXPECT(...) do { \
        static const char *const lines_[] = {__VA_ARGS__}; \
        expect_lines(lines_, sizeof lines_ / sizeof lines_[0]); \
    } while (0)

static void expect_empty(const char *path)
{
    assert_string_equal(slurp(path), "");
}

/* -------------------------------------------------------------- lackey */

static void lackey_all(void **state)
{
    (void)state;
    assert_int_equal(run("trace-dump --format=lackey %s", trace), 0);
    EXPECT("I  00401000,4", " L 00001000,8",
           "I  00401004,4", " S 00002000,4",
           "I  00401000,4", " L 00001008,8",
           "I  00401004,4", " S 00002004,4",
           "I  00401008,5", " M 00003000,8",
           "I  00401100,3",
           "I  00401104,1", " L 00004000,2",
           "I  00401100,3", " L 00004444,4",
           "I  00401104,1", " L 00004446,2");
    expect_empty(err_path);
}

static void lackey_thread(void **state)
{
    (void)state;
    assert_int_equal(run("trace-dump --format=lackey --thread=2 %s", trace), 0);
    EXPECT("I  00401100,3", " L 00004444,4",
           "I  00401104,1", " L 00004446,2");
    assert_int_equal(run("trace-dump --format=lackey --thread=7 %s", trace), 0);
    expect_empty(out_path);
}

/* Times: exec 1 runs instructions 0-1, exec 2 2-4, exec 3 5-6, exec 4 7-8. */
static void lackey_window(void **state)
{
    (void)state;
    assert_int_equal(run("trace-dump --format=lackey --from=3 --to=6 %s",
                         trace), 0);
    EXPECT("I  00401004,4", " S 00002004,4",
           "I  00401008,5", " M 00003000,8",
           "I  00401100,3");
    assert_int_equal(run("trace-dump --format=lackey --from=8 - < %s", trace), 0);
    EXPECT("I  00401104,1", " L 00004446,2");
}

static void lackey_function(void **state)
{
    (void)state;
    assert_int_equal(run("trace-dump --format=lackey --function=foo %s",
                         trace), 0);
    EXPECT("I  00401100,3",
           "I  00401104,1", " L 00004000,2",
           "I  00401100,3", " L 00004444,4",
           "I  00401104,1", " L 00004446,2");
    assert_int_equal(run("trace-dump --format=lackey --function=nosuch %s",
                         trace), 0);
    expect_empty(out_path);
}

/* ---------------------------------------------------------------- text */

static void text_all(void **state)
{
    (void)state;
    assert_int_equal(run("trace-dump %s", trace), 0);
    expect_empty(err_path);
    EXPECT("0 t0 process pid=4242 ppid=1 start=2023-11-14T22:13:20.123456Z "
           "exe=\"/bin/demo\" argv=[\"demo\",\"-x\",\"a \\\"q\\\"\\n\"] "
           "options=\"--values=ptr\"",
           "0 t0 module 0 \"/bin/demo\" text=0x401000+0x1000 bias=0x0",
           "0 t0 symbol 0x401000 function=\"main\" file=\"/src/demo.c\" line=10",
           "0 t0 symbol 0x401004 function=\"main\" file=\"/src/demo.c\" line=11",
           "0 t0 symbol 0x401008 function=\"main\" file=\"/src/demo.c\" line=12",
           "0 t0 symbol 0x401100 function=\"foo\" file=\"/src/demo.c\" line=20",
           "0 t0 symbol 0x401104 function=\"foo\" file=\"/src/demo.c\" line=21",
           "0 t0 stack 1 depth=2 main:11 <- main:10",
           "0 t0 block 0 0x401000 instrs=3 accesses=3 exits=2",
           "  instr 0 0x401000,4 main:10",
           "  instr 1 0x401004,4 main:11",
           "  instr 2 0x401008,5 main:12",
           "  access 0 instr=0 L 8 value",
           "  access 1 instr=1 S 4",
           "  access 2 instr=2 M 8",
           "  exit 0 instrs=2 accesses=2 jump=boring",
           "  exit 1 instrs=3 accesses=3 jump=call",
           "0 t0 block 1 0x401100 instrs=2 accesses=2 exits=1",
           "  instr 0 0x401100,3 foo:20",
           "  instr 1 0x401104,1 foo:21",
           "  access 0 instr=0 L 4 guarded",
           "  access 1 instr=1 L 2",
           "  exit 0 instrs=2 accesses=2 jump=return",
           "0 t1 switch tid=1",
           "0 t1 exec 0x401000 main:10 exit=0 instrs=2 block=0",
           "  L 0x1000,8 @0x401000 =0xdead",
           "  S 0x2000,4 @0x401004",
           "2 t1 exec 0x401000 main:10 exit=1 instrs=3 block=0 jump=call",
           "  L 0x1008,8 @0x401000 =0xbeef",
           "  S 0x2004,4 @0x401004",
           "  M 0x3000,8 @0x401008",
           "5 t1 call 0x401008 main:12 -> 0x401100 foo:20",
           "5 t1 exec 0x401100 foo:20 exit=0 instrs=2 block=1 jump=return",
           "  L 0x4000,2 @0x401104",
           "7 t1 malloc 0x5000 size=32 stack=#1 (main:11 <- main:10)",
           "7 t1 mark \"phase\"",
           "7 t1 thread-create tid=2 parent=1",
           "7 t2 switch tid=2",
           "7 t2 exec 0x401100 foo:20 exit=0 instrs=2 block=1 jump=return",
           "  L 0x4444,4 @0x401100",
           "  L 0x4446,2 @0x401104",
           "9 t2 free 0x5000 stack=#1 (main:11 <- main:10)",
           "9 t2 thread-exit tid=2",
           "9 t2 end exit status=3 instructions=9 blocks=4 loads=5 stores=2 "
           "modifies=1 calls=1 returns=2 allocs=1 frees=1 reallocs=0 threads=2");
}

static void text_filters(void **state)
{
    (void)state;
    assert_int_equal(run("trace-dump --thread=2 %s", trace), 0);
    EXPECT("7 t2 switch tid=2",
           "7 t2 exec 0x401100 foo:20 exit=0 instrs=2 block=1 jump=return",
           "  L 0x4444,4 @0x401100",
           "  L 0x4446,2 @0x401104",
           "9 t2 free 0x5000 stack=#1 (main:11 <- main:10)",
           "9 t2 thread-exit tid=2",
           "9 t2 end exit status=3 instructions=9 blocks=4 loads=5 stores=2 "
           "modifies=1 calls=1 returns=2 allocs=1 frees=1 reallocs=0 threads=2");
    assert_int_equal(run("trace-dump --function=main %s", trace), 0);
    EXPECT("0 t1 exec 0x401000 main:10 exit=0 instrs=2 block=0",
           "  L 0x1000,8 @0x401000 =0xdead",
           "  S 0x2000,4 @0x401004",
           "2 t1 exec 0x401000 main:10 exit=1 instrs=3 block=0 jump=call",
           "  L 0x1008,8 @0x401000 =0xbeef",
           "  S 0x2004,4 @0x401004",
           "  M 0x3000,8 @0x401008",
           "5 t1 call 0x401008 main:12 -> 0x401100 foo:20");
    assert_int_equal(run("trace-dump --from=5 --to=7 %s", trace), 0);
    EXPECT("5 t1 call 0x401008 main:12 -> 0x401100 foo:20",
           "5 t1 exec 0x401100 foo:20 exit=0 instrs=2 block=1 jump=return",
           "  L 0x4000,2 @0x401104");
    assert_int_equal(run("trace-dump --thread=1 --function=foo --from=1 %s",
                         trace), 0);
    EXPECT("5 t1 call 0x401008 main:12 -> 0x401100 foo:20",
           "5 t1 exec 0x401100 foo:20 exit=0 instrs=2 block=1 jump=return",
           "  L 0x4000,2 @0x401104");
}

/* ---------------------------------------------------------------- info */

/* The value of "key": in a one-line JSON object, as text up to , or }. */
static char *json_value(const char *json, const char *key, char *buf,
                        size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    if (!p) {
        snprintf(buf, n, "(missing)");
        return buf;
    }
    p += strlen(pat);
    size_t len = 0;
    int depth = 0, in_string = 0;
    /* Up to the comma or brace that ends this value (arrays and strings
     * may hold commas). */
    while (p[len] && len + 1 < n) {
        char c = p[len];
        if (in_string) {
            if (c == '\\' && p[len + 1])
                len++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (depth == 0)
                break;
            depth--;
        } else if (c == ',' && depth == 0) {
            break;
        }
        len++;
    }
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

#define EXPECT_KEY(json, key, want) do { \
        char v_[512]; \
        assert_string_equal(json_value(json, key, v_, sizeof v_), want); \
    } while (0)

static void info_json_counts(void **state)
{
    (void)state;
    assert_int_equal(run("trace-info --json %s", trace), 0);
    expect_empty(err_path);
    char *j = slurp(out_path);
    EXPECT_KEY(j, "instructions", "9");
    EXPECT_KEY(j, "blocks", "4");
    EXPECT_KEY(j, "loads", "6");        /* 5 loads + 1 modify */
    EXPECT_KEY(j, "stores", "3");       /* 2 stores + 1 modify */
    EXPECT_KEY(j, "modifies", "1");
    EXPECT_KEY(j, "accesses", "8");
    EXPECT_KEY(j, "values", "2");
    EXPECT_KEY(j, "calls", "1");
    EXPECT_KEY(j, "returns", "2");
    EXPECT_KEY(j, "allocs", "1");
    EXPECT_KEY(j, "frees", "1");
    EXPECT_KEY(j, "reallocs", "0");
    EXPECT_KEY(j, "alloc_bytes", "32");
    EXPECT_KEY(j, "threads", "2");
    EXPECT_KEY(j, "block_defs", "2");
    EXPECT_KEY(j, "memory_instructions", "5");
    EXPECT_KEY(j, "marks", "1");
    EXPECT_KEY(j, "truncated", "false");
    EXPECT_KEY(j, "truncation", "null");
    EXPECT_KEY(j, "command", "[\"demo\",\"-x\",\"a \\\"q\\\"\\n\"]");
    EXPECT_KEY(j, "exe", "\"/bin/demo\"");
    EXPECT_KEY(j, "pid", "4242");
    EXPECT_KEY(j, "ppid", "1");
    EXPECT_KEY(j, "start_time", "\"2023-11-14T22:13:20.123456Z\"");
    EXPECT_KEY(j, "end_reason", "\"exit\"");
    EXPECT_KEY(j, "exit_status", "3");
    EXPECT_KEY(j, "signal", "null");
    EXPECT_KEY(j, "time_first", "0");
    EXPECT_KEY(j, "time_end", "9");
    EXPECT_KEY(j, "totals_match", "true");
    /* One object on one line. */
    assert_int_equal(j[0], '{');
    assert_string_equal(j + strlen(j) - 2, "}\n");
    assert_ptr_equal(strchr(j, '\n'), j + strlen(j) - 1);
}

static void info_text(void **state)
{
    (void)state;
    assert_int_equal(run("trace-info - < %s", trace), 0);
    char *t = slurp(out_path);
    assert_non_null(strstr(t, "trace:                <stdin>\n"));
    assert_non_null(strstr(t, "command:              demo -x \"a \\\"q\\\"\\n\"\n"));
    assert_non_null(strstr(t, "pid:                  4242 (parent 1)\n"));
    assert_non_null(strstr(t, "ended:                exit status 3\n"));
    assert_non_null(strstr(t, "complete:             yes\n"));
    assert_non_null(strstr(t, "loads:                6\n"));
    assert_non_null(strstr(t, "end record totals:    match the events\n"));
}

/* A writer closed without an end (the recorder vanished): the events are
 * there, the summary says truncated, stderr has one warning line. */
static void info_lost_end(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/lost.trace", dir);
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    mr_block_def b1 = {1, 0x401100, 2, b1_instrs, 2, b1_acc, 1, b1_exits};
    uint64_t a[] = {0x4444, 0x4446};
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    assert_int_equal(mr_write_exec(w, 1, 0, a, NULL), 0);
    assert_int_equal(mr_writer_close(w, NULL, &err), 0);

    assert_int_equal(run("trace-info --json %s", path), 0);
    char *j = slurp(out_path);
    EXPECT_KEY(j, "truncated", "true");
    EXPECT_KEY(j, "end_reason", "\"lost\"");
    EXPECT_KEY(j, "instructions", "2");
    EXPECT_KEY(j, "loads", "2");
    char *e = slurp(err_path);
    assert_non_null(strstr(e, "trace-info: "));
    assert_non_null(strstr(e, "lost.trace: warning: "));
    assert_ptr_equal(strchr(e, '\n'), e + strlen(e) - 1);   /* one line */

    assert_int_equal(run("trace-dump --format=lackey %s", path), 0);
    EXPECT("I  00401100,3", " L 00004444,4", "I  00401104,1", " L 00004446,2");
    e = slurp(err_path);
    assert_non_null(strstr(e, "trace-dump: "));
    assert_ptr_equal(strchr(e, '\n'), e + strlen(e) - 1);
}

/* -------------------------------------------------------------- setup */

static int setup(void **state)
{
    (void)state;
    bin = getenv("MEMREC_BIN");
    if (!bin)
        bin = "build/asan/bin";
    if (!mkdtemp(dir))
        return -1;
    snprintf(trace, sizeof trace, "%s/small.trace", dir);
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    snprintf(err_path, sizeof err_path, "%s/err", dir);
    write_small_trace(trace);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    while (nslurped)
        free(slurped[--nslurped]);
    char cmd[512];
    if (getenv("TEST_KEEP")) {      /* for looking at the trace by hand */
        fprintf(stderr, "# kept %s\n", dir);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lackey_all),
        cmocka_unit_test(lackey_thread),
        cmocka_unit_test(lackey_window),
        cmocka_unit_test(lackey_function),
        cmocka_unit_test(text_all),
        cmocka_unit_test(text_filters),
        cmocka_unit_test(info_json_counts),
        cmocka_unit_test(info_text),
        cmocka_unit_test(info_lost_end),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
