-- hot_subpaths: Larus's hot subpaths (trace-wpp --db), most costly first:
-- runs of consecutive block executions whose length x executions passed
-- the threshold, with the blocks as function:line.
-- Parameters: :run (default: the latest run with hot subpaths), :limit (default 20).
SELECT h.thread     AS thread,
       h.rank       AS rank,
       h.cost       AS cost,
       h.executions AS executions,
       h.length     AS length,
       h.instrs     AS instrs,
       h.path       AS path
FROM hot_subpaths h
WHERE h.run = coalesce(:run, (SELECT max(run) FROM hot_subpaths))
ORDER BY h.cost DESC, h.thread, h.rank
LIMIT coalesce(:limit, 20);
