-- rds_instructions: the instructions that create (store edges of) and traverse (load edges of) RDS instances, with function:line (trace-rds --db)
-- Parameters: :run (default: the latest run), :limit (default 30).
SELECT r.role                                   AS role,
       coalesce(i.function || ':' || i.line, i.function,
                printf('0x%x', i.address))      AS "where",
       i.kind                                   AS kind,
       count(DISTINCT r.instance)               AS instances,
       sum(r.count)                             AS count
FROM rds_instance_insns r JOIN instructions i ON i.id = r.instruction
WHERE r.run = coalesce(:run, (SELECT max(id) FROM runs))
GROUP BY r.role, r.instruction
ORDER BY sum(r.count) DESC
LIMIT coalesce(:limit, 30);
