-- plot_leap_strides: data of trace-plot leap_strides: per run, the share of
-- the exact profile's strongly strided instructions that LEAP identifies
-- with the same stride (Wu et al., Figure 9: the stride score, 88% on
-- average), and LEAP's share of accesses captured (Table 1).
-- Parameter: :run (default: every run with both profiles).
-- Columns: label (run and command), score (%), captured (%).
WITH e AS (SELECT run, instruction, stride FROM strides
           WHERE method = 'exact' AND strongly_strided),
l AS (SELECT run, instruction, stride FROM strides
      WHERE method = 'leap' AND strongly_strided)
SELECT r.id || ': ' || coalesce(r.command, r.trace)                 AS label,
       round(100.0 * (SELECT count(*) FROM e JOIN l USING (run, instruction, stride)
                      WHERE e.run = r.id)
             / (SELECT count(*) FROM e WHERE e.run = r.id), 1)        AS score,
       round(100.0 * s.captured / max(1, s.accesses), 1)             AS captured
FROM runs r JOIN leap_summary s ON s.run = r.id
WHERE (:run IS NULL OR r.id = :run)
  AND EXISTS (SELECT 1 FROM e WHERE e.run = r.id)
ORDER BY r.id;
