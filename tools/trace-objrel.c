/*
 * trace-objrel: the object-relative stream of a trace, one access per line,
 * as in Figure 3 of Wu et al.: the raw address beside (group, object,
 * offset), for grep, awk and sort.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "stream/insns.h"
#include "objects/objmap.h"
#include "objects/objstore.h"
#include "base/symbolize.h"

static const char usage_text[] =
    "Usage: trace-objrel [--group-depth=N] [--group=NAME] [--no-header] [-q]\n"
    "                    [TRACE|-]\n"
    "Print every memory access of a trace in object-relative form, one per\n"
    "line, tab-separated:\n"
    "\n"
    "  time  tid  instruction  pc  kind  size  group  object  offset  address\n"
    "\n"
    "  time         trace time (guest instructions executed before it)\n"
    "  tid          thread\n"
    "  instruction  function:line of the accessing instruction (or 0xADDR)\n"
    "  pc           its address\n"
    "  kind         L (load), S (store) or M (modify)\n"
    "  size         bytes\n"
    "  group        the allocation site (function:line); a static object:\n"
    "               a data symbol (also from a debug file in\n"
    "               /usr/lib/debug/.build-id) or module data no symbol\n"
    "               covers, file:section[+0xOFF] or file:(ELF headers);\n"
    "               'stack' or 'unknown'\n"
    "  object       serial of the object within its group, from 0\n"
    "  offset       bytes from the start of the object (for 'unknown', the\n"
    "               address)\n"
    "  address      the raw address, 0x...\n"
    "\n"
    "  --group-depth=N  a heap group is the first N frames of the allocation\n"
    "                   stack (default 1)\n"
    "  --group=NAME     only accesses to groups whose name is NAME\n"
    "  --no-header      no '#' header line\n"
    "  -q, --quiet      no progress on stderr\n"
    "  -h, --help       this help\n"
    "      --version    print the version\n"
    "\n"
    "The rules for groups, stack and unknown are those of trace-objects\n"
    "(tools/lib/objmap.h). Exit status: 0, 1 on a bad trace or a failed\n"
    "write, 2 for bad usage.\n";

static mr_reader *reader;
static objmap *map;
static insn_table *insns;

/* Per instruction slot: its cache and its printed "function:line\tpc". */
typedef struct slot_info {
    obj_cache cache;
    char *where;
} slot_info;
static slot_info *slots;
static uint32_t nslots;
static char **group_names;      /* by group id */
static uint32_t ngroup_names;

static void grow_slots(void)
{
    uint32_t need = insn_table_count(insns);
    if (need <= nslots)
        return;
    uint32_t n = nslots ? nslots : 1024;
    while (n < need)
        n *= 2;
    slot_info *s = realloc(slots, n * sizeof *s);
    if (!s)
        cli_fail(NULL, "out of memory");
    memset(s + nslots, 0, (n - nslots) * sizeof *s);
    slots = s;
    nslots = n;
}

static const char *slot_where(uint32_t slot)
{
    slot_info *s = &slots[slot];
    if (!s->where) {
        const insn_info *in = insn_table_get(insns, slot);
        char buf[SYM_BUF], line[SYM_BUF + 32];
        sym_where(reader, in->addr, buf, sizeof buf);
        snprintf(line, sizeof line, "%s\t0x%" PRIx64, buf, in->addr);
        if (!(s->where = strdup(line)))
            cli_fail(NULL, "out of memory");
    }
    return s->where;
}

static const char *group_name(const obj_group *g)
{
    if (g->id >= ngroup_names) {
        uint32_t n = ngroup_names ? ngroup_names : 64;
        while (n <= g->id)
            n *= 2;
        char **v = realloc(group_names, n * sizeof *v);
        if (!v)
            cli_fail(NULL, "out of memory");
        memset(v + ngroup_names, 0, (n - ngroup_names) * sizeof *v);
        group_names = v;
        ngroup_names = n;
    }
    if (!group_names[g->id]) {
        char buf[SYM_BUF];
        objstore_group_name(reader, g, buf, sizeof buf);
        if (!(group_names[g->id] = strdup(buf)))
            cli_fail(NULL, "out of memory");
    }
    return group_names[g->id];
}

static void print_exec(const mr_event *ev, const char *only, uint32_t **scratch,
                       uint32_t *nscratch)
{
    static const char kinds[] = "?LSM";
    const mr_block_def *def = ev->u.exec.def;
    if (def->naccesses > *nscratch) {
        uint32_t *s = realloc(*scratch, def->naccesses * sizeof *s);
        if (!s)
            cli_fail(NULL, "out of memory");
        *scratch = s;
        *nscratch = def->naccesses;
    }
    const uint32_t *sl = insn_table_exec(insns, ev, *scratch);
    if (!sl)
        cli_fail(NULL, "out of memory");
    grow_slots();
    for (uint32_t i = 0; i < ev->u.exec.naccesses; i++) {
        const mr_access *a = &ev->u.exec.accesses[i];
        obj_object *o = objmap_find(map, &slots[sl[i]].cache, ev->tid, a->addr);
        const char *gname = group_name(o->group);
        if (only && strcmp(only, gname) != 0)
            continue;
        printf("%" PRIu64 "\t%" PRIu32 "\t%s\t%c\t%" PRIu32 "\t%s\t%" PRIu64
               "\t%" PRIu64 "\t0x%" PRIx64 "\n",
               ev->time + a->instr, ev->tid, slot_where(sl[i]), kinds[a->kind & 3],
               a->size, gname, o->serial, a->addr - o->addr, a->addr);
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"group-depth", required_argument, NULL, 'g'},
        {"group", required_argument, NULL, 'G'},
        {"no-header", no_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    objmap_options mo = { .group_depth = 1 };
    const char *only = NULL;
    int header = 1, c;
    cli_init(argv[0]);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'g':
            mo.group_depth = (uint32_t)cli_parse_u64("--group-depth", optarg);
            if (mo.group_depth < 1 || mo.group_depth > OBJ_MAX_DEPTH)
                cli_usage_error("--group-depth must be 1 to %d", OBJ_MAX_DEPTH);
            break;
        case 'G': only = optarg; break;
        case 'n': header = 0; break;
        case 'q': cli_set_quiet(1); break;
        case 'h': fputs(usage_text, stdout); return 0;
        case 'V': cli_version();
        case ':': cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                cli_usage_error("unknown option '-%c'", optopt);
            cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        cli_usage_error("one trace at most; extra argument '%s'",
                        argv[optind + 1]);
    const char *path = optind < argc ? argv[optind] : "-";
    reader = cli_open_trace(path);
    mo.reader = reader;
    if (!(map = objmap_new(&mo)) || !(insns = insn_table_new()))
        cli_fail(NULL, "out of memory");
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (header)
        printf("# time\ttid\tinstruction\tpc\tkind\tsize\tgroup\tobject\toffset\taddress\n");
    mr_event ev;
    uint32_t *scratch = NULL, nscratch = 0;
    uint64_t events = 0;
    while (cli_next(reader, path, &ev, 1) > 0) {
        if (objmap_event(map, &ev) < 0)
            cli_fail(NULL, "out of memory");
        if (ev.kind == MR_EV_EXEC && ev.u.exec.naccesses)
            print_exec(&ev, only, &scratch, &nscratch);
        if ((++events & 0xffff) == 0) {
            cli_progress(reader);
            if (ferror(stdout))
                break;
        }
    }
    cli_progress_done();
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("<stdout>", "cannot write");
    for (uint32_t i = 0; i < nslots; i++)
        free(slots[i].where);
    free(slots);
    for (uint32_t i = 0; i < ngroup_names; i++)
        free(group_names[i]);
    free(group_names);
    free(scratch);
    insn_table_free(insns);
    objmap_free(map);
    mr_reader_close(reader);
    return 0;
}
