-- layout_advice: trace-layout's advice with its predicted gain, best first
-- Parameters: :run (default: the latest run).
-- One row per suggestion: what to do (split a structure into clusters of
-- field offsets, or interleave arrays), the D1 and last-level misses and
-- the latency before and after, from the replay of the trace (layout_gains).
WITH r AS (SELECT coalesce(:run, (SELECT max(id) FROM runs)) AS run),
what AS (
    SELECT g.rank, g.kind,
           CASE g.kind
           WHEN 'split' THEN 'split ' || s.name || ' into ' ||
                (SELECT group_concat(c, ' ') FROM
                   (SELECT '{' || group_concat(offset, ',') || '}' AS c
                    FROM (SELECT cluster, offset FROM layout_splits
                          WHERE run = g.run AND site = g.site ORDER BY cluster, offset)
                    GROUP BY cluster ORDER BY cluster))
           WHEN 'regroup' THEN 'interleave ' ||
                (SELECT group_concat(a.name, ' + ') FROM layout_regroups x
                 JOIN alloc_sites a ON a.id = x.site
                 WHERE x.run = g.run AND x.advice = g.advice)
           ELSE 'all of the advice' END AS advice
    FROM layout_gains g LEFT JOIN alloc_sites s ON s.id = g.site, r
    WHERE g.run = r.run AND g.level = 'D1')
SELECT w.rank + 1                                          AS rank,
       w.advice                                            AS advice,
       d.misses_before                                     AS d1_before,
       d.misses_after                                      AS d1_after,
       l.misses_before                                     AS ll_before,
       l.misses_after                                      AS ll_after,
       printf('%+.1f%%', 100.0 * (d.latency_after - d.latency_before)
                         / max(1, d.latency_before))       AS latency_change
FROM what w, r
JOIN layout_gains d ON d.run = r.run AND d.rank = w.rank AND d.level = 'D1'
JOIN layout_gains l ON l.run = r.run AND l.rank = w.rank
     AND l.level = (SELECT level FROM layout_gains WHERE run = r.run AND rank = w.rank
                    ORDER BY rowid DESC LIMIT 1)
ORDER BY w.rank;
