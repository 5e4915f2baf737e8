-- plot_layout_fields: data of trace-plot layout_fields: each field's share of a structure's latency, by loop (LWPTool's Table 5)
-- Parameters: :run (default: the latest run), :group (a group name;
-- default: the structure with the most weight that trace-layout analysed).
-- Columns: field (offset), share (of the structure's weight), cluster, label.
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
s AS (SELECT f.site, a.name, sum(f.weight) AS w FROM layout_fields f
      JOIN alloc_sites a ON a.id = f.site, r
      WHERE f.run = r.run AND (:group IS NULL OR a.name = :group)
      GROUP BY f.site ORDER BY sum(f.weight) DESC LIMIT 1)
SELECT '+' || f.offset AS field, 100.0 * f.weight / max(s.w, 1e-300) AS share,
       f.cluster AS cluster, s.name AS label
FROM layout_fields f JOIN s ON s.site = f.site, r
WHERE f.run = r.run
ORDER BY f.offset;
