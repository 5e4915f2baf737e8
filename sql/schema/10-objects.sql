-- 10-objects.sql: the tables of the object-relative profile (trace-objects):
-- groups of objects, objects, field heat, what each instruction does to each
-- group, a thinned sample of the accesses. Conventions as in 00-core.sql.

-- Groups of objects (the paper's "group"): heap allocation sites (of malloc
-- and friends, and of anonymous mmaps), one group per static data object,
-- and the two catch-alls `stack` and `unknown`.
CREATE TABLE IF NOT EXISTS alloc_sites (
    run      INTEGER NOT NULL REFERENCES runs(id),  -- the run
    id       INTEGER PRIMARY KEY,  -- group id, unique in the whole database
    serial   INTEGER NOT NULL,     -- group number within the run, in order of first use
    kind     TEXT NOT NULL,        -- 'heap', 'static', 'stack' or 'unknown'
    name     TEXT NOT NULL,        -- readable name, unique in the run: function@file:line of
                                   -- the call site (C++ names shortened, see objects/groupname.h),
                                   -- a static object's "module:symbol" (or for data no symbol
                                   -- covers "module:section[+0xOFF]"), 'stack', 'unknown'
    function TEXT,                 -- allocating function (frame 0), its full name; NULL if
                                   -- unknown or not heap
    file     TEXT,                 -- its source file, NULL when unknown
    line     INTEGER,              -- its source line, NULL when unknown
    address  INTEGER,              -- return address of frame 0 (heap) or object address (static)
    stack    TEXT,                 -- the frames that define the group, innermost first,
                                   -- as "function@file:line <- function@file:line"
    objects  INTEGER NOT NULL DEFAULT 0,  -- objects of the group
    accesses INTEGER NOT NULL DEFAULT 0,  -- accesses to objects of the group
    bytes    INTEGER NOT NULL DEFAULT 0   -- bytes accessed in objects of the group
);

-- Objects: heap blocks (anonymous mmaps included) and static data objects,
-- with their lifetimes and access statistics.
CREATE TABLE IF NOT EXISTS objects (
    run          INTEGER NOT NULL REFERENCES runs(id),         -- the run
    id           INTEGER PRIMARY KEY,                          -- unique in the whole database
    site         INTEGER NOT NULL REFERENCES alloc_sites(id),  -- its group
    serial       INTEGER NOT NULL,  -- object number within its group, in allocation order from 0
    kind         TEXT NOT NULL,     -- 'heap' or 'static'
    name         TEXT,              -- name of a static object (its symbol, without the module
                                    -- its group's name has); NULL for heap objects
    address      INTEGER NOT NULL,  -- start address (the last one, after reallocs)
    size         INTEGER NOT NULL,  -- bytes (the last size, after reallocs)
    alloc_time   INTEGER NOT NULL,  -- when allocated (0 for static objects)
    free_time    INTEGER,           -- when freed; NULL if never freed
    tid          INTEGER,           -- thread that allocated it; NULL for static objects
    reallocs     INTEGER NOT NULL DEFAULT 0,  -- reallocs that moved or resized it
    accesses     INTEGER NOT NULL,  -- accesses to the object (a modify counts once)
    loads        INTEGER NOT NULL,  -- reads of the object (a modify counts as a read and a write)
    stores       INTEGER NOT NULL,  -- writes to the object
    bytes        INTEGER NOT NULL,  -- bytes read or written (a modify counts once)
    offsets      INTEGER NOT NULL,  -- distinct offsets at which an access started
    first_access INTEGER,           -- time of the first access; NULL if never accessed
    last_access  INTEGER            -- time of the last access; NULL if never accessed
);
CREATE INDEX IF NOT EXISTS objects_run_site ON objects(run, site);

-- How often each offset of a group is touched, over all its objects: the
-- heat of the fields of a structure. Offsets below 65536 are exact (span 1);
-- beyond, accesses are counted per 4096-byte span (span 4096, offset = span start).
CREATE TABLE IF NOT EXISTS object_offsets (
    run    INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site   INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the group
    offset INTEGER NOT NULL,  -- byte offset from the start of the object where accesses began
    span   INTEGER NOT NULL,  -- 1, or 64 for the line buckets of large objects
    loads  INTEGER NOT NULL,  -- reads starting there (a modify counts as a read and a write)
    stores INTEGER NOT NULL,  -- writes starting there
    PRIMARY KEY (run, site, offset)
);

-- What each memory instruction does to each group: the paper's vertical
-- decomposition by instruction, then by group.
CREATE TABLE IF NOT EXISTS instr_groups (
    run          INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction  INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    site         INTEGER NOT NULL REFERENCES alloc_sites(id),   -- the group it touched
    accesses     INTEGER NOT NULL,  -- executions of the instruction that touched the group
    bytes        INTEGER NOT NULL,  -- bytes moved by those executions
    objects      INTEGER,           -- distinct objects touched; NULL for stack and unknown (exact, or a
                                    -- HyperLogLog estimate within a few percent for big sets, see base/distinct.h)
    offsets      INTEGER,           -- distinct offsets touched; NULL for stack and unknown (likewise)
    first_access INTEGER NOT NULL,  -- time of the first such access
    last_access  INTEGER NOT NULL,  -- time of the last such access
    PRIMARY KEY (run, instruction, site)
);

-- A thinned sample of each group's accesses, spread evenly over the run (at
-- most trace-objects --samples=N per group): enough to draw time against
-- offset without storing the trace.
CREATE TABLE IF NOT EXISTS access_samples (
    run         INTEGER NOT NULL REFERENCES runs(id),          -- the run
    site        INTEGER NOT NULL REFERENCES alloc_sites(id),   -- the group
    time        INTEGER NOT NULL,  -- when the access happened
    instruction INTEGER NOT NULL REFERENCES instructions(id),  -- which instruction
    object      INTEGER NOT NULL,  -- object serial within the group
    offset      INTEGER NOT NULL,  -- byte offset within the object
    kind        TEXT NOT NULL,     -- 'load', 'store' or 'modify'
    tid         INTEGER NOT NULL   -- thread that made it
);
CREATE INDEX IF NOT EXISTS access_samples_run_site ON access_samples(run, site);

-- Memory traffic per function: the instructions' group statistics summed by
-- the function holding the instruction.
CREATE VIEW IF NOT EXISTS function_traffic AS
SELECT i.run              AS run,        -- the run
       coalesce(i.function, printf('0x%x', min(i.address))) AS function,  -- function name
       sum(CASE WHEN i.kind <> 'store' THEN g.accesses ELSE 0 END) AS loads,   -- reads
       sum(CASE WHEN i.kind <> 'load'  THEN g.accesses ELSE 0 END) AS stores,  -- writes
       sum(g.bytes)       AS bytes,      -- bytes moved
       count(DISTINCT i.id) AS instructions  -- memory instructions of the function
FROM instr_groups g JOIN instructions i ON i.id = g.instruction
GROUP BY i.run, i.function;
