/*
 * session.h: one analysis writing one run into the profile database, the
 * same way in every command. The file is opened (created if missing), the
 * run is found or made from the traced process's identity, the analysis's
 * old rows of that run are deleted, and everything happens in one
 * transaction, committed at the end or rolled back on any failure: an
 * interrupted or failed command leaves the file as it was.
 *
 *     pdb_session s;
 *     if (pdb_session_open(&s, path, &err)) fail(err);
 *     ... read the trace ...
 *     if (pdb_session_begin(&s, "mempat", MEMPAT_TABLES, reader, trace,
 *                           argc, argv)) fail(pdb_session_error(&s));
 *     ... your rows: pdb_prepare(s.db, ...), pdb_exec(s.db, ...) ...
 *     if (pdb_session_commit(&s)) fail(pdb_session_error(&s));
 *
 * pdb_session_abort() rolls back and closes (a file it created is removed);
 * a command registers it with cli_on_fail() so that every failure runs it.
 */
#ifndef MEMREC_PDB_SESSION_H
#define MEMREC_PDB_SESSION_H

#include <stdint.h>
#include "memrec_trace.h"
#include "db/profiledb.h"

typedef struct pdb_session {
    pdb *db;                /* NULL once committed or aborted */
    int64_t run;            /* valid after pdb_session_begin() */
    int begun;
} pdb_session;

/* 0, or -1 with *err set to a malloc'd message (free() it). */
int pdb_session_open(pdb_session *s, const char *path, char **err);

/* For a command's main: pdb_session_open, failing the command (exit 1)
 * with the message when the file cannot be opened, and registering
 * pdb_session_abort with cli_on_fail, so that any later failure leaves the
 * file as it was. */
void pdb_session_start(pdb_session *s, const char *path);

/* Begins the transaction and the run of the trace being read by r (its
 * process record, when the trace has one, identifies the run); owned: the
 * tables (NULL-terminated) whose rows of this run the analysis replaces;
 * argv: the analysis's own command line, for the record. 0 or -1. */
int pdb_session_begin(pdb_session *s, const char *analysis,
                      const char *const *owned, const mr_reader *r,
                      const char *trace, int argc, char **argv);

/* Records whether the profile covers the whole trace (runs.complete: 0
 * when cli_next() met a truncated trace), commits and closes. 0, or -1
 * (abort the session then). */
int pdb_session_commit(pdb_session *s);

/* Rolls back and closes; nothing is left of this session's work. */
void pdb_session_abort(pdb_session *s);

/* The last error, one line ("out of memory" when the database has none). */
const char *pdb_session_error(pdb_session *s);

#endif
