-- twpp_scan: items a reader scans to find one dependence edge (the dissertation's Table 4.7): in the raw trace, a backward scan of the addresses from the load to the store that wrote it (average and maximum over the edges, dropped ones too); with TWPP+ the reader reads the load point's six grammars, so an edge costs that point's grammar symbols (average over the edges kept, each weighing its point's symbols, and maximum).
-- Parameters: :run (default: the latest run with a TWPP+).
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM twpp_load_points)) AS run),
     p AS (SELECT l.* FROM twpp_load_points l, r WHERE l.run = r.run AND l.edges > 0),
     d AS (SELECT d.* FROM twpp_dependences d, r WHERE d.run = r.run)
SELECT (SELECT count(*) FROM p) AS load_points_with_edges,
       (SELECT sum(edges) FROM p) AS edges,
       (SELECT printf('%.1f', 1.0 * raw_scan_sum / max(1, edges + dropped)) FROM d) AS raw_avg_items,
       (SELECT raw_scan_max FROM d) AS raw_max_items,
       printf('%.1f', (SELECT 1.0 * sum(edges * grammar_symbols) / max(1, sum(edges)) FROM p)) AS twpp_avg_items,
       (SELECT max(grammar_symbols) FROM p) AS twpp_max_items;
