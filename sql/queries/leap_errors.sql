-- leap_errors.sql: the error distribution of a dependence profiler against
-- the exact one (Wu et al., Figures 6 and 7), in 10% buckets: for every
-- (store, load) pair that either finds dependent, error = its frequency -
-- the exact frequency (a pair a method misses counts as frequency 0).
-- Bucket 0 is exactly right, -1 and +1 off by at most 10%, and so on.
--   trace-db FILE query leap_errors --param method=connors
-- Parameters: :run (default: the latest run), :method ('leap' or
-- 'connors', default 'leap'), :file (a LIKE pattern the source file of
-- both instructions must match, default: every instruction).
WITH m AS (
    SELECT store, load, frequency FROM dependences
    WHERE run = coalesce(:run, (SELECT max(id) FROM runs))
      AND method = coalesce(:method, 'leap')),
e AS (
    SELECT store, load, frequency FROM dependences
    WHERE run = coalesce(:run, (SELECT max(id) FROM runs)) AND method = 'exact'),
pairs AS (
    SELECT e.store, e.load, coalesce(m.frequency, 0) - e.frequency AS error
    FROM e LEFT JOIN m USING (store, load)
    UNION ALL
    SELECT m.store, m.load, m.frequency
    FROM m LEFT JOIN e USING (store, load) WHERE e.load IS NULL),
kept AS (
    SELECT p.error FROM pairs p
    JOIN instructions s ON s.id = p.store
    JOIN instructions l ON l.id = p.load
    WHERE coalesce(s.file, '') LIKE coalesce(:file, '%')
      AND coalesce(l.file, '') LIKE coalesce(:file, '%'))
SELECT CAST(round(error * 10) AS INTEGER)          AS bucket,   -- error / 10%, rounded
       count(*)                                    AS pairs,    -- pairs in the bucket
       round(100.0 * count(*) / (SELECT count(*) FROM kept), 1) AS percent  -- of all pairs
FROM kept
GROUP BY bucket
ORDER BY bucket;
