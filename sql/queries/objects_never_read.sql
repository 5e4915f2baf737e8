-- objects_never_read: groups whose objects are written but never read (wasted stores, dead data)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- Objects never accessed at all are counted separately (untouched).
SELECT s.name                                AS "group",
       s.kind                                AS kind,
       sum(o.loads = 0 AND o.stores > 0)     AS written_not_read,
       sum(o.loads = 0 AND o.stores = 0)     AS untouched,
       count(*)                              AS objects,
       sum(CASE WHEN o.loads = 0 THEN o.size ELSE 0 END) AS bytes_never_read
FROM objects o JOIN alloc_sites s ON s.id = o.site
WHERE o.run = coalesce(:run, (SELECT max(id) FROM runs))
GROUP BY s.id
HAVING sum(o.loads = 0) > 0
ORDER BY written_not_read DESC, bytes_never_read DESC
LIMIT coalesce(:limit, 20);
