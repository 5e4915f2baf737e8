-- redundancy_loads: Figure 5.4: load instructions by the share of their instances that are redundant (0%, 0-10%, ..., 90-100%, 100%), unweighted and weighted by instances (trace-redundancy --db)
-- Parameters: :run (default: the latest run with redundancy counts); :group and :limit are ignored.
-- Method: the TWPP+ counts when the run has them, else the direct pass's (view redundancy_classes).
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM redundancy)) AS run
           WHERE coalesce(:group, :limit, 1) IS NOT NULL),
     c AS (SELECT k, class, instances FROM redundancy_classes, r
           WHERE redundancy_classes.run = r.run AND kind = 'load')
SELECT class,
       count(*)                                                                AS instructions,
       printf('%.1f', 100.0 * count(*) / (SELECT count(*) FROM c))            AS "% instructions",
       sum(instances)                                                          AS instances,
       printf('%.1f', 100.0 * sum(instances) / (SELECT sum(instances) FROM c)) AS "% instances"
FROM c GROUP BY k ORDER BY k;
