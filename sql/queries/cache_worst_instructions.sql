-- cache_worst_instructions: the memory instructions that cost the most cycles in the simulated caches (trace-cache)
-- Parameters: :run (default: the latest run), :limit (default 20).
-- latency sums each access's serving-level latency; miss rates are of the
-- instruction's own accesses; ll_misses went to memory.
SELECT printf('0x%x', i.address)                          AS pc,
       coalesce(i.function || ':' || i.line, i.function, '?') AS "where",
       i.kind                                              AS kind,
       i.size                                              AS size,
       c.accesses                                          AS accesses,
       printf('%.2f%%', 100.0 * c.l1_misses / c.accesses)  AS l1_miss,
       c.ll_misses                                         AS ll_misses,
       printf('%.2f', 1.0 * c.latency / c.accesses)        AS avg_latency,
       c.latency                                           AS latency
FROM cache_instructions c
JOIN instructions i ON i.id = c.instruction
WHERE c.run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY c.latency DESC
LIMIT coalesce(:limit, 20);
