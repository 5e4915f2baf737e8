-- group_fields: the fields (offsets) of one group by heat: which parts of a structure are used
-- Parameters: :run (default: the latest run), :group (a group name such as
-- 'list_push:31' or a symbol; default: the hottest heap or static group).
-- Offsets are exact below 65536 (span 1); beyond, 4096-byte spans (span 4096);
-- rows are ordered by accesses per byte of span, hottest first.
WITH g AS (
    SELECT id, name FROM alloc_sites
    WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
      AND kind IN ('heap', 'static')
      AND (:group IS NULL OR name = :group)
    ORDER BY accesses DESC LIMIT 1)
SELECT g.name                                AS "group",
       f.offset                              AS offset,
       f.span                                AS span,
       f.loads + f.stores                    AS accesses,
       f.loads                               AS loads,
       f.stores                              AS stores,
       printf('%.1f%%', 100.0 * (f.loads + f.stores) /
              (SELECT sum(loads + stores) FROM object_offsets WHERE site = g.id)) AS share
FROM object_offsets f JOIN g ON f.site = g.id
ORDER BY (f.loads + f.stores) * 1.0 / f.span DESC, f.offset
LIMIT coalesce(:limit, 50);
