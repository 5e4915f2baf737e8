/* store.c: MemPat patterns into the profile database; see store.h. */
#include "mempat/store.h"

#include <stdlib.h>

const char *const MEMPAT_TABLES[] = { "mempat", NULL };

/* One mempat row (and its instructions row). */
static int store_one(pdb *db, sqlite3_stmt *ins, int64_t run,
                     const mempat *m, uint32_t slot, const mr_reader *r)
{
    mempat_info info;
    int64_t insn;
    mempat_get_info(m, slot, &info);
    const mr_symbol *sym = mr_reader_symbol(r, info.instr);
    if (pdb_instruction(db, run, info.instr, sym ? sym->function : NULL,
                        sym ? sym->file : NULL, sym ? sym->line : 0,
                        mr_access_kind_name(info.access_kind), info.size,
                        &insn))
        return -1;
    char *text = mempat_pattern_text(m, slot);
    if (!text)
        return -1;
    sqlite3_bind_int64(ins, 1, run);
    sqlite3_bind_int64(ins, 2, insn);
    sqlite3_bind_text(ins, 3, text, -1, free);
    sqlite3_bind_text(ins, 4, mempat_kind_name(info.kind), -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 5, (int64_t)info.accesses);
    sqlite3_bind_int(ins, 6, info.overflowed);
    return pdb_exec(db, ins);
}

int mempat_store(pdb *db, int64_t run, const mempat *m, const uint32_t *order,
                 uint32_t n, const mr_reader *r)
{
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO mempat (run, instruction, "
                                        "pattern, kind, accesses, overflowed) "
                                        "VALUES (?, ?, ?, ?, ?, ?)");
    if (!ins)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (store_one(db, ins, run, m, order[i], r))
            return -1;
    return 0;
}
