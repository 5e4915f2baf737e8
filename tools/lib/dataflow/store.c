/* store.c: the only SQL of trace-dataflow (store.h). */
#include "dataflow/store.h"

#include <stdlib.h>

#include "base/cli.h"

const char *const DATAFLOW_TABLES[] = { "dataflow_graphs", NULL };

int df_begin_run(pdb_session *s, const char *path, int argc, char **argv)
{
    char *options = cli_join(argc, (const char *const *)argv);
    pdb_run_info info = { .trace = path };
    int rc = options ? pdb_begin_run(s->db, "dataflow", options, &info, DATAFLOW_TABLES, &s->run)
                     : -1;
    s->begun = rc == 0;
    free(options);
    return rc;
}

int df_store_table(pdb *db, int64_t run, const twpp_model *m, const df_table_row *rows)
{
    sqlite3_stmt *s = pdb_prepare(db, "INSERT INTO dataflow_graphs (run, function, entry, paths, "
                                      "static_nodes, static_edges, dynamic_nodes, dynamic_edges, "
                                      "entries, timestamps) VALUES (?,?,?,?,?,?,?,?,?,?)");
    if (!s)
        return -1;
    for (uint32_t i = 0; i < m->nfunctions; i++) {
        const df_table_row *r = &rows[i];
        int64_t v[] = { (int64_t)r->static_nodes, (int64_t)r->static_edges,
                        (int64_t)r->dynamic_nodes, (int64_t)r->dynamic_edges,
                        (int64_t)r->entries, (int64_t)r->timestamps };
        sqlite3_bind_int64(s, 1, run);
        sqlite3_bind_text(s, 2, m->functions[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, (int64_t)m->functions[i].entry);
        sqlite3_bind_int64(s, 4, m->functions[i].npaths);
        for (int k = 0; k < 6; k++)
            sqlite3_bind_int64(s, 5 + k, v[k]);
        if (pdb_exec(db, s) < 0)
            return -1;
    }
    return 0;
}
