-- values_selected: the fields the selection rule chooses for compression (at least 80% of their instances compressible, section 6.5) and the heap bytes a compressed layout saves, group by group (Figure 7.6's original against compressed)
--   trace-db FILE query values_selected --run=N
-- Parameter: :run (default: the latest run with a value profile).
SELECT s.name                                                     AS "group",
       s.kind,
       group_concat(f.offset || ':' || f.size, ' ')               AS fields,
       max(f.objects)                                             AS objects,
       sum(f.saved_bytes)                                         AS saved_bytes,
       printf('%.1f', 1.0 * sum(f.saved_bytes) / max(1, max(f.objects))) AS saved_per_object
FROM value_fields f JOIN alloc_sites s ON s.id = f.site
WHERE f.run = coalesce(:run, (SELECT max(run) FROM value_runs)) AND f.selected
GROUP BY f.site
ORDER BY saved_bytes DESC, s.name;
