-- plot_values_bits: data of trace-plot values_bits: the dissertation's Figure 6.4, the bits every value needs at a fixed width L (a value that fits costs L bits, another its word) against its word's width, one line per run
-- Parameters: :run (default: every run with a value profile); :group and :limit are ignored.
-- Columns: label (run and command), width (L, bits), bits (% of the word widths).
SELECT r.id || ': ' || coalesce(r.command, r.trace)               AS label,
       w.width,
       round(100.0 * w.bits / max(1, w.base_bits), 2)              AS bits
FROM value_widths w JOIN runs r ON r.id = w.run
WHERE (:run IS NULL OR w.run = :run) AND coalesce(:group, :limit, 1) IS NOT NULL
  AND w.valued > 0
ORDER BY w.run, w.width;
