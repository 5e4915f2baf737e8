-- 90-values.sql: the tables of type-based value profiling (trace-values;
-- Zhang's dissertation, chapter 6): per field of each group and per
-- instruction, how many accesses moved a small value, a pointer sharing its
-- prefix with its address, or an incompressible value; the most frequent
-- values; Figures 6.4 and 6.5 per run; the fields the 80% rule selects.
-- Accesses to heap and static objects only (stacks and unknown memory have
-- no fields). Conventions as in 00-core.sql; docs/trace-values.md.

-- One row per run: what was seen, what could not be, and the totals.
CREATE TABLE IF NOT EXISTS value_runs (
    run            INTEGER PRIMARY KEY REFERENCES runs(id),  -- the run
    payload        INTEGER NOT NULL,  -- bits a compressed value keeps (the paper's 15)
    select_percent INTEGER NOT NULL,  -- the selection rule's share of compressible instances
    values_mode    TEXT NOT NULL,     -- the recorder's --values: 'none', 'pointers', 'all', 'unknown'
    accesses       INTEGER NOT NULL,  -- accesses to heap and static objects
    valued         INTEGER NOT NULL,  -- of them, with a recorded value
    unvalued_wide  INTEGER NOT NULL,  -- of the rest, wider than 8 bytes (never valued)
    outside        INTEGER NOT NULL,  -- accesses to stacks and unknown memory, not profiled
    small          INTEGER NOT NULL,  -- valued accesses by class: small values,
    pointer        INTEGER NOT NULL,  -- pointers within 2^payload bytes of their address,
    incompressible INTEGER NOT NULL,  -- and the rest
    fields         INTEGER NOT NULL,  -- fields seen
    selected       INTEGER NOT NULL,  -- fields the rule selects
    heap_bytes     INTEGER NOT NULL,  -- bytes of the heap objects of the groups with a selected field
    saved_bytes    INTEGER NOT NULL,  -- heap bytes the compressed layout saves (select.h)
    note           TEXT               -- what the command could not see, NULL when it saw every value
);

-- Per field: an offset of the objects of a group (span 1), or beyond the
-- exact offsets a span of them (span 4096, offset its start).
CREATE TABLE IF NOT EXISTS value_fields (
    run            INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site           INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the group
    offset         INTEGER NOT NULL,  -- byte offset in the objects (span start)
    span           INTEGER NOT NULL,  -- 1, or 4096 for offsets past the exact ones
    size           INTEGER NOT NULL,  -- its width, bytes: the widest access with a value
                                      -- (the selection rule's), else the widest access
    accesses       INTEGER NOT NULL,  -- accesses to the field
    valued         INTEGER NOT NULL,  -- of them, with a recorded value
    small          INTEGER NOT NULL,  -- valued accesses moving a small value
    pointer        INTEGER NOT NULL,  -- ... a pointer near the field
    incompressible INTEGER NOT NULL,  -- ... anything else
    min_value      INTEGER,           -- smallest value, signed in its access's width; NULL: none
    max_value      INTEGER,           -- largest value, likewise
    instances      INTEGER NOT NULL,  -- objects that held a value in the field
    spoiled        INTEGER NOT NULL,  -- of them, holding an incompressible value at least once
    objects        INTEGER NOT NULL,  -- objects of the group
    candidate      INTEGER NOT NULL,  -- 1: could be compressed (span 1, wider than the slot)
    selected       INTEGER NOT NULL,  -- 1: the rule selects it
    saved_bytes    INTEGER NOT NULL,  -- bytes saved when selected (0 otherwise)
    PRIMARY KEY (run, site, offset)
);

-- Per memory instruction, over its accesses to heap and static objects.
CREATE TABLE IF NOT EXISTS value_instructions (
    run            INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction    INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    accesses       INTEGER NOT NULL,  -- its accesses to heap and static objects
    valued         INTEGER NOT NULL,  -- of them, with a recorded value
    small          INTEGER NOT NULL,  -- valued accesses by class
    pointer        INTEGER NOT NULL,
    incompressible INTEGER NOT NULL,
    min_value      INTEGER,           -- value range, signed; NULL: no value
    max_value      INTEGER,
    PRIMARY KEY (run, instruction)
);

-- The most frequent values of each field and instruction (Space-Saving:
-- count is an upper bound, count - error a lower bound).
CREATE TABLE IF NOT EXISTS value_top (
    run         INTEGER NOT NULL REFERENCES runs(id),  -- the run
    site        INTEGER REFERENCES alloc_sites(id),    -- a field's group, or NULL
    offset      INTEGER,                               -- the field's offset, or NULL
    instruction INTEGER REFERENCES instructions(id),   -- an instruction, or NULL
    rank        INTEGER NOT NULL,  -- 1 for the most frequent
    value       INTEGER NOT NULL,  -- the value, as recorded (unsigned bits as a signed integer)
    count       INTEGER NOT NULL,  -- accesses moving it, at most
    error       INTEGER NOT NULL   -- count overstates by at most this
);
CREATE INDEX IF NOT EXISTS value_top_run ON value_top(run, site, offset);

-- Figures 6.4 and 6.5: at fixed widths L = 4, 8, ..., 64 bits.
CREATE TABLE IF NOT EXISTS value_widths (
    run       INTEGER NOT NULL REFERENCES runs(id),  -- the run
    width     INTEGER NOT NULL,  -- L, bits
    valued    INTEGER NOT NULL,  -- accesses with a value
    fitting   INTEGER NOT NULL,  -- of them, fitting L bits (Figure 6.5)
    bits      INTEGER NOT NULL,  -- bits at a fixed width L (Figure 6.4) ...
    base_bits INTEGER NOT NULL,  -- ... against every value at its word's width
    PRIMARY KEY (run, width)
);
