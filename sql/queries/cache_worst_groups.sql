-- cache_worst_groups: the groups (allocation sites, static objects, stack) whose accesses cost the most cycles (trace-cache)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- share is the group's part of all simulated data-access latency, the
-- l_d of LWPTool (its hot-data filter).
SELECT g.name                                              AS "group",
       g.kind                                              AS kind,
       g.objects                                           AS objects,
       g.accesses                                          AS accesses,
       printf('%.2f%%', 100.0 * g.l1_misses / g.accesses)  AS l1_miss,
       g.ll_misses                                         AS ll_misses,
       printf('%.2f', 1.0 * g.latency / g.accesses)        AS avg_latency,
       printf('%.1f%%', 100.0 * g.latency /
              max(1, (SELECT sum(latency) FROM cache_groups WHERE run = g.run))) AS share
FROM cache_groups g
WHERE g.run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY g.latency DESC
LIMIT coalesce(:limit, 20);
