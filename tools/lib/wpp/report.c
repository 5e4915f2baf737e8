/* report.c: whole program paths for people and the database; see report.h. */
#include "wpp/report.h"

#include <inttypes.h>
#include <stdlib.h>

#include "base/symbolize.h"
#include "db/grammar_store.h"

const char *const WPP_TABLES[] = { "hot_subpaths", NULL };

/* "f:12 > f:13 > g:4" and "0x... 0x..." of a subpath (malloc'd). */
static int describe(const wpp *paths, const mr_reader *reader, const hot_path *p,
                    char **where, char **addrs, uint64_t *instrs)
{
    size_t wl = 0, al = 0;
    FILE *w = open_memstream(where, &wl), *a = open_memstream(addrs, &al);
    if (!w || !a) {
        if (w)
            fclose(w);
        if (a)
            fclose(a);
        return -1;
    }
    *instrs = 0;
    for (uint32_t i = 0; i < p->length; i++) {
        const wpp_symbol_info *s = wpp_symbol(paths, (uint32_t)p->symbols[i]);
        char buf[SYM_BUF];
        fprintf(w, "%s%s", i ? " > " : "", sym_where(reader, s->addr, buf, sizeof buf));
        fprintf(a, "%s0x%" PRIx64, i ? " " : "", s->addr);
        *instrs += s->ninstrs;
    }
    int bad = fclose(w) != 0;
    bad |= fclose(a) != 0;
    return bad ? -1 : 0;
}

/* Hot subpaths of one thread's grammar. */
static hot_path *find_hot(const wpp *paths, const wpp_hot_options *o, uint32_t t,
                          const sq_grammar *g, size_t *n)
{
    uint64_t cost = o->cost;
    if (!cost) {
        cost = wpp_thread_length(paths, t) / 100;
        cost = cost < 2 ? 2 : cost;
    }
    hot_path *hot;
    if (hot_paths(g, o->length, cost, o->top, &hot, n) < 0)
        return NULL;
    return hot;
}

int wpp_print_thread(FILE *out, const wpp *paths, const mr_reader *reader,
                     const wpp_hot_options *o, uint32_t t, const sq_grammar *g)
{
    sq_stats st;
    sq_grammar_stats(g, &st);
    fprintf(out, "thread %" PRIu32 ": %" PRIu64 " block executions, %" PRIu32
           " distinct (block, exit); grammar: rules %" PRIu32 " symbols %" PRIu64
           " bytes %" PRIu64 "\n",
           wpp_thread_tid(paths, t), wpp_thread_length(paths, t), wpp_symbol_count(paths),
           st.rules, st.symbols, st.bytes);
    size_t n;
    hot_path *hot = find_hot(paths, o, t, g, &n);
    if (!hot)
        return -1;
    fprintf(out, "  %12s %12s %6s %8s  path\n", "cost", "executions", "length", "instrs");
    for (size_t i = 0; i < n; i++) {
        char *where, *addrs;
        uint64_t instrs;
        if (describe(paths, reader, &hot[i], &where, &addrs, &instrs) < 0) {
            free(hot);
            return -1;
        }
        fprintf(out, "  %12" PRIu64 " %12" PRIu64 " %6" PRIu32 " %8" PRIu64 "  %s\n", hot[i].cost,
               hot[i].executions, hot[i].length, instrs, where);
        free(where);
        free(addrs);
    }
    free(hot);
    return 0;
}

/* One thread's grammar and hot subpaths into the database. */
int wpp_store_thread(pdb *db, int64_t run, const wpp *paths, const mr_reader *reader,
                     const wpp_hot_options *o, uint32_t t, const sq_grammar *g)
{
    char stream[32];
    uint32_t tid = wpp_thread_tid(paths, t);
    snprintf(stream, sizeof stream, "thread %" PRIu32, tid);
    if (grammar_store(db, run, "wpp", stream, g) < 0)
        return -1;
    size_t n;
    hot_path *hot = find_hot(paths, o, t, g, &n);
    if (!hot)
        return -1;
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO hot_subpaths (run, thread, rank, length, "
                                        "executions, cost, instrs, path, addresses) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int rc = ins ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *where, *addrs;
        uint64_t instrs;
        if (describe(paths, reader, &hot[i], &where, &addrs, &instrs) < 0) {
            rc = -1;
            break;
        }
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, tid);
        sqlite3_bind_int64(ins, 3, (int64_t)i + 1);
        sqlite3_bind_int64(ins, 4, hot[i].length);
        sqlite3_bind_int64(ins, 5, (int64_t)hot[i].executions);
        sqlite3_bind_int64(ins, 6, (int64_t)hot[i].cost);
        sqlite3_bind_int64(ins, 7, (int64_t)instrs);
        sqlite3_bind_text(ins, 8, where, -1, free);
        sqlite3_bind_text(ins, 9, addrs, -1, free);
        rc = pdb_exec(db, ins);
    }
    free(hot);
    return rc;
}

