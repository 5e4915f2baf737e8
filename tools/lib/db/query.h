/*
 * query.h: the canned queries compiled into the commands (the files of sql/queries)
 * and SQL results printed for people (aligned columns) or scripts (TSV).
 */
#ifndef MEMREC_QUERY_H
#define MEMREC_QUERY_H

#include <stddef.h>
#include <stdio.h>
#include "db/profiledb.h"
#include "db/sql_embedded.h"

/* A named parameter: :name in the SQL is bound to value (a number when it
 * looks like one, else text). */
typedef struct pdb_param {
    const char *name;       /* without the ':' */
    const char *value;
} pdb_param;

/* Binds each :name parameter of st that p names (a number when the value
 * looks like one, else text); others stay NULL. */
void pdb_bind_params(sqlite3_stmt *st, const pdb_param *p, int np);

/* The canned query of that name, or NULL. */
const mr_sql_query *pdb_find_query(const char *name);

/* One line per canned query: its name and the first line of its comment. */
void pdb_list_queries(FILE *out);

/* Runs every statement of sql with the parameters bound, printing the rows
 * of each as a table with a header line (tsv: tab-separated, NULL as "").
 * 0, or -1 with a one-line message in err. */
int pdb_print_sql(pdb *db, const char *sql, const pdb_param *p, int np,
                  int tsv, FILE *out, char *err, size_t errlen);

/* The runs of the database and the analyses of each. */
int pdb_print_runs(pdb *db, int tsv, FILE *out, char *err, size_t errlen);

#endif
