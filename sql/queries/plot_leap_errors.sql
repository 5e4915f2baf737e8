-- plot_leap_errors: data of trace-plot leap_errors: the error distributions
-- of LEAP and of Connors against the exact profiler side by side (Wu et
-- al., Figures 6, 7 and 8), in 10% buckets of frequency - exact frequency
-- over the pairs either finds dependent (a missed pair counts as 0).
-- Parameter: :run (default: the latest run).
-- Columns: bucket (e.g. "-10%": off by 5 to 15 points, low), leap, connors
-- (percent of each method's pairs in the bucket).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
e AS (SELECT store, load, frequency FROM dependences, r
      WHERE dependences.run = r.run AND method = 'exact'),
methods(method) AS (VALUES ('leap'), ('connors')),
m AS (SELECT d.method, d.store, d.load, d.frequency FROM dependences d, r
      WHERE d.run = r.run AND d.method IN ('leap', 'connors')),
pairs AS (
    SELECT x.method, coalesce(m.frequency, 0) - e.frequency AS error
    FROM methods x CROSS JOIN e
    LEFT JOIN m ON m.method = x.method AND m.store = e.store AND m.load = e.load
    UNION ALL
    SELECT m.method, m.frequency FROM m LEFT JOIN e USING (store, load)
    WHERE e.load IS NULL),
buckets(b) AS (SELECT -10 UNION ALL SELECT b + 1 FROM buckets WHERE b < 10),
counted AS (
    SELECT method, CAST(round(error * 10) AS INTEGER) AS b, count(*) AS n
    FROM pairs GROUP BY method, b),
totals AS (SELECT method, sum(n) AS total FROM counted GROUP BY method)
SELECT printf('%+d%%', b * 10) AS bucket,
       coalesce((SELECT round(100.0 * n / t.total, 2) FROM counted c, totals t
                 WHERE c.method = 'leap' AND t.method = 'leap' AND c.b = buckets.b), 0) AS leap,
       coalesce((SELECT round(100.0 * n / t.total, 2) FROM counted c, totals t
                 WHERE c.method = 'connors' AND t.method = 'connors' AND c.b = buckets.b), 0) AS connors
FROM buckets
WHERE EXISTS (SELECT 1 FROM e)
ORDER BY b;
