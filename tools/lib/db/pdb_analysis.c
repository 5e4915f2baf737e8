/*
 * pdb_analysis.c: an analysis's way into the profile database (see
 * pdb_analysis.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pdb_analysis.h"
#include "db/sql_embedded.h"
#include "base/array.h"

/* argv joined by spaces (malloc'd), NULL when out of memory. */
static char *joined(uint32_t argc, const char *const *argv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (uint32_t i = 0; i < argc; i++)
        fprintf(f, "%s%s", i ? " " : "", argv[i]);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

pdb *pdb_analysis_begin(const char *path, const mr_reader *r,
                        const char *trace, const char *analysis,
                        int argc, char **argv, const char *const *owned,
                        int64_t *run, char *err, size_t errlen)
{
    char *e = NULL;
    pdb *db = pdb_open(path, PDB_CREATE, &e);
    if (!db) {
        snprintf(err, errlen, "%s", e ? e : "cannot open");
        free(e);
        return NULL;
    }
    const mr_process *p = mr_reader_process(r);
    char *command = p ? joined(p->argc, p->argv) : NULL;
    char *options = joined((uint32_t)argc, (const char *const *)argv);
    pdb_run_info info = { .trace = trace, .command = command,
                          .pid = p ? p->pid : 0,
                          .started = p ? p->start_usec : 0 };
    int rc = options ? 0 : -1;
    if (rc == 0)
        rc = pdb_begin_run(db, analysis, options, &info, owned, run);
    if (rc == 0)    /* tables of this build missing from an older file */
        rc = pdb_exec_sql(db, mr_sql_schema);
    free(command);
    free(options);
    if (rc) {
        snprintf(err, errlen, "%s", *pdb_error(db) ? pdb_error(db) : "out of memory");
        pdb_abort(db);
        return NULL;
    }
    return db;
}

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
