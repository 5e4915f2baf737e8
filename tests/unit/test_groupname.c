/*
 * test_groupname.c: names of groups that cannot collide and say where
 * things are (issue 14). A data symbol named like a kind (libpython's
 * `stack`) is named module:symbol and never takes the name of the stack
 * group; the recorder's unnamed stretches (`file:section`) keep their
 * name; a module seen again under the same id is renamed; C++ function
 * names are shortened the way profilers show them, whatever their length.
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

#include "base/symbolize.h"
#include "objects/groupname.h"
#include "objects/objmap.h"

static void feed(objmap *m, mr_event_kind kind, const void *what)
{
    mr_event ev = {0};
    ev.kind = kind;
    if (kind == MR_EV_MODULE)
        ev.u.module = what;
    else
        ev.u.dataobj = what;
    assert_int_equal(objmap_event(m, &ev), 0);
}

/* The group of the object at addr, by name. */
static const char *name_at(objmap *m, uint64_t addr, char *buf, size_t n)
{
    obj_cache c = {0};
    const obj_object *o = objmap_find(m, &c, 1, addr);
    assert_non_null(o);
    return obj_group_name(NULL, o->group, buf, n);
}

static void test_static_names_collide_never(void **state)
{
    (void)state;
    objmap_options opts = {0};
    objmap *m = objmap_new(&opts);
    assert_non_null(m);
    mr_module py = {0, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", 0x7000000, 0x100000, 0};
    mr_module app = {1, "app", 0x400000, 0x1000, 0};
    feed(m, MR_EV_MODULE, &py);
    feed(m, MR_EV_MODULE, &app);
    mr_dataobj stack = {"stack", 0x7200000, 24, 0};
    mr_dataobj bss = {"libpython3.11.so.1.0:.bss+0x40", 0x7200040, 64, 0};
    mr_dataobj app_stack = {"stack", 0x600000, 8, 1};
    mr_dataobj orphan = {"lost", 0x610000, 8, 9};     /* module never seen */
    feed(m, MR_EV_DATAOBJ, &stack);
    feed(m, MR_EV_DATAOBJ, &bss);
    feed(m, MR_EV_DATAOBJ, &app_stack);
    feed(m, MR_EV_DATAOBJ, &orphan);
    char buf[SYM_BUF];
    assert_string_equal(name_at(m, 0x7200000, buf, sizeof buf), "libpython3.11.so.1.0:stack");
    assert_string_equal(name_at(m, 0x7200040, buf, sizeof buf), "libpython3.11.so.1.0:.bss+0x40");
    assert_string_equal(name_at(m, 0x600000, buf, sizeof buf), "app:stack");
    assert_string_equal(name_at(m, 0x610000, buf, sizeof buf), "lost");
    /* no static group is named like a kind */
    for (uint32_t i = 0; i < objmap_ngroups(m); i++) {
        const obj_group *g = objmap_group(m, i);
        obj_group_name(NULL, g, buf, sizeof buf);
        if (g->kind == OBJ_STATIC)
            for (int k = OBJ_HEAP; k <= OBJ_UNKNOWN; k++)
                assert_string_not_equal(buf, obj_kind_name(k));
    }
    /* a module id reused by a later mapping names the later objects */
    mr_module again = {1, "/opt/other", 0x800000, 0x1000, 0};
    feed(m, MR_EV_MODULE, &again);
    mr_dataobj later = {"stack", 0x620000, 8, 1};
    feed(m, MR_EV_DATAOBJ, &later);
    assert_string_equal(name_at(m, 0x620000, buf, sizeof buf), "other:stack");
    objmap_free(m);
}

/* Code with no symbol (a stripped library) is named by its module and the
 * call's place in the module's file, for addr2line; code in no module
 * stays a bare address. */
static void test_stripped_sites(void **state)
{
    (void)state;
    objmap_options opts = {0};
    objmap *m = objmap_new(&opts);
    assert_non_null(m);
    mr_module lib = {0, "/usr/lib/libstripped.so.1", 0x7f0000001000, 0x10000, 0x7f0000000000};
    feed(m, MR_EV_MODULE, &lib);
    uint64_t ips[] = {0x7f0000002c13, 0x9999};
    mr_stack st = {1, 2, ips};
    mr_event ev = {0};
    ev.kind = MR_EV_HEAP;
    ev.u.heap.h = (mr_heap){MR_MALLOC, 0x500000, 64, 0, 0, 1};
    ev.u.heap.stack = &st;
    assert_int_equal(objmap_event(m, &ev), 0);
    char buf[SYM_BUF];
    assert_string_equal(name_at(m, 0x500000, buf, sizeof buf), "libstripped.so.1+0x2c13");

    objmap_free(m);
    opts.group_depth = 2;
    m = objmap_new(&opts);
    feed(m, MR_EV_MODULE, &lib);
    assert_int_equal(objmap_event(m, &ev), 0);
    assert_string_equal(name_at(m, 0x500000, buf, sizeof buf),
                        "libstripped.so.1+0x2c13 <- 0x9999");
    objmap_free(m);
}

/* A symbol with no line (a library without debug information): the
 * function and which call in it, so two call sites in one function get
 * two names, not "f" and "f (2)". Through a real trace and its reader. */
static void test_symbol_without_line(void **state)
{
    (void)state;
    char path[] = "/tmp/test_groupname.XXXXXX", *err = NULL;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    mr_writer *w = mr_writer_open(path, NULL, &err);
    assert_non_null(w);
    const char *argv[] = {"perl"};
    mr_process p = {9, 1, 1700000000000000ULL, "/usr/bin/perl", 1, argv, ""};
    mr_module mod = {0, "/usr/bin/perl", 0x400000, 0x100000, 0x400000};
    assert_int_equal(mr_write_process(w, &p), 0);
    assert_int_equal(mr_write_module(w, &mod), 0);
    mr_symbol a = {0x412340, "Perl_Slab_Alloc", NULL, 0}, b = {0x412380, "Perl_Slab_Alloc", NULL, 0};
    assert_int_equal(mr_write_symbol(w, &a), 0);
    assert_int_equal(mr_write_symbol(w, &b), 0);
    uint64_t ips1[] = {0x412345}, ips2[] = {0x412385};
    mr_stack s1 = {1, 1, ips1}, s2 = {2, 1, ips2};
    assert_int_equal(mr_write_stack(w, &s1), 0);
    assert_int_equal(mr_write_stack(w, &s2), 0);
    assert_int_equal(mr_write_thread_switch(w, 1), 0);
    mr_heap h1 = {MR_MALLOC, 0x600000, 16, 0, 0, 1}, h2 = {MR_MALLOC, 0x600100, 16, 0, 0, 2};
    assert_int_equal(mr_write_heap(w, &h1), 0);
    assert_int_equal(mr_write_heap(w, &h2), 0);
    mr_end end = {MR_END_EXIT, 0, 0, {0}};
    assert_int_equal(mr_writer_close(w, &end, &err), 0);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    objmap_options opts = {.reader = r};
    objmap *m = objmap_new(&opts);
    mr_event ev;
    while (mr_next(r, &ev) > 0)
        assert_int_equal(objmap_event(m, &ev), 0);
    obj_cache c = {0};
    char buf[SYM_BUF];
    obj_object *o = objmap_find(m, &c, 1, 0x600000);
    assert_non_null(o);
    assert_string_equal(obj_group_name(r, o->group, buf, sizeof buf), "Perl_Slab_Alloc@perl+0x12345");
    o = objmap_find(m, &c, 1, 0x600100);
    assert_non_null(o);
    assert_string_equal(obj_group_name(r, o->group, buf, sizeof buf), "Perl_Slab_Alloc@perl+0x12385");
    objmap_free(m);
    mr_reader_close(r);
    unlink(path);
}

static const char *shorten(const char *full)
{
    static char buf[SYM_BUF];
    return obj_short_function(full, buf, sizeof buf);
}

static void test_short_functions(void **state)
{
    (void)state;
    assert_string_equal(shorten("main"), "main");
    assert_string_equal(shorten("grid"), "grid");
    assert_string_equal(
        shorten("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
                "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)"),
        "void std::vector<...>::_M_realloc_insert<...>");
    assert_string_equal(shorten("std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> >, "
                                "std::less<int>, std::allocator<std::pair<int const, int> > >::_M_get_node()"),
                        "std::_Rb_tree<...>::_M_get_node");
    assert_string_equal(shorten("operator<<(std::ostream&, Foo const&)"), "operator<<");
    assert_string_equal(shorten("Foo::operator()(int) const"), "Foo::operator()");
    assert_string_equal(shorten("Foo::operator<(Foo const&) const"), "Foo::operator<");
    assert_string_equal(shorten("operator new(unsigned long)"), "operator new");
    assert_string_equal(shorten("(anonymous namespace)::helper(int)"), "(anonymous namespace)::helper");
    assert_string_equal(shorten("f(int)::{lambda()#1}::operator()() const"), "f::{lambda#1}::operator()");
    assert_string_equal(shorten("compress_block [clone .constprop.0]"), "compress_block");
    assert_string_equal(shorten("Outer<Inner<int> >::go(std::vector<std::string>) &&"), "Outer<...>::go");
}

/* A name far longer than the buffer: cut to fit, never overrun; one whose
 * template arguments are most of it comes out short. */
static void test_long_names(void **state)
{
    (void)state;
    char full[4096], small[32];
    size_t k = 0;
    k += (size_t)sprintf(full + k, "ns::Widget<");
    while (k < 3000)
        k += (size_t)sprintf(full + k, "std::map<int, std::vector<double> >, ");
    sprintf(full + k, "int>::render(int, char const*)");
    assert_string_equal(shorten(full), "ns::Widget<...>::render");
    char plain[1000];
    memset(plain, 'x', sizeof plain - 1);
    plain[sizeof plain - 1] = 0;
    obj_short_function(plain, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    obj_short_function("operator<<", small, 4);   /* even the operator's copy fits */
    assert_string_equal(small, "ope");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_names_collide_never),
        cmocka_unit_test(test_stripped_sites),
        cmocka_unit_test(test_symbol_without_line),
        cmocka_unit_test(test_short_functions),
        cmocka_unit_test(test_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
