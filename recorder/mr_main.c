/*
 * mr_main.c: memrec, a Valgrind tool that records a program's complete
 * memory behaviour (control flow, loads, stores, heap, symbols) into a
 * compact trace written by a helper process, memrec-encoder.
 */
#include "mr_tool.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"

static void mr_post_clo_init(void)
{
    /* One superblock per guest block: exits then carry the real jump kinds
     * (calls, returns, syscalls) and blocks are shared by all paths. */
    VG_(clo_vex_control).guest_chase = False;
    mr_stream_init();
    mr_defs_init();
    mr_stream_start();
    mr_process_post_clo_init();
}

static void mr_fini(Int exitcode)
{
    (void)exitcode;            /* always 0 in 3.19: the status comes from exit_group */
    mr_process_fini();
}

static void mr_pre_clo_init(void)
{
    VG_(details_name)("memrec");
    VG_(details_version)("0.1.0");
    VG_(details_description)("a full memory tracer");
    VG_(details_copyright_author)("Copyright (C) the memrec authors; GNU GPL'd.");
    VG_(details_bug_reports_to)("the memrec issue tracker");
    VG_(details_avg_translation_sizeB)(400);

    VG_(basic_tool_funcs)(mr_post_clo_init, mr_instrument, mr_fini);
    VG_(needs_command_line_options)(mr_process_option, mr_print_usage,
                                    mr_print_debug_usage);
    mr_heap_init();
    mr_mmap_init();
    mr_custom_init();
    mr_process_init();
}

VG_DETERMINE_INTERFACE_VERSION(mr_pre_clo_init)
