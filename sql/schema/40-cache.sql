-- 40-cache.sql: trace-cache, the cache model (docs/trace-cache.md).
-- Misses are counted per data level: lN_misses are the accesses that missed
-- level N (L1 is D1), ll_misses those that missed the last level (served by
-- memory). In the Cachegrind-compatible mode L1 is D1 and L2 is LL.

-- One row per simulated level of a run.
CREATE TABLE IF NOT EXISTS cache_summary (
    run          INTEGER NOT NULL REFERENCES runs(id),  -- the run
    level        TEXT NOT NULL,     -- 'I1', 'D1', 'L2', 'L3', 'LL' (Cachegrind mode: I1, D1, LL)
    position     INTEGER NOT NULL,  -- 0 for I1, 1 for D1, 2 for the next level, ...
    size         INTEGER NOT NULL,  -- bytes
    assoc        INTEGER NOT NULL,  -- ways per set
    line         INTEGER NOT NULL,  -- bytes per line
    latency      INTEGER NOT NULL,  -- cycles when this level serves an access
    policy       TEXT NOT NULL,     -- replacement: 'lru', 'plru' or 'random'
    accesses     INTEGER NOT NULL,  -- accesses that reached the level: fetches and data
                                    -- together on a shared level (as Cachegrind's "LL refs")
    misses       INTEGER NOT NULL,  -- of those, misses (LL: Cachegrind's "LL misses" line)
    fetches      INTEGER NOT NULL,  -- instruction fetches among the accesses
    fetch_misses INTEGER NOT NULL,  -- instruction fetches that missed
    reads        INTEGER NOT NULL,  -- loads and modifies among the accesses (a modify is
                                    -- one access, counted as a read as Cachegrind does)
    read_misses  INTEGER NOT NULL,  -- loads and modifies that missed
    writes       INTEGER NOT NULL,  -- stores among the accesses
    write_misses INTEGER NOT NULL,  -- stores that missed
    PRIMARY KEY (run, level)
);

-- Misses and latency per static memory instruction.
CREATE TABLE IF NOT EXISTS cache_instructions (
    run         INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    accesses    INTEGER NOT NULL,  -- its data accesses (a modify counts once)
    latency     INTEGER NOT NULL,  -- cycles of all its accesses, each the serving level's latency
    l1_misses   INTEGER NOT NULL,  -- accesses that missed D1
    l2_misses   INTEGER,           -- that missed the second data level; NULL if none
    l3_misses   INTEGER,           -- that missed the third data level; NULL if none
    ll_misses   INTEGER NOT NULL,  -- that missed the last level (served by memory)
    PRIMARY KEY (run, instruction)
);

-- Misses and latency per group (allocation site, static object, stack, unknown).
CREATE TABLE IF NOT EXISTS cache_groups (
    run       INTEGER NOT NULL REFERENCES runs(id),  -- the run
    grp       INTEGER NOT NULL,  -- group number in the run, in order of creation (as trace-objrel's)
    kind      TEXT NOT NULL,     -- 'heap', 'static', 'stack' or 'unknown'
    name      TEXT NOT NULL,     -- function:line of the allocation site, the static object's
                                 -- name, 'stack' or 'unknown' (as alloc_sites.name)
    objects   INTEGER NOT NULL,  -- its objects that were accessed
    accesses  INTEGER NOT NULL,  -- data accesses to its objects
    latency   INTEGER NOT NULL,  -- cycles of those accesses
    l1_misses INTEGER NOT NULL,  -- accesses that missed D1
    l2_misses INTEGER,           -- that missed the second data level; NULL if none
    l3_misses INTEGER,           -- that missed the third data level; NULL if none
    ll_misses INTEGER NOT NULL,  -- that missed the last level
    PRIMARY KEY (run, grp)
);

-- Misses and latency per object that was accessed.
CREATE TABLE IF NOT EXISTS cache_objects (
    run       INTEGER NOT NULL REFERENCES runs(id),  -- the run
    grp       INTEGER NOT NULL,  -- its group (cache_groups.grp)
    serial    INTEGER NOT NULL,  -- object number within the group, from 0
    address   INTEGER NOT NULL,  -- start address (the last, after reallocs)
    size      INTEGER NOT NULL,  -- bytes (the last size)
    accesses  INTEGER NOT NULL,  -- data accesses to it
    latency   INTEGER NOT NULL,  -- cycles of those accesses
    l1_misses INTEGER NOT NULL,  -- accesses that missed D1
    l2_misses INTEGER,           -- that missed the second data level; NULL if none
    l3_misses INTEGER,           -- that missed the third data level; NULL if none
    ll_misses INTEGER NOT NULL,  -- that missed the last level
    PRIMARY KEY (run, grp, serial)
);

-- Misses and latency per (group, offset) of heap and static groups: the
-- fields of a structure, summed over its objects. Offsets from trace-cache's
-- --field-limit (default 4096) on share one row at that offset: a large
-- array or buffer would otherwise make a row per byte touched.
CREATE TABLE IF NOT EXISTS cache_fields (
    run       INTEGER NOT NULL REFERENCES runs(id),  -- the run
    grp       INTEGER NOT NULL,  -- the group (cache_groups.grp)
    offset    INTEGER NOT NULL,  -- byte offset in the object where the accesses began
    accesses  INTEGER NOT NULL,  -- data accesses starting there
    latency   INTEGER NOT NULL,  -- cycles of those accesses
    l1_misses INTEGER NOT NULL,  -- accesses that missed D1
    l2_misses INTEGER,           -- that missed the second data level; NULL if none
    l3_misses INTEGER,           -- that missed the third data level; NULL if none
    ll_misses INTEGER NOT NULL,  -- that missed the last level
    PRIMARY KEY (run, grp, offset)
);

-- Miss-ratio curves of fully associative LRU caches, from stack distances:
-- the run's (every power of two up to the distinct lines), each group's and
-- each instruction's (powers of two, until the curve reaches its cold floor).
CREATE TABLE IF NOT EXISTS cache_curves (
    run         INTEGER NOT NULL REFERENCES runs(id),  -- the run
    scope       TEXT NOT NULL CHECK (scope IN ('run', 'group', 'instruction')),
                                   -- whose accesses the curve is over
    grp         INTEGER,           -- the group (scope 'group'), else NULL
    instruction INTEGER REFERENCES instructions(id),  -- the instruction (scope
                                   -- 'instruction'), else NULL
    lines       INTEGER NOT NULL,  -- cache size in lines
    bytes       INTEGER NOT NULL,  -- cache size in bytes (lines x line size)
    miss_ratio  REAL NOT NULL,     -- misses / accesses of those accesses in such a cache,
                                   -- all sharing the one cache (distances over the whole run)
    accesses    INTEGER NOT NULL,  -- accesses the ratio is over (sampled ones when sampling)
    rate        REAL NOT NULL      -- SHARDS sampling rate; 1 for exact curves
);
CREATE INDEX IF NOT EXISTS cache_curves_run ON cache_curves(run, scope);
