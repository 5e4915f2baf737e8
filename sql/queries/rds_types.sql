-- rds_types: recursive data structure types as the RDS paper's Table 3 gives them (trace-rds --db)
-- Parameters: :run (default: the latest run).
-- A type is a strongly connected component of the static shape graph over
-- allocation sites with a cycle; its instances are the connected groups of
-- its objects. Lifetime: first allocation to last traversal, % of the run.
SELECT t.id                                   AS type,
       t.name                                 AS sites,
       t.instances                            AS instances,
       t.forward_edges                        AS fwd_edges,
       t.backward_edges                       AS bwd_edges,
       printf('%.1f', t.avg_size)             AS avg_size,
       printf('%.2f', 100 * t.avg_lifetime)   AS avg_lifetime_pct,
       t.accesses                             AS accesses,
       round(t.avg_latency, 2)                AS avg_latency
FROM rds_types t
WHERE t.run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY t.accesses DESC, t.id;
