-- values_instructions: memory instructions by accesses to heap and static objects, with the share of small values, pointers and incompressible values they move and their value range
--   trace-db FILE query values_instructions --run=N --limit=N
-- Parameters: :run (default: the latest run with a value profile), :limit (default 30).
SELECT coalesce(i.function, printf('0x%x', i.address)) || ':' || coalesce(i.line, '?') AS instruction,
       i.kind,
       i.size,
       v.accesses,
       v.valued,
       printf('%.1f%%', 100.0 * v.small / max(1, v.valued))          AS small,
       printf('%.1f%%', 100.0 * v.pointer / max(1, v.valued))        AS pointer,
       printf('%.1f%%', 100.0 * v.incompressible / max(1, v.valued)) AS incompressible,
       CASE WHEN v.valued THEN v.min_value || '..' || v.max_value END AS range
FROM value_instructions v JOIN instructions i ON i.id = v.instruction
WHERE v.run = coalesce(:run, (SELECT max(run) FROM value_runs))
ORDER BY v.accesses DESC, i.address
LIMIT coalesce(:limit, 30);
