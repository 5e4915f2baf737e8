-- twpp_dependences: a run's TWPP+ load and store points (the dissertation's Tables 4.2, 4.4 and 4.5): static load and store points and the share of each touching one address in the run, the estimated share of removable edges (single loads x single stores), dynamic loads and their share of accesses, and what became of the edges: kept, dropped as recoverable, none (memory no store wrote); the share of dynamic access points still traced.
-- Parameters: :run (default: the latest run with a TWPP+).
SELECT d.access_points AS points,
       d.load_points AS load_points,
       d.store_points AS store_points,
       d.single_loads AS single_loads,
       d.single_stores AS single_stores,
       printf('%.1f', 100.0 * d.single_loads / max(1, d.load_points)
                      * d.single_stores / max(1, d.store_points)) AS est_removed_pct,
       d.loads AS loads,
       d.stores AS stores,
       printf('%.1f', 100.0 * d.loads / max(1, d.loads + d.stores)) AS load_pct,
       d.edges AS edges,
       d.dropped AS dropped,
       d.unwritten AS unwritten,
       printf('%.1f', 100.0 * d.dropped / max(1, d.edges + d.dropped)) AS removed_pct,
       printf('%.1f', 100.0 * d.edges / max(1, d.loads + d.stores)) AS traced_pct
FROM twpp_dependences d
WHERE d.run = coalesce(:run, (SELECT max(run) FROM twpp_dependences));
