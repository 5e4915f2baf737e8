-- values_runs: per run, the share of valued accesses that are small values, pointers near their address, or incompressible (the dissertation's Figure 8.2: 59% compressible on average), and what could not be seen
--   trace-db FILE query values_runs
-- Parameter: :run (default: every run with a value profile).
SELECT v.run,
       r.command,
       v.payload,
       v.values_mode,
       v.accesses,
       printf('%.1f%%', 100.0 * v.valued / max(1, v.accesses))            AS valued,
       printf('%.1f%%', 100.0 * v.small / max(1, v.valued))               AS small,
       printf('%.1f%%', 100.0 * v.pointer / max(1, v.valued))             AS pointer,
       printf('%.1f%%', 100.0 * v.incompressible / max(1, v.valued))      AS incompressible,
       printf('%.1f%%', 100.0 * (v.small + v.pointer) / max(1, v.valued)) AS compressible,
       v.selected                                                          AS selected_fields,
       v.saved_bytes,
       printf('%.1f%%', 100.0 * v.saved_bytes / max(1, v.heap_bytes))     AS saved_share,
       coalesce(v.note, '')                                                AS note
FROM value_runs v JOIN runs r ON r.id = v.run
WHERE :run IS NULL OR v.run = :run
ORDER BY v.run;
