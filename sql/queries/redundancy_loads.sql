-- redundancy_loads: Figure 5.4: load instructions by the share of their instances that are redundant (0%, 0-10%, ..., 90-100%, 100%), unweighted and weighted by instances (trace-redundancy --db)
-- Parameters: :run (default: the latest run with redundancy counts); :group and :limit are ignored.
-- Method: the TWPP+ counts when the run has them, else the direct pass's (they agree).
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM redundancy)) AS run
           WHERE coalesce(:group, :limit, 1) IS NOT NULL),
     m AS (SELECT CASE WHEN EXISTS (SELECT 1 FROM redundancy, r WHERE redundancy.run = r.run
                                    AND method = 'twpp') THEN 'twpp' ELSE 'direct' END AS method),
     i AS (SELECT loads, 100.0 * redundant_loads / loads AS pct
           FROM redundancy, r, m
           WHERE redundancy.run = r.run AND redundancy.method = m.method AND loads > 0),
     c AS (SELECT CASE WHEN pct = 0 THEN 0 WHEN pct = 100 THEN 11
                       ELSE 1 + min(9, CAST(pct / 10 AS INTEGER)) END AS k, loads FROM i)
SELECT CASE k WHEN 0 THEN '0%' WHEN 11 THEN '100%'
              ELSE printf('%d-%d%%', 10 * (k - 1), 10 * k) END        AS class,
       count(*)                                                        AS instructions,
       printf('%.1f', 100.0 * count(*) / (SELECT count(*) FROM c))     AS "% instructions",
       sum(loads)                                                      AS instances,
       printf('%.1f', 100.0 * sum(loads) / (SELECT sum(loads) FROM c)) AS "% instances"
FROM c GROUP BY k ORDER BY k;
