/* insn_ids.c: instruction ids by dense number; see insn_ids.h. */
#include "db/insn_ids.h"

#include <stdlib.h>

#include "base/array.h"

int pdb_insn_id(pdb *db, int64_t run, const mr_reader *r, pdb_insn_ids *t,
                uint32_t n, uint64_t addr, uint8_t kind, uint32_t size,
                int64_t *id)
{
    if (ARRAY_FIT(t->ids, t->cap, (size_t)n + 1) < 0)
        return -1;
    if (!t->ids[n]) {
        const mr_symbol *sym = mr_reader_symbol(r, addr);
        if (pdb_instruction(db, run, addr, sym ? sym->function : NULL,
                            sym ? sym->file : NULL, sym ? sym->line : 0,
                            mr_access_kind_name(kind), size, &t->ids[n]))
            return -1;
    }
    *id = t->ids[n];
    return 0;
}

void pdb_insn_ids_free(pdb_insn_ids *t)
{
    free(t->ids);
    t->ids = NULL;
    t->cap = 0;
}
