/* store.c: the only SQL of trace-redundancy (store.h). */
#include "redundancy/store.h"

#include <stdlib.h>
#include <string.h>

#include "memrec_trace.h"

#include "base/cli.h"

const char *const REDUNDANCY_TABLES[] = { "redundancy", NULL };

int redund_begin_run(pdb_session *s, const char *path, int argc, char **argv)
{
    char *options = cli_join(argc, (const char *const *)argv);
    pdb_run_info info = { .trace = path };
    int rc = options ? pdb_begin_run(s->db, "redundancy", options, &info, REDUNDANCY_TABLES,
                                     &s->run) : -1;
    s->begun = rc == 0;
    free(options);
    return rc;
}

/* The instructions row of x: its function and line from "function:line". */
static int instruction_id(pdb *db, int64_t run, const redund_insn *x, int64_t *id)
{
    char function[512] = "";
    uint32_t line = 0;
    if (x->where) {
        const char *colon = strrchr(x->where, ':');
        size_t n = colon ? (size_t)(colon - x->where) : strlen(x->where);
        if (n >= sizeof function)
            n = sizeof function - 1;
        memcpy(function, x->where, n);
        function[n] = 0;
        if (colon)
            line = (uint32_t)strtoul(colon + 1, NULL, 10);
    }
    return pdb_instruction(db, run, x->addr, *function ? function : NULL, NULL, line,
                           mr_access_kind_name(x->kind), x->size, id);
}

int redund_store(pdb *db, int64_t run, const char *method, const redund_result *r)
{
    sqlite3_stmt *s = pdb_prepare(db, "INSERT INTO redundancy (run, instruction, method, "
                                      "loads, redundant_loads, unwritten_loads, stores, "
                                      "redundant_stores) VALUES (?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    for (uint32_t i = 0; i < r->n; i++) {
        const redund_insn *x = &r->insns[i];
        int64_t id;
        if (instruction_id(db, run, x, &id) < 0)
            return -1;
        int64_t v[] = { (int64_t)x->loads, (int64_t)x->redundant_loads,
                        (int64_t)x->unwritten_loads, (int64_t)x->stores,
                        (int64_t)x->redundant_stores };
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_int64(s, 2, id);
        sqlite3_bind_text(s, 3, method, -1, SQLITE_STATIC);
        for (int k = 0; k < 5; k++)
            sqlite3_bind_int64(s, 4 + k, v[k]);
        if (pdb_exec(db, s) < 0)
            return -1;
    }
    return 0;
}
