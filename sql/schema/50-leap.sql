-- 50-leap.sql: LEAP (trace-leap) and its baselines (trace-deps): LMAD
-- profiles, memory dependence frequencies and stride profiles. Owned by
-- tools/lib/leap and tools/lib/deps; docs/trace-leap.md, docs/trace-deps.md.

-- The LMADs of every (instruction, group) stream: the points
-- (object, offset, time) = start + k * stride, k = 0 .. count - 1, repeated
-- by the LMAD's outer levels (leap_lmad_levels) when it folded a loop nest.
CREATE TABLE IF NOT EXISTS leap_lmads (
    run           INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction   INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    group_serial  INTEGER NOT NULL,  -- the group: its number in the run (alloc_sites.serial when
                                     -- trace-objects wrote the same run)
    group_name    TEXT NOT NULL,     -- its name (as alloc_sites.name: site, static object, 'stack', 'unknown')
    seq           INTEGER NOT NULL,  -- the LMAD's place in its stream, from 0
    start_object  INTEGER NOT NULL,  -- object serial of the first point
    start_offset  INTEGER NOT NULL,  -- byte offset of the first point
    start_time    INTEGER NOT NULL,  -- global access counter of the first point
    stride_object INTEGER NOT NULL,  -- object serial step between points
    stride_offset INTEGER NOT NULL,  -- offset step between points (bytes)
    stride_time   INTEGER NOT NULL,  -- access-counter step between points
    count         INTEGER NOT NULL,  -- points of the innermost level (all of them
                                     -- unless leap_lmad_levels has outer levels)
    PRIMARY KEY (run, instruction, group_serial, seq)
);

-- The outer levels of folded LMADs (algo/lmad.h): level L repeats the levels
-- below it count times, each copy stride further. The LMAD stands for
-- leap_lmads.count times the product of its levels' counts points.
CREATE TABLE IF NOT EXISTS leap_lmad_levels (
    run           INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction   INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    group_serial  INTEGER NOT NULL,  -- the group (as in leap_lmads)
    seq           INTEGER NOT NULL,  -- the LMAD (leap_lmads.seq)
    level         INTEGER NOT NULL,  -- 1 for the level just outside the innermost, and so on
    stride_object INTEGER NOT NULL,  -- object serial step between copies
    stride_offset INTEGER NOT NULL,  -- offset step between copies (bytes)
    stride_time   INTEGER NOT NULL,  -- access-counter step between copies
    count         INTEGER NOT NULL,  -- copies (2 or more)
    PRIMARY KEY (run, instruction, group_serial, seq, level)
);

-- What a stream did past its cap of LMADs (--max-lmads): not captured.
CREATE TABLE IF NOT EXISTS leap_overflow (
    run          INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction  INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    group_serial INTEGER NOT NULL,  -- the group: its number in the run (as in leap_lmads)
    group_name   TEXT NOT NULL,     -- its name
    count        INTEGER NOT NULL,  -- accesses summarised
    first_time   INTEGER NOT NULL,  -- access counter of the first of them
    min_object   INTEGER NOT NULL,  -- smallest object serial
    max_object   INTEGER NOT NULL,  -- largest object serial
    gran_object  INTEGER NOT NULL,  -- gcd of object distances from the first (0: one object)
    min_offset   INTEGER NOT NULL,  -- smallest offset
    max_offset   INTEGER NOT NULL,  -- largest offset
    gran_offset  INTEGER NOT NULL,  -- gcd of offset distances from the first (0: one offset)
    min_time     INTEGER NOT NULL,  -- first access counter
    max_time     INTEGER NOT NULL,  -- last access counter
    gran_time    INTEGER NOT NULL,  -- gcd of time distances from the first
    PRIMARY KEY (run, instruction, group_serial)
);

-- One row per (instruction, group) stream: what it holds and what it costs
-- of the profile, so that the size can be told per source file (the
-- dynamic linker's and libc's startup alone is some 200 KB, see
-- docs/trace-leap.md). Sums to leap_summary's figures.
CREATE TABLE IF NOT EXISTS leap_streams (
    run           INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction   INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    group_serial  INTEGER NOT NULL,  -- the group (as in leap_lmads)
    group_name    TEXT NOT NULL,     -- its name
    accesses      INTEGER NOT NULL,  -- points of the stream
    captured      INTEGER NOT NULL,  -- those its LMADs hold (the rest: leap_overflow)
    lmads         INTEGER NOT NULL,  -- its LMADs
    profile_bytes INTEGER NOT NULL,  -- its part of leap_summary.profile_bytes
    PRIMARY KEY (run, instruction, group_serial)
);

-- One row per LEAP run: the paper's Table 1 and the profile's size.
CREATE TABLE IF NOT EXISTS leap_summary (
    run             INTEGER PRIMARY KEY REFERENCES runs(id),  -- the run
    max_lmads       INTEGER NOT NULL,  -- the cap per stream
    accesses        INTEGER NOT NULL,  -- memory accesses of the trace (a modify is one)
    captured        INTEGER NOT NULL,  -- accesses held by LMADs
    instructions    INTEGER NOT NULL,  -- memory instructions that ran
    insns_captured  INTEGER NOT NULL,  -- instructions whose every stream fits its LMADs
    streams         INTEGER NOT NULL,  -- (instruction, group) streams
    lmads           INTEGER NOT NULL,  -- LMADs in all
    overflowed      INTEGER NOT NULL,  -- streams that went past the cap
    profile_bytes   INTEGER NOT NULL,  -- compact profile size (varints, see docs/trace-leap.md)
    trace_bytes     INTEGER NOT NULL,  -- 16 bytes per access (instruction, address)
    compression     REAL NOT NULL      -- trace_bytes / profile_bytes
);

-- Memory dependence frequencies of (store, load) pairs: the share of the
-- load's executions whose first byte the store wrote last before it.
CREATE TABLE IF NOT EXISTS dependences (
    run             INTEGER NOT NULL REFERENCES runs(id),          -- the run
    store           INTEGER NOT NULL REFERENCES instructions(id),  -- the writer (store or modify)
    load            INTEGER NOT NULL REFERENCES instructions(id),  -- the reader (load or modify)
    method          TEXT NOT NULL CHECK (method IN ('leap','exact','connors')),  -- who found it
    frequency       REAL NOT NULL CHECK (frequency >= 0 AND frequency <= 1),     -- MDF, 0 to 1
    conflicts       INTEGER NOT NULL,  -- load executions with this last writer (leap: scaled
                                       -- from its sample to all executions)
    load_executions INTEGER NOT NULL,  -- executions of the load
    sampled         INTEGER NOT NULL,  -- load executions the figure rests on (leap: its
                                       -- decided sampled points, 0 for a guess: no point
                                       -- of the load decided; exact and connors: all)
    PRIMARY KEY (run, method, store, load)
);

-- Stride profile per instruction: its most frequent within-object stride.
CREATE TABLE IF NOT EXISTS strides (
    run              INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction      INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    method           TEXT NOT NULL CHECK (method IN ('leap','exact')),  -- who measured it
    stride           INTEGER NOT NULL,  -- bytes between consecutive accesses in one object
    share            REAL NOT NULL,     -- its share of the steps, 0 to 1
    steps            INTEGER NOT NULL,  -- steps measured (leap: in the captured sample)
    strongly_strided INTEGER NOT NULL,  -- 1: share >= 0.7, stride not 0, 10 accesses or more
    PRIMARY KEY (run, method, instruction)
);
