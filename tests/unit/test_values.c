/*
 * test_values.c: the value profile (values/values.h), the selection rule
 * (values/select.h) and the database rows (values/store.h) on a
 * hand-written trace whose every answer is worked out below.
 *
 * Five nodes of 32 bytes from one site (make_node), a static `table`, and
 * four blocks: link (store 4 at +0, store 8 at +8, both with values), setv
 * (store 4 with a value), vec (a 16-byte load, never valued), glob (store
 * 8 with a value). The region of the nodes is 0x20000000..0x20007fff.
 *
 *   exec  accesses (value)                            classes
 *   e1    N0+0 <- 16383, N0+8 <- N1                   small, pointer
 *   e2    N1+0 <- -16384 (4 bytes), N1+8 <- 0x20008000  small, incompressible
 *   e3    N2+0 <- 16384, N2+8 <- 0                    incompressible, small
 *   e4    N3+0 <- 0                                   small
 *   e5    N4+0 <- -1 (4 bytes)                        small
 *   e6    N0+16 (16 bytes, no value)                  -
 *   e7    table+16 <- 5                               small
 *   e8    0x99999 <- 1 (unknown memory)               not profiled
 *   e9    N0+0 <- 7, N0+8 <- N1                       small, pointer
 *   e10   N4+12 <- 3 (setv: 4 bytes)                  small
 *
 * So 13 accesses in objects, 1 outside, 12 valued (the 16-byte load is
 * not): 8 small, 2 pointer, 2 incompressible. Field node+0: 6 accesses,
 * 5 small and 1 incompressible, range [-16384, 16384], 5 instances of
 * which 1 (N2) spoiled: exactly 80%, selected, saving 5 * (4 - 2) - 1 * 4
 * = 6 bytes. Field node+8: 4 accesses, 1 small, 2 pointer, 1
 * incompressible, 3 instances, 1 spoiled (N1): 66.7%, not selected.
 * table+16: selected (static: not in the heap bytes). node+12 lies inside
 * node+8's 8-byte word: compressible, but no candidate of its own.
 *
 * Bits needed (vc_need): 32-bit words 15, 15, 16, 1, 1, 4, 3 (e1 e2 e3 e4
 * e5 e9 e10); 64-bit words 7, 16, 1, 4, 7 (e1 e2 e3 e7 e9). At L = 8: 4 +
 * 4 fit; bits 4 * 8 + 3 * 32 + 4 * 8 + 64 = 224 of 7 * 32 + 5 * 64 = 544.
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

#include "memrec_trace.h"
#include "db/profiledb.h"
#include "values/select.h"
#include "values/store.h"
#include "values/values.h"
#include "values/widths.h"

#define SITE 0x402000ull
#define N(i) (0x20000010ull + 0x30ull * (i))
#define TABLE 0x600000ull
#define NOWHERE 0x99999ull

static const mr_instr_def link_instrs[] = {{0x401000, 4}, {0x401004, 4}};
static const mr_access_def link_acc[] = {{0, MR_STORE, MR_ACC_VALUE, 4},
                                         {1, MR_STORE, MR_ACC_VALUE, 8}};
static const mr_exit_def link_exits[] = {{2, 2, MR_JUMP_BORING}};
static const mr_instr_def setv_instrs[] = {{0x401100, 4}};
static const mr_access_def setv_acc[] = {{0, MR_STORE, MR_ACC_VALUE, 4}};
static const mr_exit_def one_exit[] = {{1, 1, MR_JUMP_BORING}};
static const mr_instr_def vec_instrs[] = {{0x401200, 4}};
static const mr_access_def vec_acc[] = {{0, MR_LOAD, 0, 16}};
static const mr_instr_def glob_instrs[] = {{0x401300, 4}};
static const mr_access_def glob_acc[] = {{0, MR_STORE, MR_ACC_VALUE, 8}};

static char dir[] = "/tmp/test_values.XXXXXX";
static char trace[256], dbpath[256];

static void exec(mr_writer *w, uint32_t block, uint64_t a0, uint64_t v0,
                 uint64_t a1, uint64_t v1)
{
    uint64_t addrs[] = {a0, a1}, vals[] = {v0, v1};
    assert_int_equal(mr_write_exec(w, block, 0, addrs, block == 2 ? NULL : vals), 0);
}

static void write_trace(const char *path, const char *tool_options)
{
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"nodes"};
    mr_process p = {77, 1, 1700000000000000ULL, "/bin/nodes", 1, argv, tool_options};
    mr_module m = {0, "/bin/nodes", 0x400000, 0x10000, 0};
    assert_int_equal(mr_write_process(w, &p), 0);
    assert_int_equal(mr_write_module(w, &m), 0);
    mr_symbol syms[] = {
        {0x401000, "link", "n.c", 10}, {0x401004, "link", "n.c", 11},
        {0x401100, "setv", "n.c", 20}, {0x401200, "vec", "n.c", 30},
        {0x401300, "glob", "n.c", 40}, {SITE - 5, "make_node", "n.c", 5},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        assert_int_equal(mr_write_symbol(w, &syms[i]), 0);
    mr_dataobj table = {"table", TABLE, 64, 0};
    assert_int_equal(mr_write_dataobj(w, &table), 0);
    uint64_t ips[] = {SITE};
    mr_stack st = {1, 1, ips};
    assert_int_equal(mr_write_stack(w, &st), 0);
    mr_block_def b0 = {0, 0x401000, 2, link_instrs, 2, link_acc, 1, link_exits};
    mr_block_def b1 = {1, 0x401100, 1, setv_instrs, 1, setv_acc, 1, one_exit};
    mr_block_def b2 = {2, 0x401200, 1, vec_instrs, 1, vec_acc, 1, one_exit};
    mr_block_def b3 = {3, 0x401300, 1, glob_instrs, 1, glob_acc, 1, one_exit};
    assert_int_equal(mr_write_block_def(w, &b0), 0);
    assert_int_equal(mr_write_block_def(w, &b1), 0);
    assert_int_equal(mr_write_block_def(w, &b2), 0);
    assert_int_equal(mr_write_block_def(w, &b3), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    for (int i = 0; i < 5; i++) {
        mr_heap h = {MR_MALLOC, N(i), 32, 0, 0, 1};
        assert_int_equal(mr_write_heap(w, &h), 0);
    }
    exec(w, 0, N(0), 16383, N(0) + 8, N(1));
    exec(w, 0, N(1), 0xffffc000u, N(1) + 8, 0x20008000);
    exec(w, 0, N(2), 16384, N(2) + 8, 0);
    exec(w, 1, N(3), 0, 0, 0);
    exec(w, 1, N(4), 0xffffffffu, 0, 0);
    exec(w, 2, N(0) + 16, 0, 0, 0);
    exec(w, 3, TABLE + 16, 5, 0, 0);
    exec(w, 1, NOWHERE, 1, 0, 0);
    exec(w, 0, N(0), 7, N(0) + 8, N(1));
    exec(w, 1, N(4) + 12, 3, 0, 0);
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
}

/* Profiles path with the default options; the reader is handed back. */
static values *profile(const char *path, mr_reader **reader)
{
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    values_options o = { .payload = 15, .top = 5, .reader = r };
    values *p = values_new(&o);
    assert_non_null(p);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) > 0)
        assert_int_equal(values_event(p, &ev), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(values_finish(p), 0);
    *reader = r;
    return p;
}

/* The rule's answer for field i. */
static void values_choose(const values *p, uint32_t i, uint32_t percent, values_choice *c)
{
    values_choice *all = values_choose_all(p, percent);
    assert_non_null(all);
    *c = all[i];
    free(all);
}

/* The field of group kind at offset, or NULL. */
static values_field *field(values *p, int kind, uint64_t offset, uint32_t *index)
{
    for (uint32_t i = 0; i < values_nfields(p); i++) {
        values_field *f = values_field_at(p, i);
        if (values_group_at(p, f->group)->kind == kind && f->offset == offset) {
            *index = i;
            return f;
        }
    }
    return NULL;
}

static void run_totals(void **state)
{
    (void)state;
    mr_reader *r;
    values *p = profile(trace, &r);
    const values_summary *s = values_get_summary(p);
    assert_int_equal(s->mode, VALUES_MODE_ALL);
    assert_int_equal(s->in.accesses, 13);
    assert_int_equal(s->outside, 1);
    assert_int_equal(s->in.valued, 12);
    assert_int_equal(s->unvalued_wide, 1);
    assert_int_equal(s->in.cls[VC_SMALL], 8);
    assert_int_equal(s->in.cls[VC_POINTER], 2);
    assert_int_equal(s->in.cls[VC_INCOMPRESSIBLE], 2);
    values_width w;
    values_width_at(s, 8, &w);
    assert_int_equal(w.fitting, 8);
    assert_int_equal(w.bits, 224);
    assert_int_equal(w.base_bits, 544);
    values_width_at(s, 16, &w);
    assert_int_equal(w.fitting, 12);
    char note[512];
    assert_non_null(values_unseen_note(p, note, sizeof note));
    assert_non_null(strstr(note, "1 of 13 accesses"));
    values_free(p);
    mr_reader_close(r);
}

static void fields_and_rule(void **state)
{
    (void)state;
    mr_reader *r;
    values *p = profile(trace, &r);
    uint32_t i;
    values_choice c;
    values_field *f = field(p, OBJ_HEAP, 0, &i);
    assert_non_null(f);
    assert_int_equal(f->c.accesses, 6);
    assert_int_equal(f->c.cls[VC_SMALL], 5);
    assert_int_equal(f->c.cls[VC_POINTER], 0);
    assert_int_equal(f->c.cls[VC_INCOMPRESSIBLE], 1);
    assert_int_equal(f->c.min, -16384);
    assert_int_equal(f->c.max, 16384);
    values_choose(p, i, 80, &c);
    assert_int_equal(c.instances, 5);
    assert_int_equal(c.spoiled, 1);
    assert_int_equal(c.objects, 5);
    assert_true(c.selected);                 /* 4 of 5: exactly 80% */
    assert_int_equal(c.saved, 6);
    values_choose(p, i, 81, &c);
    assert_false(c.selected);

    f = field(p, OBJ_HEAP, 8, &i);
    assert_non_null(f);
    assert_int_equal(f->c.accesses, 4);
    assert_int_equal(f->c.cls[VC_SMALL], 1);
    assert_int_equal(f->c.cls[VC_POINTER], 2);
    assert_int_equal(f->c.cls[VC_INCOMPRESSIBLE], 1);
    values_choose(p, i, 80, &c);
    assert_int_equal(c.instances, 3);
    assert_int_equal(c.spoiled, 1);
    assert_true(c.candidate);
    assert_false(c.selected);
    topv *t = values_field_top(p, i);
    uint32_t k = values_table_size(values_get_options(p));
    topv_sort(t, k);
    assert_int_equal(topv_get(t, k, 0).value, N(1));
    assert_int_equal(topv_get(t, k, 0).count, 2);

    f = field(p, OBJ_HEAP, 16, &i);          /* the 16-byte load: seen, no value */
    assert_non_null(f);
    assert_int_equal(f->c.accesses, 1);
    assert_int_equal(f->c.valued, 0);
    values_choose(p, i, 80, &c);
    assert_false(c.candidate);

    f = field(p, OBJ_STATIC, 16, &i);
    assert_non_null(f);
    assert_int_equal(f->c.cls[VC_SMALL], 1);
    values_choose(p, i, 80, &c);
    assert_true(c.selected);
    assert_int_equal(c.saved, 6);

    f = field(p, OBJ_HEAP, 12, &i);          /* inside node+8's word */
    assert_non_null(f);
    assert_int_equal(f->c.cls[VC_SMALL], 1);
    values_choose(p, i, 80, &c);
    assert_int_equal(c.instances, 1);
    assert_false(c.candidate);
    assert_false(c.selected);
    assert_int_equal(values_nfields(p), 5);
    values_free(p);
    mr_reader_close(r);
}

static void instructions(void **state)
{
    (void)state;
    mr_reader *r;
    values *p = profile(trace, &r);
    const insn_table *t = values_insns(p);
    int seen = 0;
    for (uint32_t i = 0; i < values_ninsns(p); i++) {
        const insn_info *info = insn_table_get(t, i);
        const values_insn *in = values_insn_at(p, i);
        if (info->addr == 0x401004) {        /* link's 8-byte store */
            assert_int_equal(in->c.accesses, 4);
            assert_int_equal(in->c.cls[VC_POINTER], 2);
            seen++;
        } else if (info->addr == 0x401100) { /* setv: the unknown store left out */
            assert_int_equal(in->c.accesses, 3);
            assert_int_equal(in->c.min, -1);
            assert_int_equal(in->c.max, 3);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    values_free(p);
    mr_reader_close(r);
}

static int64_t one(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static void database_rows(void **state)
{
    (void)state;
    mr_reader *r;
    values *p = profile(trace, &r);
    char *err = NULL;
    unlink(dbpath);
    pdb *db = pdb_open(dbpath, PDB_CREATE, &err);
    assert_non_null(db);
    pdb_run_info info = { .trace = trace, .pid = 77, .started = 1 };
    int64_t run;
    assert_int_equal(pdb_begin_run(db, "values", NULL, &info, VALUES_TABLES, &run), 0);
    if (values_store(db, run, p, 5, 80, "a note", r))
        fail_msg("%s", pdb_error(db));
    assert_int_equal(pdb_commit(db), 0);
    sqlite3 *q = pdb_sqlite(db);
    assert_int_equal(one(q, "SELECT f.accesses * 1000000 + small * 10000 + pointer * 100 + "
                            "incompressible FROM value_fields f JOIN alloc_sites s "
                            "ON s.id = f.site WHERE s.name = 'make_node@n.c:5' "
                            "AND f.offset = 8"), 4010201);
    assert_int_equal(one(q, "SELECT selected * 100 + saved_bytes FROM value_fields "
                            "WHERE offset = 0"), 106);
    assert_int_equal(one(q, "SELECT count(*) FROM value_fields"), 5);
    assert_int_equal(one(q, "SELECT sum(selected) * 10 + sum(candidate) FROM value_fields"), 23);
    assert_int_equal(one(q, "SELECT heap_bytes * 1000 + saved_bytes FROM value_runs"),
                     160006);
    assert_int_equal(one(q, "SELECT selected FROM value_runs"), 2);
    assert_int_equal(one(q, "SELECT fitting FROM value_widths WHERE width = 8"), 8);
    assert_int_equal(one(q, "SELECT count(*) FROM value_instructions"), 5);
    assert_int_equal(one(q, "SELECT count(*) FROM value_runs WHERE note = 'a note' "
                            "AND values_mode = 'all'"), 1);
    pdb_close(db);
    values_free(p);
    mr_reader_close(r);
}

/* The recorder's option text says what it recorded. */
static void modes(void **state)
{
    (void)state;
    assert_int_equal(values_mode_of(NULL), VALUES_MODE_UNKNOWN);
    assert_int_equal(values_mode_of(""), VALUES_MODE_POINTERS);
    assert_int_equal(values_mode_of("--values=all --stack-depth=4"), VALUES_MODE_ALL);
    assert_int_equal(values_mode_of("--values=none"), VALUES_MODE_NONE);
    assert_int_equal(values_mode_of("--values=all --values=pointers"), VALUES_MODE_POINTERS);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(trace, sizeof trace, "%s/t.mr", dir);
    snprintf(dbpath, sizeof dbpath, "%s/t.db", dir);
    write_trace(trace, "--values=all");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace);
    unlink(dbpath);
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_totals),
        cmocka_unit_test(fields_and_rule),
        cmocka_unit_test(instructions),
        cmocka_unit_test(database_rows),
        cmocka_unit_test(modes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
