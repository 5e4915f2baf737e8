-- function_traffic: memory traffic per function (reads, writes, bytes; a modify counts as both)
-- Parameters: :run (default: the latest run), :limit (default 20).
SELECT coalesce(function, '?')               AS function,
       loads, stores, bytes, instructions,
       printf('%.1f%%', 100.0 * bytes /
              max(1, (SELECT sum(bytes) FROM function_traffic
                      WHERE run = coalesce(:run, (SELECT max(id) FROM runs))))) AS share
FROM function_traffic
WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY bytes DESC
LIMIT coalesce(:limit, 20);
