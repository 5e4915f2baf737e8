-- plot_layout_affinity: data of trace-plot layout_affinity: the field-affinity matrix (FA, Eq. 7) of one structure
-- Parameters: :run (default: the latest run), :group (a group name;
-- default: the structure with the most weight that trace-layout analysed).
-- Columns: a, b (field offsets as labels), fa, label (the structure).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
s AS (SELECT f.site, a.name FROM layout_fields f JOIN alloc_sites a ON a.id = f.site, r
      WHERE f.run = r.run AND (:group IS NULL OR a.name = :group)
      GROUP BY f.site ORDER BY sum(f.weight) DESC LIMIT 1)
SELECT '+' || x.offset_a AS a, '+' || x.offset_b AS b, x.fa AS fa, s.name AS label
FROM layout_affinities x JOIN s ON s.site = x.site, r
WHERE x.run = r.run
ORDER BY x.offset_a, x.offset_b;
