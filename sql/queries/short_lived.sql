-- short_lived: groups with many short-lived heap objects (candidates for pooling or the stack)
-- Parameters: :run (default: the latest run), :max_life (lifetime in trace
-- time, i.e. instructions executed, below which an object is short-lived;
-- default 10000), :limit (default 20).
SELECT s.name                                AS "group",
       count(*)                              AS short_lived,
       (SELECT count(*) FROM objects a WHERE a.run = s.run AND a.site = s.id) AS objects,
       min(o.free_time - o.alloc_time)       AS min_life,
       CAST(avg(o.free_time - o.alloc_time) AS INTEGER) AS avg_life,
       CAST(avg(o.size) AS INTEGER)          AS avg_size
FROM objects o JOIN alloc_sites s ON s.id = o.site
WHERE o.run = coalesce(:run, (SELECT max(id) FROM runs))
  AND o.kind = 'heap' AND o.free_time IS NOT NULL
  AND o.free_time - o.alloc_time < coalesce(:max_life, 10000)
GROUP BY s.id
ORDER BY short_lived DESC
LIMIT coalesce(:limit, 20);
