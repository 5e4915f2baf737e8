/*
 * grammar_store.c: grammars into the profile database (see grammar_store.h).
 */
#include "db/grammar_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

/* Words joined by spaces (malloc'd), for the runs and analyses rows. */
static char *join_words(uint32_t n, const char *const *words)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? " " : "", words[i]);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

pdb *grammar_store_begin(const char *db_path, const char *analysis,
                         const char *const *owned, const char *trace,
                         const mr_reader *r, int argc, char **argv,
                         int64_t *run, char **err)
{
    pdb *db = pdb_open(db_path, PDB_CREATE, err);
    if (!db)
        return NULL;
    const mr_process *p = mr_reader_process(r);
    char *command = p ? join_words(p->argc, p->argv) : NULL;
    char *options = join_words((uint32_t)argc, (const char *const *)argv);
    pdb_run_info info = { .trace = trace, .command = command,
                          .pid = p ? p->pid : 0, .started = p ? p->start_usec : 0 };
    int rc = pdb_begin_run(db, analysis, options, &info, owned, run);
    free(command);
    free(options);
    sqlite3_stmt *del = rc ? NULL : pdb_prepare(db, "DELETE FROM grammars WHERE run = ? AND analysis = ?");
    if (del) {
        sqlite3_bind_int64(del, 1, *run);
        sqlite3_bind_text(del, 2, analysis, -1, SQLITE_STATIC);
        rc = pdb_exec(db, del);
    }
    if (rc || !del) {
        *err = strdup(*pdb_error(db) ? pdb_error(db) : "out of memory");
        pdb_abort(db);
        return NULL;
    }
    return db;
}

int grammar_store(pdb *db, int64_t run, const char *analysis, const char *stream,
                  const sq_grammar *g)
{
    void *blob;
    size_t len;
    if (sq_serialize(g, &blob, &len) < 0)
        return -1;
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO grammars (run, analysis, stream, length, "
                                        "rules, symbols, bytes, blob) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    if (!ins) {
        free(blob);
        return -1;
    }
    sqlite3_bind_int64(ins, 1, run);
    sqlite3_bind_text(ins, 2, analysis, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, stream, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 4, (int64_t)sq_expanded_length(g, 0));
    sqlite3_bind_int64(ins, 5, sq_rule_count(g));
    sqlite3_bind_int64(ins, 6, (int64_t)sq_symbol_count(g));
    sqlite3_bind_int64(ins, 7, (int64_t)len);
    sqlite3_bind_blob64(ins, 8, blob, len, free);
    return pdb_exec(db, ins);
}
