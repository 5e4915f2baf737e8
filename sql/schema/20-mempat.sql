-- 20-mempat.sql: the table of Exana's memory access patterns
-- (trace-mempat). Conventions as in 00-core.sql.

-- Exana's memory access patterns, one per memory instruction (trace-mempat).
CREATE TABLE IF NOT EXISTS mempat (
    run         INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    pattern     TEXT NOT NULL,     -- the MemPat text after '=', e.g. "Fix:[8x1]"
    kind        TEXT NOT NULL CHECK (kind IN ('Fix','Seq','Str','SeqStr','Rep','Complex')),
                                   -- top-level kind of the pattern
    accesses    INTEGER NOT NULL,  -- dynamic accesses the pattern covers
    overflowed  INTEGER NOT NULL,  -- 1 if the pattern cap was hit and the pattern summarised
    PRIMARY KEY (run, instruction)
);
