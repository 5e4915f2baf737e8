-- 80-twpp.sql: timestamped whole program paths (trace-twpp, issue 16).
-- Conventions as in 00-core.sql. Sizes follow docs/trace-twpp.md: a block
-- id counts 4 bytes in the uncompressed forms; stored parts are the bytes
-- of the .twpp file.

-- One function of a run's TWPP: the calls entered at one address.
CREATE TABLE IF NOT EXISTS twpp_functions (
    run           INTEGER NOT NULL REFERENCES runs(id),  -- the run
    function      TEXT NOT NULL,     -- its name (the symbol of its entry, else 0xADDR)
    entry         INTEGER NOT NULL,  -- address of its calls' first block
    calls         INTEGER NOT NULL,  -- calls over all threads
    unique_traces INTEGER NOT NULL,  -- distinct per-call path traces (step 2)
    traces        INTEGER NOT NULL,  -- distinct compacted traces (step 3)
    dictionaries  INTEGER NOT NULL,  -- distinct DBB dictionaries (step 3)
    blocks        INTEGER NOT NULL,  -- block executions of all its calls (its own blocks only)
    bytes         INTEGER NOT NULL,  -- its block in the .twpp file before packing (small blocks share a zstd chunk)
    PRIMARY KEY (run, entry)
);

-- The size of every part of a run's TWPP, one row per part (Tables 3.2,
-- 3.3, 3.5 of the dissertation): the uncompressed forms after each step
-- and the stored parts.
CREATE TABLE IF NOT EXISTS twpp_sizes (
    run   INTEGER NOT NULL REFERENCES runs(id),  -- the run
    step  INTEGER NOT NULL,  -- order of the row in the tables: 1 the uncompressed WPP ... 
    part  TEXT NOT NULL,     -- 'wpp' (4 bytes per block execution), 'unique traces' (after
                             -- step 2), 'compacted traces' and 'dictionaries' (after step 3,
                             -- 4 bytes per id), 'twpp traces' (step 5, bytes as written before
                             -- packing), 'dcg raw', 'dcg zstd', 'dcg lzw', 'dcg' (the one kept),
                             -- 'symbols', 'function table', 'function blocks' (packed), 'total'
    bytes INTEGER NOT NULL,  -- its size in bytes
    PRIMARY KEY (run, part)
);

-- TWPP+'s counts for a run (the dissertation's Tables 4.2, 4.4 and 4.5):
-- access points, their single-address share, and what became of the edges.
CREATE TABLE IF NOT EXISTS twpp_dependences (
    run           INTEGER NOT NULL PRIMARY KEY REFERENCES runs(id),  -- the run
    access_points INTEGER NOT NULL,  -- entries of the global access-point dictionary
    load_points   INTEGER NOT NULL,  -- of which executed as a load (a modify counts as both)
    store_points  INTEGER NOT NULL,  -- of which executed as a store
    single_loads  INTEGER NOT NULL,  -- load points whose instruction touched one address in the run
    single_stores INTEGER NOT NULL,  -- store points whose instruction touched one address in the run
    loads         INTEGER NOT NULL,  -- dynamic loads
    stores        INTEGER NOT NULL,  -- dynamic stores
    edges         INTEGER NOT NULL,  -- dependence edges kept in the file
    dropped       INTEGER NOT NULL,  -- edges dropped: both ends single-address (recoverable)
    unwritten     INTEGER NOT NULL,  -- loads of memory no store wrote (no edge)
    raw_scan_sum  INTEGER NOT NULL,  -- over all edges (dropped ones too): accesses from the store
                                     -- to the load, the load included (a backward scan of the raw
                                     -- trace's addresses), summed
    raw_scan_max  INTEGER NOT NULL   -- and the largest
);

-- One TWPP+ load point of a run: its edges and the grammars that hold them
-- (Table 4.7: a reader looking for one of its edges scans grammar_symbols items).
CREATE TABLE IF NOT EXISTS twpp_load_points (
    run             INTEGER NOT NULL REFERENCES runs(id),  -- the run
    point           INTEGER NOT NULL,  -- its number in the dictionary, from 1 (trace-twpp --dependences N)
    function        TEXT NOT NULL,     -- the function of the calls it ran in
    line            INTEGER NOT NULL,  -- source line of its instruction, 0 when unknown
    address         INTEGER NOT NULL,  -- address of its machine instruction
    single          INTEGER NOT NULL,  -- 1: its instruction touched one address in the run
    loads           INTEGER NOT NULL,  -- its dynamic loads
    edges           INTEGER NOT NULL,  -- edges kept
    dropped         INTEGER NOT NULL,  -- edges dropped as recoverable
    grammar_symbols INTEGER NOT NULL,  -- symbols of its six Sequitur grammars
    grammar_bytes   INTEGER NOT NULL,  -- those grammars as stored
    PRIMARY KEY (run, point)
);
