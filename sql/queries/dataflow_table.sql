-- dataflow_table: Table 5.1 for a run: static against dynamic flow graphs and the average timestamp vector per dynamic node, compacted (uncompacted), in total and for the largest functions (trace-dataflow --db)
-- Parameters: :run (default: the latest run with flow graphs), :limit (default 20 functions).
WITH g AS (SELECT * FROM dataflow_graphs
           WHERE run = coalesce(:run, (SELECT max(run) FROM dataflow_graphs))
             AND coalesce(:group, 1) IS NOT NULL),
     t AS (SELECT '(all functions)' AS function, sum(paths) AS paths, sum(static_nodes) AS sn,
                  sum(static_edges) AS se, sum(dynamic_nodes) AS dn, sum(dynamic_edges) AS de,
                  sum(entries) AS en, sum(timestamps) AS ts, 0 AS k FROM g
           UNION ALL
           SELECT * FROM (SELECT function, paths, static_nodes, static_edges, dynamic_nodes,
                                 dynamic_edges, entries, timestamps, 1 FROM g
                          ORDER BY dynamic_nodes DESC LIMIT coalesce(:limit, 20)))
SELECT function, paths, sn AS "static N", se AS "static E", dn AS "dynamic N", de AS "dynamic E",
       printf('%.1f (%.1f)', 1.0 * en / max(1, dn), 1.0 * ts / max(1, dn)) AS "vector (uncompacted)"
FROM t ORDER BY k, dn DESC;
