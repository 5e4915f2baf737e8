-- plot_whomp: data of trace-plot whomp (WHOMP's Figure 5): for every run
-- trace-whomp stored, the OMSG's bytes (its four grammars) against the
-- RASG's (the raw (instruction, address) stream's grammar).
-- Parameters: :limit (default 40 runs); :run and :group are ignored.
-- Columns: label (run number and program), omsg, rasg, ratio.
SELECT r.id || ' ' || replace(coalesce(r.command, r.trace), rtrim(coalesce(r.command, r.trace),
         replace(coalesce(r.command, r.trace), '/', '')), '') AS label,
       w.omsg_bytes                                      AS omsg,
       w.rasg_bytes                                      AS rasg,
       printf('%.2f', w.ratio)                           AS ratio
FROM whomp_sizes w
JOIN runs r ON r.id = w.run
WHERE coalesce(:run, :group, 1) IS NOT NULL
ORDER BY w.run
LIMIT coalesce(:limit, 40);
