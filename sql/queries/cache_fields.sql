-- cache_fields: the fields (group, offset) with the most cache misses (trace-cache)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- A field is an offset in the objects of a heap or static group, summed
-- over the objects; share_of_group is its part of the group's latency (as
-- LWPTool's per-field breakdown).
SELECT g.name                                              AS "group",
       f.offset                                            AS offset,
       f.accesses                                          AS accesses,
       f.l1_misses                                         AS l1_misses,
       f.ll_misses                                         AS ll_misses,
       printf('%.2f', 1.0 * f.latency / f.accesses)        AS avg_latency,
       printf('%.1f%%', 100.0 * f.latency / max(1, g.latency)) AS share_of_group
FROM cache_fields f
JOIN cache_groups g ON g.run = f.run AND g.grp = f.grp
WHERE f.run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY f.l1_misses DESC, f.latency DESC
LIMIT coalesce(:limit, 20);
