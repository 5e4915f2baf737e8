/* store.c: a run's TWPP as rows (see store.h). */
#include "twpp/store.h"

#include "twpp/report.h"

const char *const TWPP_TABLES[] = { "twpp_functions", "twpp_sizes", NULL };

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

int twpp_store(pdb *db, int64_t run, const twpp_model *m, const twpp_sizes *sz,
               const uint64_t *fn_bytes, uint64_t blocks)
{
    twpp_counts c;
    twpp_count(m, &c);
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
        { "total", sz->total },
    };
    if (store_functions(db, run, m, fn_bytes) < 0)
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
