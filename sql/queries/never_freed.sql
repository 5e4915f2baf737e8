-- never_freed: heap objects never freed, by allocation site (leaks, or memory kept to the end)
-- Parameters: :run (default: the latest run), :limit (default 20).
SELECT s.name                                AS "group",
       count(*)                              AS never_freed,
       sum(o.size)                           AS bytes,
       min(o.alloc_time)                     AS first_allocated,
       max(o.alloc_time)                     AS last_allocated,
       sum(o.accesses = 0)                   AS never_used
FROM objects o JOIN alloc_sites s ON s.id = o.site
WHERE o.run = coalesce(:run, (SELECT max(id) FROM runs))
  AND o.kind = 'heap' AND o.free_time IS NULL
GROUP BY s.id
ORDER BY bytes DESC
LIMIT coalesce(:limit, 20);
