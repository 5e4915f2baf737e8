/* store.c: a run's TWPP as rows (see store.h). */
#include "twpp/store.h"

#include "twpp/edgecode.h"
#include "twpp/report.h"

const char *const TWPP_TABLES[] = { "twpp_functions", "twpp_sizes", "twpp_dependences",
                                    "twpp_load_points", NULL };

static int store_functions(pdb *db, int64_t run, const twpp_model *m, const uint64_t *fn_bytes)
{
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO twpp_functions (run, function, entry, calls, "
                                        "unique_traces, traces, dictionaries, blocks, bytes) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int rc = ins ? 0 : -1;
    for (uint32_t i = 0; i < m->nfunctions && rc == 0; i++) {
        const twpp_function *f = &m->functions[i];
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_text(ins, 2, f->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 3, (int64_t)f->entry);
        sqlite3_bind_int64(ins, 4, (int64_t)f->calls);
        sqlite3_bind_int64(ins, 5, f->npaths);
        sqlite3_bind_int64(ins, 6, f->ntraces);
        sqlite3_bind_int64(ins, 7, f->ndicts);
        sqlite3_bind_int64(ins, 8, (int64_t)f->raw_blocks);
        sqlite3_bind_int64(ins, 9, (int64_t)fn_bytes[i]);
        rc = pdb_exec(db, ins);
    }
    return rc;
}

/* Symbols of every dictionary of m (4 bytes each in the step sizes). */
static uint64_t dictionary_ids(const twpp_model *m)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < m->nfunctions; i++)
        for (uint32_t d = 0; d < m->functions[i].ndicts; d++)
            n += m->functions[i].dicts[d].n;
    return n;
}

/* TWPP+'s counts: one row (Tables 4.2, 4.4, 4.5). */
static int store_dependences(pdb *db, int64_t run, const twpp_plus_counts *c)
{
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO twpp_dependences (run, access_points, load_points, "
                                        "store_points, single_loads, single_stores, loads, stores, "
                                        "edges, dropped, unwritten, raw_scan_sum, raw_scan_max) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!ins)
        return -1;
    const uint64_t v[] = { c->points, c->load_points, c->store_points, c->single_loads, c->single_stores, c->loads,
                           c->stores, c->edges, c->dropped, c->unwritten, c->scan_sum, c->scan_max };
    sqlite3_bind_int64(ins, 1, run);
    for (int i = 0; i < 12; i++)
        sqlite3_bind_int64(ins, i + 2, (int64_t)v[i]);
    return pdb_exec(db, ins);
}

/* One row per load point (Table 4.7: the items its grammars hold). */
static int store_load_points(pdb *db, int64_t run, const twpp_model *m, const twpp_plus *p)
{
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO twpp_load_points (run, point, function, line, "
                                        "address, single, loads, edges, dropped, grammar_symbols, "
                                        "grammar_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int rc = ins ? 0 : -1;
    for (uint32_t g = 0; g < twpp_plus_point_count(p) && rc == 0; g++) {
        const twpp_point *pt = twpp_plus_point(p, g);
        if (!pt->loads)
            continue;
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, g + 1);
        sqlite3_bind_text(ins, 3, m->functions[pt->fn].name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 4, pt->line);
        sqlite3_bind_int64(ins, 5, (int64_t)pt->insn_addr);
        sqlite3_bind_int(ins, 6, pt->single);
        sqlite3_bind_int64(ins, 7, (int64_t)pt->loads);
        sqlite3_bind_int64(ins, 8, (int64_t)pt->edges);
        sqlite3_bind_int64(ins, 9, (int64_t)pt->dropped);
        sqlite3_bind_int64(ins, 10, (int64_t)pt->grammar_symbols);
        sqlite3_bind_int64(ins, 11, (int64_t)pt->grammar_bytes);
        rc = pdb_exec(db, ins);
    }
    return rc;
}

int twpp_store(pdb *db, int64_t run, const twpp_model *m, const twpp_plus *plus,
               const twpp_sizes *sz, const uint64_t *fn_bytes, uint64_t blocks)
{
    twpp_counts c;
    twpp_plus_counts pc = {0};
    twpp_count(m, &c);
    if (plus)
        twpp_plus_count(plus, &pc);
    const uint64_t w = TWPP_WPP_BYTES_PER_BLOCK;
    const struct { const char *part; uint64_t bytes; } parts[] = {
        { "wpp", blocks * w },
        { "unique traces", c.unique_blocks * w },
        { "compacted traces", c.compact_blocks * w },
        { "dictionaries", dictionary_ids(m) * w },
        { "twpp traces", sz->traces },
        { "dcg raw", sz->dcg_raw },
        { "dcg zstd", sz->dcg_zstd },
        { "dcg lzw", sz->dcg_lzw },
        { "dcg", sz->dcg },
        { "symbols", sz->symbols },
        { "function table", sz->header },
        { "function blocks", sz->blocks },
        { "control total", twpp_control_bytes(sz) },
        { "wpp with addresses", blocks * w + pc.accesses * TWPP_WPP_BYTES_PER_ADDRESS },
        { "edges", (pc.edges + pc.dropped) * TWPP_COLUMNS * 4 },
        { "edges kept", pc.edges * TWPP_COLUMNS * 4 },
        { "access points", sz->plus.points },
        { "load index", sz->plus.index },
        { "dependence grammars", sz->plus.grammars },
        { "twpp+", sz->plus.points + sz->plus.index + sz->plus.grammars },
        { "total", sz->total },
    };
    if (store_functions(db, run, m, fn_bytes) < 0 ||
        (plus && (store_dependences(db, run, &pc) < 0 || store_load_points(db, run, m, plus) < 0)))
        return -1;
    sqlite3_stmt *ins = pdb_prepare(db, "INSERT INTO twpp_sizes (run, step, part, bytes) VALUES (?, ?, ?, ?)");
    int rc = ins ? 0 : -1;
    for (size_t i = 0; i < sizeof parts / sizeof *parts && rc == 0; i++) {
        sqlite3_bind_int64(ins, 1, run);
        sqlite3_bind_int64(ins, 2, (int64_t)i + 1);
        sqlite3_bind_text(ins, 3, parts[i].part, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 4, (int64_t)parts[i].bytes);
        rc = pdb_exec(db, ins);
    }
    return rc;
}
