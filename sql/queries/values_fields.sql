-- values_fields: the fields of each group by accesses, with the share of small values, pointers and incompressible values, the value range, the most frequent value and whether the 80% rule selects the field
--   trace-db FILE query values_fields --run=N --limit=N [--param group=NAME]
-- Parameters: :run (default: the latest run with a value profile), :group (a
-- group name; default: every group), :limit (default 30). top_value's share is
-- the lower bound Space-Saving guarantees (count - error).
SELECT s.name                                                        AS "group",
       f.offset,
       f.size,
       f.accesses,
       f.valued,
       printf('%.1f%%', 100.0 * f.small / max(1, f.valued))          AS small,
       printf('%.1f%%', 100.0 * f.pointer / max(1, f.valued))        AS pointer,
       printf('%.1f%%', 100.0 * f.incompressible / max(1, f.valued)) AS incompressible,
       CASE WHEN f.valued THEN f.min_value || '..' || f.max_value END AS range,
       (SELECT printf('%d (%.1f%%)', t.value, 100.0 * t.count / max(1, f.valued))
        FROM value_top t WHERE t.run = f.run AND t.site = f.site
          AND t.offset = f.offset AND t.rank = 1 AND t.count > t.error) AS top_value,
       f.instances,
       printf('%.1f%%', 100.0 * (f.instances - f.spoiled) / max(1, f.instances)) AS compressible_instances,
       f.selected,
       f.saved_bytes
FROM value_fields f JOIN alloc_sites s ON s.id = f.site
WHERE f.run = coalesce(:run, (SELECT max(run) FROM value_runs))
  AND (:group IS NULL OR s.name = :group)
ORDER BY f.accesses DESC, s.name, f.offset
LIMIT coalesce(:limit, 30);
