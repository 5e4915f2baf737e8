-- insn_many_objects: instructions that touch many objects of one group (pointer chasing, sweeps)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- objects is the number of distinct objects of the group the instruction
-- touched; offsets the distinct offsets (1 means: always the same field).
SELECT coalesce(i.function || ':' || i.line, i.function, printf('0x%x', i.address)) AS instruction,
       i.kind                                AS kind,
       i.size                                AS size,
       s.name                                AS "group",
       ig.objects                            AS objects,
       ig.offsets                            AS offsets,
       ig.accesses                           AS accesses,
       printf('%.2f', 1.0 * ig.accesses / ig.objects) AS per_object
FROM instr_groups ig
JOIN instructions i ON i.id = ig.instruction
JOIN alloc_sites s ON s.id = ig.site
WHERE ig.run = coalesce(:run, (SELECT max(id) FROM runs))
  AND ig.objects > 1
ORDER BY ig.objects DESC, ig.accesses DESC
LIMIT coalesce(:limit, 20);
