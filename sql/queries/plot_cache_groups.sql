-- plot_cache_groups: data of trace-plot cache_groups: simulated misses per group, the groups with the most latency first
-- Parameters: :run (default: the latest run), :limit (default 10).
-- Columns: label (group name, number and kind), l1_misses (D1 misses that hit a
-- lower level), ll_misses (served by memory), accesses.
SELECT name || ' #' || grp || ' (' || kind || ')' AS label,
       l1_misses - ll_misses        AS l1_misses,
       ll_misses                    AS ll_misses,
       accesses                     AS accesses
FROM cache_groups
WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY latency DESC
LIMIT coalesce(:limit, 10);
