-- plot_rds_lifetimes: data of trace-plot rds_lifetimes (the RDS paper's Figure 5): cumulative share of RDS instances by normalised lifetime
-- Parameters: :run (default: the latest run).
-- Columns: lifetime (% of the run), instances (% of instances whose
-- lifetime is at most that).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS rid),
     n AS (SELECT count(*) AS total FROM rds_instances, r WHERE run = r.rid)
SELECT 100 * i.norm_lifetime                                             AS lifetime,
       100.0 * (row_number() OVER (ORDER BY i.norm_lifetime, i.id)) / n.total AS instances
FROM rds_instances i, r, n
WHERE i.run = r.rid
ORDER BY i.norm_lifetime, i.id;
