-- values_selected: the fields the selection rule chooses for compression (at least 80% of their instances compressible, section 6.5), by heap bytes saved (Figure 7.6: instances shrunk to the slot, minus extra locations for the spoiled ones)
--   trace-db FILE query values_selected --run=N --limit=N
-- Parameters: :run (default: the latest run with a value profile), :limit (default 20).
-- Heap groups first (the savings counted in value_runs.saved_bytes), then static ones.
SELECT s.name                                                        AS "group",
       s.kind,
       f.offset,
       f.size,
       f.instances,
       printf('%.1f%%', 100.0 * (f.instances - f.spoiled) / max(1, f.instances)) AS compressible_instances,
       f.objects,
       f.saved_bytes
FROM value_fields f JOIN alloc_sites s ON s.id = f.site
WHERE f.run = coalesce(:run, (SELECT max(run) FROM value_runs)) AND f.selected
ORDER BY s.kind = 'heap' DESC, f.saved_bytes DESC, s.name, f.offset
LIMIT coalesce(:limit, 20);
