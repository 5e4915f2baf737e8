-- plot_offsets: data of trace-plot offsets: sampled accesses to one group as (time, object, offset), by instruction
-- Parameters: :run (default: the latest run), :group (a group name;
-- default: the hottest heap group, else the hottest static one).
-- Columns: time, object (serial within the group), offset, label (the
-- instruction as function:line/kind), "group".
WITH g AS (
    SELECT id, name FROM alloc_sites
    WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
      AND kind IN ('heap', 'static')
      AND (:group IS NULL OR name = :group)
    ORDER BY kind = 'heap' DESC, accesses DESC LIMIT 1)
SELECT a.time                                        AS time,
       a.object                                      AS object,
       a.offset                                      AS offset,
       coalesce(i.function || ':' || i.line, i.function, printf('0x%x', i.address))
           || '/' || a.kind                          AS label,
       g.name                                        AS "group"
FROM access_samples a JOIN g ON a.site = g.id
JOIN instructions i ON i.id = a.instruction
ORDER BY a.time;
