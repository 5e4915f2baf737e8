-- 85-redundancy.sql: redundant loads and stores (trace-redundancy; seed 001,
-- section 5.1; docs/trace-redundancy.md). The model: 8-byte granules, a
-- load reads the most recent store among the granules it touches and is
-- redundant when an earlier load read that store there (SN > 1); a store
-- instance is redundant when no load read it before it was overwritten or
-- the run ended. Both methods (the direct pass over the trace, the one
-- from a TWPP+ file) give the same numbers.

-- Per static memory instruction (a modify has both load and store counts).
CREATE TABLE IF NOT EXISTS redundancy (
    run              INTEGER NOT NULL REFERENCES runs(id),        -- the run
    instruction      INTEGER NOT NULL REFERENCES instructions(id),-- the instruction (function:line there)
    method           TEXT NOT NULL,     -- 'direct' (shadow memory over the trace) or 'twpp' (TWPP+ edges)
    loads            INTEGER NOT NULL,  -- load instances
    redundant_loads  INTEGER NOT NULL,  -- of those, reading a value an earlier load read (SN > 1)
    unwritten_loads  INTEGER NOT NULL,  -- of those, of memory no store of the trace wrote (no edge)
    stores           INTEGER NOT NULL,  -- store instances
    redundant_stores INTEGER NOT NULL,  -- of those, read by no load
    PRIMARY KEY (run, instruction, method)
);

-- Figures 5.4 and 5.5's classes: per instruction of a run, its loads and its
-- stores apart, in the class of the share of their instances that are
-- redundant (0%, 0-10%, ..., 90-100%, 100%), from the TWPP+ counts when the
-- run has them, else the direct pass's (they agree).
CREATE VIEW IF NOT EXISTS redundancy_classes AS
WITH m AS (SELECT run, CASE WHEN max(method = 'twpp') THEN 'twpp' ELSE 'direct' END AS method
           FROM redundancy GROUP BY run),
     i AS (SELECT x.run, 'load' AS kind, x.loads AS instances,
                  100.0 * x.redundant_loads / x.loads AS pct
           FROM redundancy x JOIN m ON m.run = x.run AND m.method = x.method WHERE x.loads > 0
           UNION ALL
           SELECT x.run, 'store', x.stores, 100.0 * x.redundant_stores / x.stores
           FROM redundancy x JOIN m ON m.run = x.run AND m.method = x.method WHERE x.stores > 0),
     c AS (SELECT run, kind, instances,
                  CASE WHEN pct = 0 THEN 0 WHEN pct = 100 THEN 11
                       ELSE 1 + min(9, CAST(pct / 10 AS INTEGER)) END AS k FROM i)
SELECT run,        -- the run
       kind,       -- 'load' or 'store' (a modify's instruction is in both)
       k,          -- the class's order: 0 for 0%, 1 to 10 for the tenths, 11 for 100%
       CASE k WHEN 0 THEN '0%' WHEN 11 THEN '100%'
              ELSE printf('%d-%d%%', 10 * (k - 1), 10 * k) END AS class,  -- its label
       instances   -- the instruction's load (or store) instances
FROM c;

-- Table 5.1 of seed 001 per function of a run's .twpp file (trace-dataflow
-- --db; docs/trace-dataflow.md): the flow graph that ran against the
-- timestamp-annotated dynamic ones, one per compacted trace, summed.
CREATE TABLE IF NOT EXISTS dataflow_graphs (
    run            INTEGER NOT NULL REFERENCES runs(id),  -- the run (named by the .twpp file)
    function       TEXT NOT NULL,     -- the function (the symbol of its entry, else 0xADDR)
    entry          INTEGER NOT NULL,  -- address of its calls' first block
    paths          INTEGER NOT NULL,  -- unique paths (compacted trace, dictionary)
    static_nodes   INTEGER NOT NULL,  -- blocks of the function that ran
    static_edges   INTEGER NOT NULL,  -- block-to-block edges that ran
    dynamic_nodes  INTEGER NOT NULL,  -- DBB nodes summed over its compacted traces
    dynamic_edges  INTEGER NOT NULL,  -- DBB edges summed over them
    entries        INTEGER NOT NULL,  -- timestamp series entries over all dynamic nodes
    timestamps     INTEGER NOT NULL,  -- timestamps over all dynamic nodes (before compaction)
    PRIMARY KEY (run, entry)
);
