-- plot_rds_rsf: data of trace-plot rds_rsf (the RDS paper's Figure 7): cumulative share of pointer-chasing loads by the RSF of their instance
-- Parameters: :run (default: the latest run).
-- Columns: rsf (1 .. 10), loads (% of all traversals of instances with an
-- RSF at most that).
WITH RECURSIVE r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS id),
     n AS (SELECT max(1, sum(accesses)) AS total FROM rds_instances, r WHERE run = r.id),
     k(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM k WHERE v < 10)
SELECT k.v AS rsf,
       100.0 * (SELECT coalesce(sum(accesses), 0) FROM rds_instances i, r
                WHERE i.run = r.id AND i.rsf IS NOT NULL AND i.rsf <= k.v) / n.total AS loads
FROM k, n
WHERE (SELECT count(*) FROM rds_instances i, r WHERE i.run = r.id AND i.accesses > 0) > 0
ORDER BY k.v;
