-- plot_cache_curves: data of trace-plot cache_curves: miss-ratio curves of the run and of its groups with the most accesses
-- Parameters: :run (default: the latest run), :limit (default 6 groups).
-- Columns: label (group name and number, or "all accesses"), bytes (cache size),
-- miss_ratio; rows grouped by label, sizes ascending.
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS id),
top AS (SELECT grp, name FROM cache_groups, r WHERE run = r.id
        ORDER BY accesses DESC LIMIT coalesce(:limit, 6))
SELECT label, bytes, miss_ratio FROM (
  SELECT 0 AS k, 'all accesses' AS label, c.bytes, c.miss_ratio
  FROM cache_curves c, r WHERE c.run = r.id AND c.scope = 'run'
  UNION ALL
  SELECT 1 + t.grp, t.name || ' #' || t.grp, c.bytes, c.miss_ratio
  FROM cache_curves c JOIN top t ON t.grp = c.grp, r
  WHERE c.run = r.id AND c.scope = 'group')
ORDER BY k, bytes;
