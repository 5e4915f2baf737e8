-- hot_groups: the hottest groups (allocation sites and static objects) by accesses
-- Parameters: :run (default: the latest run), :limit (default 20).
-- A group is where its objects come from: the allocating call site
-- (function:line); a static object, named by its data symbol (also from a
-- debug file in /usr/lib/debug/.build-id) or, for module data no symbol
-- covers, file:section[+0xOFF] or file:(ELF headers); or 'stack' / 'unknown'.
SELECT s.name                                  AS "group",
       s.kind                                  AS kind,
       s.objects                               AS objects,
       s.accesses                              AS accesses,
       printf('%.1f%%', 100.0 * s.accesses /
              max(1, (SELECT sum(accesses) FROM alloc_sites WHERE run = s.run))) AS share,
       s.bytes                                 AS bytes,
       (SELECT max(size) FROM objects o WHERE o.run = s.run AND o.site = s.id) AS max_size
FROM alloc_sites s
WHERE s.run = coalesce(:run, (SELECT max(id) FROM runs))
  AND s.accesses > 0
ORDER BY s.accesses DESC
LIMIT coalesce(:limit, 20);
