-- rds_instances: the RDS instances with the most traversals, their shape, lifetime, latency and stability (trace-rds --db)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- rsf: the fewest intervals between alterations (edges added or removed)
-- holding 99% of its traversals (1: stable, a candidate for linearization).
SELECT i.id                                    AS instance,
       t.name                                  AS type,
       i.nodes                                 AS nodes,
       i.live_nodes                            AS live,
       i.forward_edges                         AS fwd,
       i.backward_edges                        AS bwd,
       i.accesses                              AS accesses,
       round(i.avg_latency, 2)                 AS avg_latency,
       printf('%.2f', 100 * i.norm_lifetime)   AS lifetime_pct,
       i.rsf                                   AS rsf,
       i.pattern                               AS pattern
FROM rds_instances i JOIN rds_types t ON t.run = i.run AND t.id = i.type
WHERE i.run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY i.accesses DESC, i.id
LIMIT coalesce(:limit, 20);
