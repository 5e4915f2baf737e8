-- hot_objects: the hottest objects by accesses, with their group, size and lifetime
-- Parameters: :run (default: the latest run), :limit (default 20).
-- Objects are numbered from 0 within their group in allocation order;
-- free_time is NULL for objects never freed (and for static objects).
SELECT s.name || '#' || o.serial             AS object,
       o.kind                                AS kind,
       o.size                                AS size,
       o.accesses                            AS accesses,
       o.loads                               AS loads,
       o.stores                              AS stores,
       o.offsets                             AS offsets,
       o.alloc_time                          AS allocated,
       o.free_time                           AS freed
FROM objects o JOIN alloc_sites s ON s.id = o.site
WHERE o.run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY o.accesses DESC
LIMIT coalesce(:limit, 20);
