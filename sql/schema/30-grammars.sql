-- 30-grammars.sql: Sequitur grammars (issue 11). trace-wpp stores each
-- thread's whole program path and its hot subpaths; trace-whomp stores the
-- grammars of the object-relative stream (OMSG) and of the raw address
-- stream (RASG), and their sizes.

-- One Sequitur grammar of one stream of a run.
CREATE TABLE IF NOT EXISTS grammars (
    run      INTEGER NOT NULL REFERENCES runs(id),  -- the run
    analysis TEXT NOT NULL,     -- the analysis that built it: 'wpp' or 'whomp'
    stream   TEXT NOT NULL,     -- which stream: wpp 'thread TID'; whomp 'omsg instruction',
                                -- 'omsg group', 'omsg object', 'omsg offset', 'rasg' (terminals
                                -- address * 2^b + instruction, b = 16 or the bits of the largest
                                -- instruction number; an address beyond 2^(63-b) packed by its
                                -- 4 GiB region, as trace-whomp's report says), or 'vertical INSN'
                                -- (one per instruction)
    length   INTEGER NOT NULL,  -- symbols of the stream (terminals the grammar expands to)
    rules    INTEGER NOT NULL,  -- rules, rule 0 included
    symbols  INTEGER NOT NULL,  -- symbols on all right-hand sides
    bytes    INTEGER NOT NULL,  -- size of blob: the grammar's encoded size
    blob     BLOB NOT NULL,     -- the grammar as algo/sequitur.h's sq_serialize writes it
                                -- ("SQG1", then zstd over varints: rule count, then per rule
                                -- its length and its symbols, terminal t as 2t, rule n as 2n+1)
    PRIMARY KEY (run, analysis, stream)
);

-- Larus's hot subpaths of a thread's whole program path: runs of at most
-- the chosen length of consecutive block executions whose cost (length x
-- executions) passed the threshold. Overlapping occurrences all count.
CREATE TABLE IF NOT EXISTS hot_subpaths (
    run        INTEGER NOT NULL REFERENCES runs(id),  -- the run
    thread     INTEGER NOT NULL,  -- thread id
    rank       INTEGER NOT NULL,  -- 1 for the most costly subpath of the thread
    length     INTEGER NOT NULL,  -- block executions in the subpath
    executions INTEGER NOT NULL,  -- times the subpath occurs in the thread's path
    cost       INTEGER NOT NULL,  -- length x executions
    instrs     INTEGER NOT NULL,  -- guest instructions one pass of the subpath runs
    path       TEXT NOT NULL,     -- the blocks as function:line, separated by ' > '
    addresses  TEXT NOT NULL,     -- the blocks' start addresses (0x...), separated by spaces
    PRIMARY KEY (run, thread, rank)
);

-- WHOMP's sizes for one run: the object-relative stream's four grammars
-- (OMSG) against the raw stream's (RASG), sizes as bytes of the stored
-- grammars (grammars.bytes).
CREATE TABLE IF NOT EXISTS whomp_sizes (
    run               INTEGER NOT NULL REFERENCES runs(id),  -- the run
    accesses          INTEGER NOT NULL,  -- memory accesses in the streams
    stack             INTEGER NOT NULL,  -- 1 when stack accesses were included (--stack)
    instruction_bytes INTEGER NOT NULL,  -- the instruction stream's grammar
    group_bytes       INTEGER NOT NULL,  -- the group stream's grammar
    object_bytes      INTEGER NOT NULL,  -- the object stream's grammar
    offset_bytes      INTEGER NOT NULL,  -- the offset stream's grammar
    omsg_bytes        INTEGER NOT NULL,  -- the four together
    rasg_bytes        INTEGER NOT NULL,  -- the raw (instruction, address) stream's grammar
    ratio             REAL NOT NULL,     -- omsg_bytes / rasg_bytes (the paper: 0.78 on average)
    vertical_bytes    INTEGER,           -- with --vertical: all per-instruction grammars; else NULL
    PRIMARY KEY (run)
);
