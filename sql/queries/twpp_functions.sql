-- twpp_functions: a run's TWPP functions, most called first: calls, distinct per-call path traces, compacted traces and dictionaries after deduplication, block executions and stored bytes (what --function reads).
-- Parameters: :run (default: the latest run with a TWPP), :limit (default 20).
SELECT f.function      AS function,
       printf('0x%x', f.entry) AS entry,
       f.calls         AS calls,
       f.unique_traces AS unique_traces,
       f.traces        AS traces,
       f.dictionaries  AS dictionaries,
       f.blocks        AS blocks,
       f.bytes         AS bytes
FROM twpp_functions f
WHERE f.run = coalesce(:run, (SELECT max(run) FROM twpp_functions))
ORDER BY f.calls DESC, f.entry
LIMIT coalesce(:limit, 20);
