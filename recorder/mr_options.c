/* mr_options.c: the tool's command line options, in Valgrind's conventions. */
#include "mr_tool.h"
#include "pub_tool_options.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

/* Defaults: values of pointer-sized accesses (what RDS profiling needs),
 * 8 frames of allocation stacks, collection from the start. */
mr_options mr_clo = {
    .out_file = "memrec.out.%p",
    .trace_mem = True,
    .values = MR_VALUES_POINTERS,
    .stack_depth = 8,
    .toggle_fn = NULL,
    .compress_level = 0,
    .collect_atstart = True,
};

/* The recognised options as given, for the process record. */
static HChar *options_text;

static void remember_option(const HChar *arg)
{
    SizeT old = options_text ? VG_(strlen)(options_text) : 0;
    SizeT add = VG_(strlen)(arg);
    HChar *s = VG_(malloc)("mr.opt.text", old + add + 2);
    if (old) {
        VG_(memcpy)(s, options_text, old);
        s[old++] = ' ';
        VG_(free)(options_text);
    }
    VG_(memcpy)(s + old, arg, add + 1);
    options_text = s;
}

Bool mr_process_option(const HChar *arg)
{
    const HChar *str;
    Long depth, level;
    if VG_STR_CLO(arg, "--memrec-out-file", str) mr_clo.out_file = str;
    else if VG_BOOL_CLO(arg, "--trace-mem", mr_clo.trace_mem) {}
    else if VG_XACT_CLO(arg, "--values=none", mr_clo.values, MR_VALUES_NONE) {}
    else if VG_XACT_CLO(arg, "--values=pointers", mr_clo.values, MR_VALUES_POINTERS) {}
    else if VG_XACT_CLO(arg, "--values=all", mr_clo.values, MR_VALUES_ALL) {}
    else if VG_BINT_CLO(arg, "--stack-depth", depth, 1, 64) mr_clo.stack_depth = (UInt)depth;
    else if VG_STR_CLO(arg, "--toggle-collect", str) mr_clo.toggle_fn = str;
    else if VG_BINT_CLO(arg, "--compress-level", level, 0, 22) mr_clo.compress_level = (Int)level;
    else if VG_BOOL_CLO(arg, "--collect-atstart", mr_clo.collect_atstart) {}
    else if VG_STR_CLO(arg, "--alloc-fn", str) {
        if (mr_clo.n_alloc_fns == MR_MAX_ALLOC_FNS)
            VG_(fmsg_bad_option)(arg, "at most %d --alloc-fn options\n", MR_MAX_ALLOC_FNS);
        mr_clo.alloc_fns[mr_clo.n_alloc_fns++] = str;
    }
    else return False;
    remember_option(arg);
    return True;
}

const HChar *mr_options_string(void)
{
    return options_text ? options_text : "";
}

void mr_print_usage(void)
{
    VG_(printf)(
"    --memrec-out-file=<file>  trace file name [memrec.out.%%p]; %%p is the pid,\n"
"                              %%q{VAR} the value of environment variable VAR\n"
"    --trace-mem=no|yes        record loads, stores and modifies [yes]\n"
"    --values=none|pointers|all  record the values moved: none, those of\n"
"                              8-byte integer accesses (not to or from\n"
"                              %%xmm), or of every access up to 8 bytes\n"
"                              [pointers]\n"
"    --stack-depth=<n>         frames of allocation call stacks [8]\n"
"    --alloc-fn=<name>         a function that allocates for its callers\n"
"                              (xmalloc...): its frames are left out of\n"
"                              allocation stacks, so the stack names the\n"
"                              caller (as Massif's option); repeatable\n"
"    --toggle-collect=<fn>     record block executions only inside function fn\n"
"    --collect-atstart=no|yes  record from the start; with no, only between\n"
"                              MEMREC_START and MEMREC_STOP (memrec.h) [yes]\n"
"    --compress-level=<n>      zstd level of the trace, 1..22 [library default]\n"
    );
}

void mr_print_debug_usage(void)
{
}
