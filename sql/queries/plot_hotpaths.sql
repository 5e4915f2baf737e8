-- plot_hotpaths: data of trace-plot hotpaths: trace-wpp's hot subpaths of a
-- run, most costly first.
-- Parameters: :run (default: the latest run, as the title says), :limit
-- (default 15); :group is ignored.
-- Columns: label (thread, rank, and the first and last blocks), cost,
-- executions, length.
SELECT 't' || h.thread || ' #' || h.rank || ' ' ||
       CASE WHEN instr(h.path, ' > ') = 0 THEN h.path
            ELSE substr(h.path, 1, instr(h.path, ' > ') - 1) || ' .. ' ||
                 replace(h.path, rtrim(h.path, replace(h.path, '>', '')), '') END AS label,
       h.cost       AS cost,
       h.executions AS executions,
       h.length     AS length
FROM hot_subpaths h
WHERE h.run = coalesce(:run, (SELECT max(id) FROM runs))
  AND coalesce(:group, 1) IS NOT NULL
ORDER BY h.cost DESC, h.thread, h.rank
LIMIT coalesce(:limit, 15);
