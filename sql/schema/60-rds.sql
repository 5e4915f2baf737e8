-- 60-rds.sql: recursive data structure profiling (trace-rds; Raman and
-- August, MSP'05; docs/trace-rds.md). Times are trace times (guest
-- instructions executed); "normalised" divides by the run's extent
-- (rds_summary.run_end - run_start). Sites are object-map groups
-- (heap allocation sites, frame 0), numbered per run as trace-objrel and
-- cache_groups number them (grp).

-- The run as a whole: what the profiler saw and how.
CREATE TABLE IF NOT EXISTS rds_summary (
    run            INTEGER NOT NULL PRIMARY KEY REFERENCES runs(id),  -- the run
    run_start      INTEGER NOT NULL,  -- time of the trace's first event
    run_end        INTEGER NOT NULL,  -- time of its last
    accesses       INTEGER NOT NULL,  -- data accesses through the cache model
    pointer_accesses INTEGER NOT NULL,-- 8-byte stores into a heap object of a pointer into
                                      -- another live one, and such loads from objects in an
                                      -- instance (a load from an object in none is not looked at)
    nodes          INTEGER NOT NULL,  -- heap objects that took part in such a pointer
    edges_added    INTEGER NOT NULL,  -- edge_add events (a pointer stored anew)
    edges_removed  INTEGER NOT NULL,  -- edges overwritten, or gone with a freed end
    edges_queued   INTEGER NOT NULL,  -- edges added while their sites shared no RDS type
    edges_dequeued INTEGER NOT NULL,  -- of those, joined to an instance later (the SCC grew)
    traversals     INTEGER NOT NULL,  -- edge_traverse events: pointer loads from objects in an
                                      -- instance, into another node
    rds_traversals INTEGER NOT NULL,  -- of those, within an instance
    ssg_edges      INTEGER NOT NULL,  -- edges of the static shape graph
    threshold      REAL NOT NULL,     -- the RSF's t
    cache          TEXT NOT NULL      -- the cache hierarchy of the latencies
);

-- RDS types: strongly connected components of the static shape graph that
-- hold a cycle (two sites or more, or one site with an edge to itself).
CREATE TABLE IF NOT EXISTS rds_types (
    run            INTEGER NOT NULL REFERENCES runs(id),  -- the run
    id             INTEGER NOT NULL,  -- type number in the run, from 0, in order of first instance
    name           TEXT NOT NULL,     -- its sites' names joined by ' + '
    sites          INTEGER NOT NULL,  -- allocation sites in the SCC
    instances      INTEGER NOT NULL,  -- its instances
    nodes          INTEGER NOT NULL,  -- objects in them
    edges          INTEGER NOT NULL,  -- edges ever added within them
    forward_edges  INTEGER NOT NULL,  -- of those, from an older to a younger object
    backward_edges INTEGER NOT NULL,  -- from a younger to an older one
    avg_size       REAL NOT NULL,     -- edges per instance (Table 3's average size)
    avg_lifetime   REAL NOT NULL,     -- average normalised lifetime of its instances, 0 .. 1
    accesses       INTEGER NOT NULL,  -- traversals of its edges (pointer-chasing loads)
    avg_latency    REAL,              -- cycles per traversal; NULL without traversals
    PRIMARY KEY (run, id)
);

-- The allocation sites of each type.
CREATE TABLE IF NOT EXISTS rds_type_sites (
    run      INTEGER NOT NULL REFERENCES runs(id),  -- the run
    type     INTEGER NOT NULL,  -- rds_types.id
    grp      INTEGER NOT NULL,  -- the site's group number in the run (as cache_groups.grp)
    site     INTEGER REFERENCES alloc_sites(id),  -- the same site in alloc_sites when
                                -- trace-objects has stored this run before; else NULL
    name     TEXT NOT NULL,     -- function:line of the allocation call (as alloc_sites.name)
    address  INTEGER NOT NULL,  -- return address of the allocation call (alloc_sites.address)
    PRIMARY KEY (run, type, grp)
);

-- RDS instances: the connected components of a type's objects.
CREATE TABLE IF NOT EXISTS rds_instances (
    run            INTEGER NOT NULL REFERENCES runs(id),  -- the run
    id             INTEGER NOT NULL,  -- instance number, in order of creation (first union)
    type           INTEGER NOT NULL,  -- rds_types.id
    nodes          INTEGER NOT NULL,  -- objects that ever joined it
    live_nodes     INTEGER NOT NULL,  -- of those, not freed at the end (0: freed entirely)
    edges          INTEGER NOT NULL,  -- edges ever added within it (its size)
    live_edges     INTEGER NOT NULL,  -- edges within it at the end of the run
    forward_edges  INTEGER NOT NULL,  -- edges from an older to a younger object
    backward_edges INTEGER NOT NULL,  -- edges from a younger to an older object
    accesses       INTEGER NOT NULL,  -- traversals of its edges (pointer-chasing loads)
    latency        INTEGER NOT NULL,  -- cycles of those loads in the cache model
    avg_latency    REAL,              -- latency / accesses; NULL without traversals
    birth          INTEGER NOT NULL,  -- allocation time of its first object
    end_time       INTEGER NOT NULL,  -- its last traversal (its last change if never traversed)
    death          INTEGER,           -- when its last object was freed; NULL if some live at the end
    lifetime       INTEGER NOT NULL,  -- end_time - birth
    norm_lifetime  REAL NOT NULL,     -- lifetime / the run's extent, 0 .. 1
    rsf            INTEGER,           -- RDS stability factor (section 5); NULL without traversals
    depth_steps    INTEGER NOT NULL,  -- successive traversals u->v, v->w
    breadth_steps  INTEGER NOT NULL,  -- successive traversals u->v, u->w
    pattern        TEXT NOT NULL,     -- 'depth-first', 'breadth-first' or 'none' (neither more)
    PRIMARY KEY (run, id)
);

-- The instructions that create (store an edge of) and traverse (load an
-- edge of) each instance.
CREATE TABLE IF NOT EXISTS rds_instance_insns (
    run         INTEGER NOT NULL REFERENCES runs(id),          -- the run
    instance    INTEGER NOT NULL,  -- rds_instances.id
    role        TEXT NOT NULL CHECK (role IN ('create', 'traverse')),
    instruction INTEGER NOT NULL REFERENCES instructions(id),  -- the instruction
    count       INTEGER NOT NULL,  -- edges it stored, or traversals it made
    PRIMARY KEY (run, instance, role, instruction)
);

-- The calls to free that deleted objects of each instance.
CREATE TABLE IF NOT EXISTS rds_instance_frees (
    run      INTEGER NOT NULL REFERENCES runs(id),  -- the run
    instance INTEGER NOT NULL,  -- rds_instances.id
    address  INTEGER NOT NULL,  -- return address of the free call (0: unknown)
    name     TEXT NOT NULL,     -- its function:line
    count    INTEGER NOT NULL,  -- objects it freed
    PRIMARY KEY (run, instance, address)
);
