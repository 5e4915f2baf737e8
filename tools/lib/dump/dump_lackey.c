/* dump_lackey.c: Lackey's --trace-mem=yes lines, see dump_lackey.h. */
#include "dump/dump_lackey.h"

/* " L ", " S ", " M " by mr_access_kind. */
static const char kind_prefix[4][4] = {" ? ", " L ", " S ", " M "};

/* One line "PREFIX%08lx,%lu\n". */
static inline void line(dump_out *o, const char *prefix, uint64_t addr,
                        uint64_t size)
{
    out_mem(o, prefix, 3);
    out_hex(o, addr, 8);
    out_char(o, ',');
    out_u64(o, size);
    out_char(o, '\n');
}

void dump_lackey_exec(dump_out *o, const mr_event *ev, uint64_t from,
                      uint64_t to, const uint8_t *mask)
{
    const mr_block_def *def = ev->u.exec.def;
    const mr_access *acc = ev->u.exec.accesses;
    uint32_t nacc = ev->u.exec.naccesses;
    uint32_t ninstrs = ev->u.exec.ninstrs;
    uint32_t a = 0;
    if (ninstrs > def->ninstrs)
        ninstrs = def->ninstrs;     /* the reader checks; stay safe anyway */
    for (uint32_t i = 0; i < ninstrs; i++) {
        uint64_t t = ev->time + i;
        int shown = t >= from && t < to && (!mask || mask[i]);
        if (shown)
            line(o, "I  ", def->instrs[i].addr, def->instrs[i].len);
        /* Accesses come in execution order, so those of instruction i
         * follow those of earlier ones; "<=" also keeps any access with an
         * out-of-order index next to the instruction that reached it. */
        for (; a < nacc && acc[a].instr <= i; a++)
            if (shown)
                line(o, kind_prefix[acc[a].kind & 3], acc[a].addr, acc[a].size);
    }
    /* Accesses of instructions beyond the executed ones cannot happen in a
     * valid trace; print them after the last instruction rather than drop
     * them, if that one was shown. */
    if (ninstrs) {
        uint64_t t = ev->time + ninstrs - 1;
        int shown = t >= from && t < to && (!mask || mask[ninstrs - 1]);
        for (; a < nacc; a++)
            if (shown)
                line(o, kind_prefix[acc[a].kind & 3], acc[a].addr, acc[a].size);
    }
}
