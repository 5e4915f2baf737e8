-- redundancy_top: the instructions with the most redundant instances (loads read again with no store between, stores overwritten unread), with function:line (trace-redundancy --db)
-- Parameters: :run (default: the latest run with redundancy counts), :limit (default 30).
SELECT coalesce(i.function || ':' || i.line, i.function, printf('0x%x', i.address)) AS "where",
       printf('0x%x', i.address)                                    AS address,
       i.kind                                                       AS kind,
       r.loads                                                      AS loads,
       r.redundant_loads                                            AS "redundant loads",
       printf('%.1f', 100.0 * r.redundant_loads / max(1, r.loads))  AS "% loads",
       r.stores                                                     AS stores,
       r.redundant_stores                                           AS "redundant stores",
       printf('%.1f', 100.0 * r.redundant_stores / max(1, r.stores)) AS "% stores",
       r.method                                                     AS method
FROM redundancy r JOIN instructions i ON i.id = r.instruction
WHERE r.run = coalesce(:run, (SELECT max(run) FROM redundancy))
  AND r.method = (SELECT CASE WHEN EXISTS (SELECT 1 FROM redundancy x WHERE x.run = r.run
                                           AND x.method = 'twpp') THEN 'twpp' ELSE 'direct' END)
  AND coalesce(:group, 1) IS NOT NULL
ORDER BY r.redundant_loads + r.redundant_stores DESC
LIMIT coalesce(:limit, 30);
