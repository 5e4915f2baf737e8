/* session.c: one analysis, one run, one transaction; see session.h. */
#include "db/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"

int pdb_session_open(pdb_session *s, const char *path, char **err)
{
    memset(s, 0, sizeof *s);
    s->db = pdb_open(path, PDB_CREATE, err);
    return s->db ? 0 : -1;
}

static void session_abort(void *ctx) { pdb_session_abort(ctx); }

void pdb_session_start(pdb_session *s, const char *path)
{
    char *err = NULL, msg[600];
    if (pdb_session_open(s, path, &err) < 0) {
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot open");
        free(err);
        cli_fail(path, "%s", msg);
    }
    cli_on_fail(session_abort, s);
}

int pdb_session_begin(pdb_session *s, const char *analysis,
                      const char *const *owned, const mr_reader *r,
                      const char *trace, int argc, char **argv)
{
    const mr_process *p = mr_reader_process(r);
    char *command = p ? cli_join((int)p->argc, p->argv) : NULL;
    char *options = cli_join(argc, (const char *const *)argv);
    pdb_run_info info = { .trace = trace, .command = command,
                          .pid = p ? p->pid : 0,
                          .started = p ? p->start_usec : 0 };
    int rc = -1;
    if (options && (command || !p))
        rc = pdb_begin_run(s->db, analysis, options, &info, owned, &s->run);
    free(command);
    free(options);
    s->begun = rc == 0;
    return rc;
}

int pdb_session_commit(pdb_session *s)
{
    /* Whether the profile covers the whole trace: cli_next() knows. */
    if (pdb_set_complete(s->db, s->run, cli_trace_complete()) < 0 ||
        pdb_commit(s->db) < 0)
        return -1;
    pdb_close(s->db);
    s->db = NULL;
    return 0;
}

void pdb_session_abort(pdb_session *s)
{
    if (s->db)
        pdb_abort(s->db);
    s->db = NULL;
}

const char *pdb_session_error(pdb_session *s)
{
    const char *e = s->db ? pdb_error(s->db) : "";
    return *e ? e : "out of memory";
}
