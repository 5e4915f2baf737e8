-- trace-layout: LWPTool's data layout analyses (docs/trace-layout.md).
-- Groups are alloc_sites rows of the run: the ones trace-objects wrote when
-- it ran on the same run first (matched by serial, kind and name), else rows
-- trace-layout adds with the same columns (objects, accesses; bytes 0).

-- Loops of the trace's dynamic CFG (stream/cfg.h): the nesting forest.
CREATE TABLE IF NOT EXISTS layout_loops (
    run       INTEGER NOT NULL REFERENCES runs(id),  -- the run
    loop      INTEGER NOT NULL,  -- loop number within the run, outer loops first
    parent    INTEGER,           -- enclosing loop's number, NULL for an outermost loop
    depth     INTEGER NOT NULL,  -- 1 for an outermost loop
    function  TEXT NOT NULL,     -- function of its header
    file      TEXT,              -- header's source file, NULL when unknown
    line_min  INTEGER,           -- first line of the loop in that file, NULL when unknown
    line_max  INTEGER,           -- last line, NULL when unknown
    headers   INTEGER NOT NULL,  -- entry blocks: more than 1 means irreducible
    weight    REAL NOT NULL,     -- weight of the accesses to heap and static groups whose
                                 -- instruction's innermost loop it is
    share     REAL NOT NULL,     -- weight / the program's weight
    inclusive REAL NOT NULL      -- share with its nested loops and the accesses of the
                                 -- functions it called that are in no loop of theirs
);

-- Hot data: every accessed heap or static group with its l_d (Eq. 1).
CREATE TABLE IF NOT EXISTS layout_groups (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site      INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the group
    weight    REAL NOT NULL,     -- sum of its accesses' weights
    l_d       REAL NOT NULL,     -- weight / the program's weight (Eq. 1)
    accesses  INTEGER NOT NULL,  -- accesses weighed
    objects   INTEGER NOT NULL   -- its objects that were accessed
);

-- Hot data per object: the heaviest objects (at most 100) with their l_d.
CREATE TABLE IF NOT EXISTS layout_objects (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site      INTEGER NOT NULL REFERENCES alloc_sites(id),  -- its group
    serial    INTEGER NOT NULL,  -- object number within its group (as objects.serial)
    address   INTEGER NOT NULL,  -- its address (the last one)
    size      INTEGER NOT NULL,  -- its size in bytes
    weight    REAL NOT NULL,     -- sum of its accesses' weights
    l_d       REAL NOT NULL,     -- weight / the program's weight (Eq. 1)
    accesses  INTEGER NOT NULL   -- accesses weighed
);

-- Streams: the accesses of one instruction to one group (Eqs. 2-3).
CREATE TABLE IF NOT EXISTS layout_streams (
    run         INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instruction INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    site        INTEGER NOT NULL REFERENCES alloc_sites(id),   -- the group
    loop        INTEGER,           -- its innermost loop (layout_loops.loop), NULL: none
    accesses    INTEGER NOT NULL,  -- accesses weighed
    stride      INTEGER NOT NULL,  -- gcd of its offsets' distances (0: one offset)
    base_offset INTEGER NOT NULL,  -- offset in the object of its first access
    min_size    INTEGER NOT NULL,  -- narrowest access, bytes
    max_size    INTEGER NOT NULL,  -- widest access, bytes
    weight      REAL NOT NULL      -- sum of its accesses' weights
);

-- Fields of the significant structures (Eqs. 5-6).
CREATE TABLE IF NOT EXISTS layout_fields (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site      INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the structure's group
    struct_size INTEGER NOT NULL,  -- the structure's size (Eq. 5)
    offset    INTEGER NOT NULL,    -- the field's offset (Eq. 6)
    size      INTEGER NOT NULL,    -- its widest access
    weight    REAL NOT NULL,       -- weight of its streams
    cluster   INTEGER NOT NULL,    -- the proposed structure it goes to
    multi     INTEGER NOT NULL     -- 1: an access to it covers another field too
);

-- Field affinity FA (Eq. 7) of every pair of fields of a structure.
CREATE TABLE IF NOT EXISTS layout_affinities (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site      INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the structure's group
    offset_a  INTEGER NOT NULL,  -- one field
    offset_b  INTEGER NOT NULL,  -- the other (both orders are rows)
    fa        REAL NOT NULL      -- FA, 0..1
);

-- Arrays considered for regrouping (Eq. 8), with their class.
CREATE TABLE IF NOT EXISTS layout_arrays (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site      INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the array's group
    element   INTEGER NOT NULL,  -- element size (Eq. 5, or the primitive gcd)
    bytes     INTEGER NOT NULL,  -- the array's size
    scheme    INTEGER NOT NULL,  -- bytes / element (Eq. 8)
    class     INTEGER NOT NULL   -- arrays of one class may be regrouped
);

-- Access-pattern conflicts (Eq. 10, plus reverse order) found in a loop.
CREATE TABLE IF NOT EXISTS layout_conflicts (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site_a    INTEGER NOT NULL REFERENCES alloc_sites(id),  -- one array
    site_b    INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the other
    loop      INTEGER NOT NULL,  -- the loop (layout_loops.loop)
    kind      TEXT NOT NULL      -- 'disjoint parts', 'disjoint times' or 'reverse order'
);

-- The advice: one row per field offset of a structure to split; cluster
-- numbers the proposed new structures within the site.
CREATE TABLE IF NOT EXISTS layout_splits (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    site      INTEGER NOT NULL REFERENCES alloc_sites(id),  -- the structure's group
    cluster   INTEGER NOT NULL,  -- the new structure, 0..
    offset    INTEGER NOT NULL   -- a field of it (its offset in the old structure)
);

-- The advice: one row per array of a proposed regrouping.
CREATE TABLE IF NOT EXISTS layout_regroups (
    run       INTEGER NOT NULL REFERENCES runs(id),         -- the run
    advice    INTEGER NOT NULL,  -- the regrouping, 0..
    site      INTEGER NOT NULL REFERENCES alloc_sites(id)   -- one of its arrays
);

-- Predicted gains: the replay of each suggestion through the cache model,
-- one row per data level; rank 0 is best (least latency).
CREATE TABLE IF NOT EXISTS layout_gains (
    run            INTEGER NOT NULL REFERENCES runs(id),  -- the run
    rank           INTEGER NOT NULL,  -- 0 = the best predicted latency
    kind           TEXT NOT NULL,     -- 'split', 'regroup' or 'all'
    site           INTEGER REFERENCES alloc_sites(id),  -- split: the structure; else NULL
    advice         INTEGER,           -- regroup: layout_regroups.advice; else NULL
    level          TEXT NOT NULL,     -- 'D1', 'L2', 'L3' ...
    misses_before  INTEGER NOT NULL,  -- misses of that level as recorded
    misses_after   INTEGER NOT NULL,  -- with the advice applied
    latency_before REAL NOT NULL,     -- every access's latency, as recorded
    latency_after  REAL NOT NULL      -- with the advice applied
);
