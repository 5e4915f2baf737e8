-- leap_accuracy.sql: how many dependent pairs each profiler gets within 10%
-- of the exact frequency (Wu et al., Figure 8: LEAP 75%, 56% more pairs
-- than Connors), side by side. A pair is dependent when the exact profiler
-- or the method finds it; a pair a method misses counts as frequency 0.
--   trace-db FILE query leap_accuracy
-- Parameters: :run (default: the latest run), :file (a LIKE pattern the
-- source file of both instructions must match, default: every one).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
e AS (
    SELECT store, load, frequency FROM dependences, r
    WHERE dependences.run = r.run AND method = 'exact'),
methods(method) AS (VALUES ('leap'), ('connors')),
m AS (
    SELECT d.method, d.store, d.load, d.frequency FROM dependences d, r
    WHERE d.run = r.run AND d.method IN ('leap', 'connors')),
pairs AS (
    SELECT x.method, e.store, e.load,
           abs(coalesce(m.frequency, 0) - e.frequency) AS error
    FROM methods x CROSS JOIN e
    LEFT JOIN m ON m.method = x.method AND m.store = e.store AND m.load = e.load
    UNION ALL
    SELECT m.method, m.store, m.load, m.frequency
    FROM m LEFT JOIN e USING (store, load) WHERE e.load IS NULL),
kept AS (
    SELECT p.* FROM pairs p
    JOIN instructions s ON s.id = p.store
    JOIN instructions l ON l.id = p.load
    WHERE coalesce(s.file, '') LIKE coalesce(:file, '%')
      AND coalesce(l.file, '') LIKE coalesce(:file, '%'))
SELECT method,                                            -- 'leap' or 'connors'
       count(*)                                AS pairs,   -- dependent pairs
       sum(error <= 0.1 + 1e-9)                AS within_10pct,  -- |error| <= 10%
       round(100.0 * sum(error <= 0.1 + 1e-9) / count(*), 1) AS percent,
       sum(error < 1e-9)                       AS exact_match    -- |error| = 0
FROM kept
GROUP BY method
ORDER BY method DESC;
