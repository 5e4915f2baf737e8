-- group_instructions: which instructions touch one group, and how (the paper's vertical decomposition)
-- Parameters: :run (default: the latest run), :group (a group name;
-- default: the hottest heap or static group), :limit (default 30).
WITH g AS (
    SELECT id, name FROM alloc_sites
    WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
      AND kind IN ('heap', 'static')
      AND (:group IS NULL OR name = :group)
    ORDER BY accesses DESC LIMIT 1)
SELECT g.name                                AS "group",
       coalesce(i.function || ':' || i.line, i.function, printf('0x%x', i.address)) AS instruction,
       i.kind                                AS kind,
       i.size                                AS size,
       ig.accesses, ig.objects, ig.offsets, ig.first_access, ig.last_access
FROM instr_groups ig JOIN g ON ig.site = g.id
JOIN instructions i ON i.id = ig.instruction
ORDER BY ig.accesses DESC
LIMIT coalesce(:limit, 30);
