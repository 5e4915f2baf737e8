-- plot_lifetimes: data of trace-plot lifetimes: heap object lifetimes by group, one row per (sampled) object
-- Parameters: :run (default: the latest run), :limit (groups, default 8),
-- :per_group (objects drawn per group at most, default 400: every k-th
-- serial is taken).
-- Columns: lane (0 = the hottest group), label (the group), alloc_time,
-- end_time (free time, or the end of the run if never freed), y (lane +
-- the object's place in allocation order), never_freed (0 or 1).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS id),
     e AS (SELECT coalesce(runs.instructions,
                           (SELECT max(coalesce(free_time, alloc_time)) FROM objects
                            WHERE run = r.id)) AS t
           FROM runs, r WHERE runs.id = r.id),
     g AS (SELECT s.id, s.name, s.objects,
                  row_number() OVER (ORDER BY s.accesses DESC, s.objects DESC) - 1 AS lane
           FROM alloc_sites s, r
           WHERE s.run = r.id AND s.kind = 'heap' AND s.objects > 0
           ORDER BY s.accesses DESC, s.objects DESC
           LIMIT coalesce(:limit, 8))
SELECT g.lane                                        AS lane,
       g.name                                        AS label,
       o.alloc_time                                  AS alloc_time,
       coalesce(o.free_time, (SELECT t FROM e))      AS end_time,
       g.lane + 0.1 + 0.8 * o.serial / max(1, g.objects - 1) AS y,
       o.free_time IS NULL                           AS never_freed
FROM objects o JOIN g ON o.site = g.id, r
WHERE o.run = r.id
  AND o.serial % max(1, g.objects / coalesce(:per_group, 400)) = 0
ORDER BY g.lane, o.serial;
