-- plot_rds_live: data of trace-plot rds_live (the RDS paper's Figure 6): live RDS instances over normalised time
-- Parameters: :run (default: the latest run).
-- An instance is live from its first allocation to its last traversal
-- (birth .. end_time). Columns: time (% of the run, 0 .. 100 in steps of
-- 1), instances (live then).
WITH RECURSIVE r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS id),
     s AS (SELECT run_start, max(1, run_end - run_start) AS extent
           FROM rds_summary, r WHERE run = r.id),
     pct(p) AS (SELECT 0 UNION ALL SELECT p + 1 FROM pct WHERE p < 100)
SELECT pct.p AS time,
       (SELECT count(*) FROM rds_instances i, r
        WHERE i.run = r.id
          AND i.birth <= s.run_start + s.extent * pct.p / 100.0
          AND i.end_time >= s.run_start + s.extent * pct.p / 100.0) AS instances
FROM pct, s
ORDER BY pct.p;
