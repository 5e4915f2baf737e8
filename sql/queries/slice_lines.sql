-- slice_lines: a run's three slices side by side, one row per source line in any of them: how often the line ran, its instances in the precise slice (empty: not in it), and 'x' where executed edges (approach 2) and executed nodes (approach 1) hold it.
-- Parameters: :run (default: the latest run with a slice), :limit (default 200), :function (optional: only that function's lines).
WITH l AS (SELECT * FROM slice_lines
           WHERE run = coalesce(:run, (SELECT max(run) FROM slice_criteria))
             AND (:function IS NULL OR function = :function))
SELECT function,
       line,
       max(ran) AS ran,
       coalesce(max(CASE slice WHEN 'precise' THEN instances END), '') AS precise,
       CASE WHEN max(slice = 'edges') THEN 'x' ELSE '' END AS edges,
       CASE WHEN max(slice = 'nodes') THEN 'x' ELSE '' END AS nodes
FROM l
GROUP BY function, line
ORDER BY function, line
LIMIT coalesce(:limit, 200);
