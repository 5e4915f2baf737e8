-- plot_redundancy_stores: data of trace-plot redundancy_stores (Figure 5.5): stores instructions by the share of their instances that are redundant, per class the share of instructions and the share of instances.
-- Parameters: :run (default: the latest run with redundancy counts); :group and :limit are ignored.
-- Columns: class, % instructions, % instances.
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM redundancy)) AS run
           WHERE coalesce(:group, :limit, 1) IS NOT NULL),
     c AS (SELECT k, class, instances FROM redundancy_classes, r
           WHERE redundancy_classes.run = r.run AND kind = 'store')
SELECT class,
       100.0 * count(*) / (SELECT count(*) FROM c)                AS instructions,
       100.0 * sum(instances) / (SELECT sum(instances) FROM c)    AS instances
FROM c GROUP BY k ORDER BY k;
