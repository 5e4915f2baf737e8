/*
 * profiledb.h: the profile database (sql/schema/NN-*.sql), shared by every
 * analysis that writes results.
 *
 * One database file holds many runs; a run is one traced process, known by
 * the trace's absolute path plus the process identity recorded in it (pid,
 * start time). Each analysis owns some tables; running an analysis again on
 * the same trace replaces that analysis's rows of that run and leaves the
 * other analyses' rows alone. All writes of one analysis happen in one
 * transaction: a run that fails, or a process that is killed, leaves the
 * database exactly as it was (SQLite's rollback journal restores it).
 *
 * How an analysis uses it, in order:
 *
 *   char *err;
 *   pdb *db = pdb_open(path, PDB_CREATE, &err);      // 1. open, create or upgrade
 *   if (!db) { cli_fail(path, "%s", err); }          //    (err: free with free())
 *
 *   pdb_run_info info = { .trace = trace_path,       // 2. the trace: process identity
 *       .pid = p->pid, .started = p->start_usec,     //    from mr_reader_process()
 *       .command = "prog arg1 arg2" };               //    (.truncated = 1 if known
 *                                                    //    cut short already)
 *   static const char *const mine[] = { "mempat", NULL };   // tables you own
 *   int64_t run;
 *   if (pdb_begin_run(db, "mempat", "trace-mempat --db x.db t.mr", &info, mine,
 *                     &run))                          // 3. BEGIN; find or make the run;
 *       goto fail;                                   //    delete your old rows of it
 *
 *   int64_t insn;                                    // 4. instructions are shared:
 *   if (pdb_instruction(db, run, addr, "main", "a.c", // get-or-insert returns the id
 *                       12, "load", 8, &insn)) goto fail;
 *
 *   sqlite3_stmt *st = pdb_prepare(db,               // 5. your rows, with prepared
 *       "INSERT INTO mempat VALUES (?,?,?,?,?,?)");  //    statements (cached: prepare
 *   if (!st) goto fail;                              //    once, use many times)
 *   sqlite3_bind_int64(st, 1, run); ...
 *   if (pdb_exec(db, st)) goto fail;                 //    step + reset
 *
 *   pdb_set_totals(db, run, instructions, loads, stores);  // 6. optional: trace totals
 *   pdb_set_complete(db, run, !mr_reader_truncated(r));    //    and whether the trace
 *                                                    //    was whole, once you know
 *   if (pdb_commit(db)) goto fail;                   // 7. COMMIT: now it is visible
 *   pdb_close(db);
 *   return 0;
 * fail:
 *   fprintf(stderr, "...: %s\n", pdb_error(db));     // read the message first,
 *   pdb_abort(db);                                   // 8. ROLLBACK and close: the file is
 *                                                    //    as before (removed if we created it)
 *
 * If the process dies between 3 and 7, the next opener rolls the hot journal
 * back. Every function returning int returns 0 on success and -1 on error,
 * with the message in pdb_error().
 */
#ifndef MEMREC_PROFILEDB_H
#define MEMREC_PROFILEDB_H

#include <stdint.h>
#include <sqlite3.h>

/* The version of sql/schema/NN-*.sql, kept in PRAGMA user_version. Version 2
 * added runs.complete (older files get it on upgrade, NULL: not known);
 * version 3 new tables only (an upgrade creates them); version 4
 * threads.os_tid (and threads.instructions, which came late in 3). */
#define PDB_SCHEMA_VERSION 6

typedef struct pdb pdb;

/* pdb_open flags. */
#define PDB_CREATE   0x1  /* create the file if missing (else it must exist) */
#define PDB_READONLY 0x2  /* queries only: no schema creation or upgrade */

/* Opens path. A missing file is created with the schema (PDB_CREATE); an
 * older schema is upgraded; a newer one, a file that is not a database or a
 * database we cannot write (unless PDB_READONLY) is an error: NULL is
 * returned and *err gets a malloc'd one-line message (free it with free()). */
pdb *pdb_open(const char *path, int flags, char **err);

/* Brings the schema up to date (done by pdb_open already; for trace-db
 * upgrade). Returns the version before, or -1 on error. */
int pdb_upgrade(pdb *db);

/* What identifies a run, and what is stored about it. */
typedef struct pdb_run_info {
    const char *trace;      /* trace path; made absolute when possible; NULL or
                             * "-" (stdin) is stored as "<stdin>" */
    const char *command;    /* traced command line; may be NULL */
    uint32_t pid;
    uint64_t started;       /* process start, microseconds since the epoch */
    int truncated;          /* the trace was cut short (no end record): the
                             * profile covers its start only; stored as
                             * runs.complete = 0. Left 0 (as by every caller
                             * that does not set it): complete */
} pdb_run_info;

/* Starts the one transaction of an analysis: finds the run of this trace
 * (or creates it), records whether the profile is complete (info->truncated),
 * deletes the rows of that run from each table named in owned_tables
 * (NULL-terminated; each must have a `run` column) and records the
 * analysis in `analyses`. options is the analysis's command line, for
 * the record. *run receives the run id. */
int pdb_begin_run(pdb *db, const char *analysis, const char *options,
                  const pdb_run_info *info, const char *const *owned_tables,
                  int64_t *run);

/* The id of the instructions row (run, address, kind, size), inserting it
 * with function, file, line (each may be NULL / 0 for unknown) if missing.
 * kind is "load", "store" or "modify". */
int pdb_instruction(pdb *db, int64_t run, uint64_t address,
                    const char *function, const char *file, uint32_t line,
                    const char *kind, uint32_t size, int64_t *id);

/* Says whether the profile of run covers the whole trace (complete = 1) or
 * only its start, the trace being cut short (0): runs.complete. For a
 * command that learns it at the end of the trace, after pdb_begin_run. */
int pdb_set_complete(pdb *db, int64_t run, int complete);

/* Stores the trace's totals in the runs row. */
int pdb_set_totals(pdb *db, int64_t run, uint64_t instructions,
                   uint64_t loads, uint64_t stores);

/* A prepared statement for sql, cached by the text and finalized by
 * pdb_close(): call it as often as you like. NULL on error. */
sqlite3_stmt *pdb_prepare(pdb *db, const char *sql);

/* Steps a bound statement to its end, then resets it and clears its
 * bindings. */
int pdb_exec(pdb *db, sqlite3_stmt *st);

/* Runs SQL text without results (several statements allowed). */
int pdb_exec_sql(pdb *db, const char *sql);

/* Last row id inserted on this connection. */
int64_t pdb_last_id(pdb *db);

/* Commits the transaction begun by pdb_begin_run(). */
int pdb_commit(pdb *db);

/* Rolls back the open transaction, if any (the database is as before it). */
void pdb_rollback(pdb *db);

/* Rolls back and closes; removes the file if this pdb_open created it. */
void pdb_abort(pdb *db);

/* Closes (rolling back anything not committed). */
void pdb_close(pdb *db);

/* The last error, one line; "" when none. Valid until the next call. */
const char *pdb_error(pdb *db);

/* The SQLite handle, for queries of your own. */
sqlite3 *pdb_sqlite(pdb *db);

/* Deletes every row of run from every table with a `run` column and the
 * runs row itself, in one transaction. Returns 0, 1 if there is no such
 * run, or -1 on error. */
int pdb_delete_run(pdb *db, int64_t run);

#endif /* MEMREC_PROFILEDB_H */
