/*
 * test_objreport.c: the readable object profile (objects/objreport.h) of
 * the trace of test_objects_common.h, compared line for line with the
 * text its hand-worked numbers make; then --top keeping only the hottest,
 * and the "spread out" wording for a group with no hot field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_objects_common.h"
#include "objects/objreport.h"


/* The report of path with top entries, as one malloc'd string. */
static char *report(const char *path, unsigned top)
{
    objreport *rep = objreport_new(top);
    assert_non_null(rep);
    objprof_options o = {.group_depth = 1, .on_object = objreport_object, .ctx = rep};
    mr_reader *r;
    objprof *p = profile_trace(path, o, &r);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    objreport_print(rep, p, r, "t.mr", out);
    fclose(out);
    objreport_free(rep);
    objprof_free(p);
    mr_reader_close(r);
    return text;
}

/* Compares line by line, so a failure names the first line that differs. */
static void assert_text(const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g || *w) {
        size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
        if (gl != wl || memcmp(g, w, gl) != 0)
            fail_msg("line %d:\n  want '%.*s'\n  got  '%.*s'", line, (int)wl, w,
                     (int)gl, g);
        g += gl + (g[gl] == '\n');
        w += wl + (w[wl] == '\n');
        line++;
    }
}

/* A accounts for 4 of the 7 accesses (57.1%); its offset 8 has 3 of its 4
 * accesses. Ties (groups of 1 access, objects of heat 1) stay in the order
 * glibc's qsort (a merge sort, stable) leaves them: groups by creation,
 * objects by death. The objects' "accesses" column is loads + stores, so
 * B#0's one modify shows as 2: that is what the report prints today. */
static void test_full_report(void **state)
{
    (void)state;
    char *text = report(objects_path, 15);
    assert_text(text,
        "Object profile of t.mr\n"
        "  accesses 7 (loads 4, stores 4; a modify counts as both)\n"
        "  heap 71.4%, static 14.3%, stack 0.0%, unknown 14.3%\n"
        "  objects: 3 heap, 1 static (at most 4 live at once); 4 groups\n"
        "\n"
        "Hottest groups (allocation site or symbol)\n"
        "      accesses      %  objects   max size  kind    group                        hottest offsets\n"
        "             4  57.1%        2         32  heap    make_a@a.c:12                +8 (75%), +0 (25%)\n"
        "             1  14.3%        1         64  static  prog:table                   +16 (100%)\n"
        "             1  14.3%        1        100  heap    make_b@b.c:20                +96 (100%)\n"
        "             1  14.3%        0          0  unknown unknown                      \n"
        "\n"
        "Hottest objects\n"
        "      accesses      loads     stores     size  offsets  group#object                 lifetime\n"
        "             3          2          1       32        2  make_a@a.c:12#1              0..never freed\n"
        "             2          1          1      100        1  make_b@b.c:20#0              0..never freed\n"
        "             1          1          0       32        1  make_a@a.c:12#0              0..5\n"
        "             1          0          1       64        1  prog:table#0                 static\n");
    free(text);
}

/* --top=1: the hottest group and the hottest object only. */
static void test_top(void **state)
{
    (void)state;
    char *text = report(objects_path, 1);
    assert_non_null(strstr(text, "  make_a@a.c:12 "));
    assert_null(strstr(text, "make_b@b.c:20"));
    assert_null(strstr(text, "table"));
    assert_non_null(strstr(text, "make_a@a.c:12#1 "));
    assert_null(strstr(text, "make_a@a.c:12#0"));
    free(text);
}

/* One object walked at 64 offsets, once each: no offset has 2%. */
static void test_spread_out(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/spread.mr", objects_dir);
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    uint64_t ips[] = {SITE_A};
    mr_stack sa = {1, 1, ips};
    assert_int_equal(mr_write_stack(w, &sa), 0);
    mr_block_def bump = {1, 0x401100, 1, bump_instrs, 1, bump_acc, 1, bump_exits};
    assert_int_equal(mr_write_block_def(w, &bump), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    mr_heap h = {MR_MALLOC, OBJ_A0, 4096, 0, 0, 1};
    assert_int_equal(mr_write_heap(w, &h), 0);
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t a[] = {OBJ_A0 + 64 * i};
        assert_int_equal(mr_write_exec(w, 1, 0, a, NULL), 0);
    }
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
    char *text = report(path, 5);
    assert_non_null(strstr(text, "spread out (no offset has 2%)"));
    free(text);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_report),
        cmocka_unit_test(test_top),
        cmocka_unit_test(test_spread_out),
    };
    return cmocka_run_group_tests(tests, objects_setup, objects_teardown);
}
