-- plot_values_fitting: data of trace-plot values_fitting: the dissertation's Figure 6.5, the share of accesses whose value fits a fixed width L once its redundant prefix is dropped, one line per run
-- Parameters: :run (default: every run with a value profile); :group and :limit are ignored.
-- Columns: label (run and command), width (L, bits), fitting (% of valued accesses).
SELECT r.id || ': ' || coalesce(r.command, r.trace)               AS label,
       w.width,
       round(100.0 * w.fitting / max(1, w.valued), 2)              AS fitting
FROM value_widths w JOIN runs r ON r.id = w.run
WHERE (:run IS NULL OR w.run = :run) AND coalesce(:group, :limit, 1) IS NOT NULL
  AND w.valued > 0
ORDER BY w.run, w.width;
