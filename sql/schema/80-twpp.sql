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
    bytes         INTEGER NOT NULL,  -- its block in the .twpp file, as stored (packed)
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
