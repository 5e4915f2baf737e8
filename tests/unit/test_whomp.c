/*
 * test_whomp.c: WHOMP's grammars (whomp/whomp.h) over synthetic accesses
 * that cross several batches: every OMSG grammar expands to its dimension's
 * stream, the RASG to the packed (instruction, address) stream, each
 * vertical grammar to its instruction's (group, object, offset) triples;
 * stack and unknown accesses are left out; the RASG's own thread builds the
 * same grammars as one thread does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "whomp/whomp.h"

/* Accesses fed: more than three batches of 4096, and not a multiple. */
#define ACCESSES (3 * 4096 + 1234)
#define INSNS 7
#define OBJECTS 5

/* The synthetic program's memory: heap groups 0 and 1, a static object,
 * the stack and the unknown pseudo-object. */
typedef struct fixture {
    obj_group groups[5];
    obj_object objects[OBJECTS];
} fixture;

static void fixture_init(fixture *f)
{
    static const uint8_t kinds[5] = { OBJ_HEAP, OBJ_HEAP, OBJ_STATIC, OBJ_STACK, OBJ_UNKNOWN };
    for (uint32_t g = 0; g < 5; g++)
        f->groups[g] = (obj_group){ .id = g, .kind = kinds[g] };
    /* object i lies in group i, except that group 0 has two objects */
    static const uint32_t group_of[OBJECTS] = { 0, 0, 1, 2, 3 };
    for (uint32_t i = 0; i < OBJECTS; i++)
        f->objects[i] = (obj_object){ .addr = 0x10000 + 0x1000 * (uint64_t)i, .size = 0x1000,
                                      .serial = i == 1, .group = &f->groups[group_of[i]] };
}

/* The i-th access: a loop over the objects with a drifting field, so the
 * streams repeat in part; every 97th access is to the unknown object. */
static void access_of(fixture *f, uint32_t i, uint32_t *insn, obj_object **o, uint64_t *addr)
{
    static obj_object unknown;
    *insn = i % INSNS;
    if (i % 97 == 0) {
        unknown = (obj_object){ .addr = 0x90000, .size = 16, .group = &f->groups[4] };
        *o = &unknown;
    } else {
        *o = &f->objects[(i / INSNS) % OBJECTS];
    }
    *addr = (*o)->addr + 8 * ((i / 3) % 17) + (i % INSNS);
}

static int is_kept(const obj_object *o, int stack)
{
    return o->group->kind != OBJ_UNKNOWN && (stack || o->group->kind != OBJ_STACK);
}

/* The expansion of g's rule 0, which must be n terminals; malloc'd. */
static uint64_t *expand_all(const sq_grammar *g, uint64_t n)
{
    assert_non_null(g);
    uint64_t *out = malloc(sizeof *out * (n + 1));
    assert_non_null(out);
    assert_int_equal(sq_expand_array(g, 0, out, n + 1), (int64_t)n);
    return out;
}

/* Feeds the accesses with the options and checks every grammar against
 * the streams they were fed; *rules gets the grammars' rule counts (four
 * OMSG, then RASG) for comparing runs. */
static void run(whomp_options o, uint32_t rules[WHOMP_DIMS + 1])
{
    fixture f;
    fixture_init(&f);
    whomp *w = whomp_new(&o);
    assert_non_null(w);
    uint64_t *want[WHOMP_DIMS + 1];
    for (int d = 0; d <= WHOMP_DIMS; d++)
        assert_non_null(want[d] = malloc(sizeof *want[d] * ACCESSES));
    uint64_t kept = 0, skipped = 0;
    for (uint32_t i = 0; i < ACCESSES; i++) {
        uint32_t insn;
        obj_object *obj;
        uint64_t addr;
        access_of(&f, i, &insn, &obj, &addr);
        int rc = whomp_access(w, insn, obj, addr);
        if (!is_kept(obj, o.stack)) {
            assert_int_equal(rc, 0);
            skipped++;
            continue;
        }
        assert_int_equal(rc, 1);
        uint64_t t[WHOMP_DIMS + 1] = { insn, obj->group->id, obj->serial, addr - obj->addr,
                                       addr << 16 | insn };
        for (int d = 0; d <= WHOMP_DIMS; d++)
            want[d][kept] = t[d];
        kept++;
    }
    assert_int_equal(whomp_finish(w), 0);
    assert_int_equal(whomp_kept(w), kept);
    assert_int_equal(whomp_skipped(w), skipped);
    for (int d = 0; d <= WHOMP_DIMS; d++) {
        sq_grammar *g = d < WHOMP_DIMS ? whomp_take_omsg(w, d) : whomp_take_rasg(w);
        uint64_t *got = expand_all(g, kept);
        for (uint64_t i = 0; i < kept; i++)
            if (got[i] != want[d][i])
                fail_msg("stream %d, access %llu: %llu, fed %llu", d, (unsigned long long)i,
                         (unsigned long long)got[i], (unsigned long long)want[d][i]);
        rules[d] = sq_rule_count(g);
        free(got);
        sq_grammar_free(g);
    }
    if (o.vertical) {
        /* instruction k's grammar: the triples of the accesses it made */
        assert_int_equal(whomp_vertical_count(w), INSNS);
        for (uint32_t v = 0; v < INSNS; v++) {
            uint32_t insn = whomp_vertical_insn(w, v);
            uint64_t n = 0;
            for (uint64_t i = 0; i < kept; i++)
                n += want[WHOMP_INSTRUCTION][i] == insn;
            sq_grammar *g = whomp_take_vertical(w, v);
            uint64_t *got = expand_all(g, 3 * n), at = 0;
            for (uint64_t i = 0; i < kept; i++) {
                if (want[WHOMP_INSTRUCTION][i] != insn)
                    continue;
                for (int d = WHOMP_GROUP; d <= WHOMP_OFFSET; d++)
                    assert_int_equal(got[at++], want[d][i]);
            }
            free(got);
            sq_grammar_free(g);
        }
    }
    for (int d = 0; d <= WHOMP_DIMS; d++)
        free(want[d]);
    whomp_free(w);
}

static void test_one_thread(void **state)
{
    (void)state;
    uint32_t rules[WHOMP_DIMS + 1];
    run((whomp_options){ .threads = 1 }, rules);
    run((whomp_options){ .threads = 1, .stack = 1, .vertical = 1 }, rules);
}

static void test_rasg_thread_same_grammars(void **state)
{
    (void)state;
    uint32_t one[WHOMP_DIMS + 1], two[WHOMP_DIMS + 1];
    run((whomp_options){ .threads = 1, .stack = 1 }, one);
    run((whomp_options){ .threads = 2, .stack = 1, .vertical = 1 }, two);
    for (int d = 0; d <= WHOMP_DIMS; d++)
        assert_int_equal(one[d], two[d]);
}

/* Freed without whomp_finish, with the thread running and a batch pending:
 * nothing leaks (ASan) and nothing hangs. */
static void test_free_unfinished(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    whomp *w = whomp_new(&(whomp_options){ .threads = 2 });
    assert_non_null(w);
    for (uint32_t i = 0; i < 4096 + 10; i++) {
        uint32_t insn;
        obj_object *obj;
        uint64_t addr;
        access_of(&f, i, &insn, &obj, &addr);
        assert_true(whomp_access(w, insn, obj, addr) >= 0);
    }
    whomp_free(w);
}

static void test_unpackable(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    whomp *w = whomp_new(&(whomp_options){ .threads = 1 });
    assert_non_null(w);
    assert_int_equal(whomp_access(w, WHOMP_RASG_INSNS, &f.objects[0], f.objects[0].addr), -2);
    obj_object far = f.objects[0];
    far.addr = WHOMP_RASG_ADDRS;
    assert_int_equal(whomp_access(w, 0, &far, far.addr), -2);
    assert_int_equal(whomp_finish(w), 0);
    assert_int_equal(whomp_kept(w), 0);
    whomp_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_rasg_thread_same_grammars),
        cmocka_unit_test(test_free_unfinished),
        cmocka_unit_test(test_unpackable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
