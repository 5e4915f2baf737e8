-- 87-slice.sql: dynamic slices (trace-slice; Zhang's dissertation, section
-- 5.3): the last slicing request of a run and its three slices by source
-- line. Conventions as in 00-core.sql; docs/trace-slice.md.

-- The run's slicing request (one per run: a new request replaces it).
CREATE TABLE IF NOT EXISTS slice_criteria (
    run       INTEGER PRIMARY KEY REFERENCES runs(id),  -- the run
    at        TEXT NOT NULL,     -- the criterion's point: FUNCTION:LINE#N or 0xADDR#N
    var       TEXT NOT NULL,     -- what the slice is on, as given (--var)
    edges     TEXT NOT NULL,     -- where memory dependences came from: 'twpp' or 'trace'
    step      INTEGER NOT NULL,  -- the criterion's block execution, from 0 (thread by thread)
    steps     INTEGER NOT NULL,  -- block executions of the run
    instances INTEGER NOT NULL   -- instruction instances in the precise slice
);

-- One source line of one of the run's slices.
CREATE TABLE IF NOT EXISTS slice_lines (
    run          INTEGER NOT NULL REFERENCES runs(id),  -- the run
    slice        TEXT NOT NULL,     -- 'precise' (approach 3), 'edges' (approach 2: executed
                                    -- edges) or 'nodes' (approach 1: executed nodes)
    function     TEXT NOT NULL,     -- the line's function
    line         INTEGER NOT NULL,  -- its number (0: unknown)
    instances    INTEGER NOT NULL,  -- precise: its instances (entries) with an instruction
                                    -- instance in the slice; approximate: 1
    ran          INTEGER NOT NULL,  -- times the line was entered in the run
    instructions INTEGER NOT NULL,  -- its instruction instances (precise) or static
                                    -- instructions (approximate) in the slice
    PRIMARY KEY (run, slice, function, line)
);
