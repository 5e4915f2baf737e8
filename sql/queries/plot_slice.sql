-- plot_slice: data of trace-plot slice: the size of a run's three slices in source lines, and of what ran, for the dissertation's comparison of approaches 1-3 (section 5.3).
-- Parameters: :run (default: the latest run with a slice); :group and :limit are ignored.
-- Columns: label, lines.
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM slice_criteria)) AS run
           WHERE coalesce(:group, :limit, 1) IS NOT NULL)
SELECT label, lines FROM (
  SELECT 1 AS k, 'precise (approach 3)' AS label, count(*) AS lines
    FROM slice_lines WHERE run = (SELECT run FROM r) AND slice = 'precise'
  UNION ALL
  SELECT 2, 'executed edges (approach 2)', count(*)
    FROM slice_lines WHERE run = (SELECT run FROM r) AND slice = 'edges'
  UNION ALL
  SELECT 3, 'executed nodes (approach 1)', count(*)
    FROM slice_lines WHERE run = (SELECT run FROM r) AND slice = 'nodes')
WHERE lines > 0
ORDER BY k;
