-- thread_traffic: memory traffic per thread, and where it went (heap, static, stack, unknown)
-- Parameters: :run (default: the latest run).
SELECT tid, parent, loads, stores, bytes, heap, static, stack, unknown,
       allocs, first_access, last_access
FROM threads
WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
ORDER BY tid;
