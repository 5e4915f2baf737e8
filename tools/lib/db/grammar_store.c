/*
 * grammar_store.c: grammars into the profile database (see grammar_store.h).
 */
#include "db/grammar_store.h"

#include <stdlib.h>
#include <sqlite3.h>

int grammar_store_begin(pdb_session *s, const char *analysis,
                        const char *const *owned, const mr_reader *r,
                        const char *trace, int argc, char **argv)
{
    if (pdb_session_begin(s, analysis, owned, r, trace, argc, argv) < 0)
        return -1;
    sqlite3_stmt *del = pdb_prepare(s->db, "DELETE FROM grammars WHERE run = ? AND analysis = ?");
    if (!del)
        return -1;
    sqlite3_bind_int64(del, 1, s->run);
    sqlite3_bind_text(del, 2, analysis, -1, SQLITE_STATIC);
    return pdb_exec(s->db, del);
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
