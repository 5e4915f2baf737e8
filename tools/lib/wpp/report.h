/*
 * report.h: a whole program path's threads for people (sizes and hot
 * subpaths with function:line) and for the profile database (grammars and
 * hot_subpaths rows of sql/schema/30-grammars.sql).
 */
#ifndef MEMREC_WPP_REPORT_H
#define MEMREC_WPP_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "db/profiledb.h"
#include "wpp/hotpath.h"
#include "wpp/wpp.h"

/* The tables the "wpp" analysis owns (its grammars rows are deleted by
 * grammar_store_begin). */
extern const char *const WPP_TABLES[];

/* Which hot subpaths: length in blocks, smallest cost (0: 1% of the
 * thread's executions, at least 2), how many. */
typedef struct wpp_hot_options {
    uint32_t length;
    uint64_t cost;
    uint64_t top;
} wpp_hot_options;

/* Thread t (grammar g): sizes, then its hot subpaths. 0, or -1 when out of
 * memory. */
int wpp_print_thread(FILE *out, const wpp *paths, const mr_reader *r,
                     const wpp_hot_options *o, uint32_t t, const sq_grammar *g);

/* Thread t's grammar and hot subpaths as rows of run. 0, or -1. */
int wpp_store_thread(pdb *db, int64_t run, const wpp *paths, const mr_reader *r,
                     const wpp_hot_options *o, uint32_t t, const sq_grammar *g);

#endif
