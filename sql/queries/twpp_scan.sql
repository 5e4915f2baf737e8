-- twpp_scan: items a reader scans to find one dependence edge (the dissertation's Table 4.7): with TWPP+ it reads the load point's six grammars, so an edge costs that point's grammar symbols; the average is over edges (each edge weighs its point's symbols), with the maximum; against the raw trace's items (block executions plus accesses), the most a backward scan may read.
-- Parameters: :run (default: the latest run with a TWPP+).
WITH r AS (SELECT coalesce(:run, (SELECT max(run) FROM twpp_load_points)) AS run),
     p AS (SELECT l.* FROM twpp_load_points l, r WHERE l.run = r.run AND l.edges > 0)
SELECT (SELECT count(*) FROM p) AS load_points_with_edges,
       (SELECT sum(edges) FROM p) AS edges,
       printf('%.1f', (SELECT 1.0 * sum(edges * grammar_symbols) / max(1, sum(edges)) FROM p)) AS twpp_avg_items,
       (SELECT max(grammar_symbols) FROM p) AS twpp_max_items,
       (SELECT t.bytes / 4 FROM twpp_sizes t, r WHERE t.run = r.run AND t.part = 'wpp')
         + (SELECT d.loads + d.stores FROM twpp_dependences d, r WHERE d.run = r.run) AS raw_items;
